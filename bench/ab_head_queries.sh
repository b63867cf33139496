#!/usr/bin/env bash
# A/B of queries over the memory head between two stratad binaries: for each, a fresh data
# directory with sealing off (`--seal-after-minutes 0`: every row stays in the head), 720,000
# TSBS rows (1,000 hosts x 2 h), a wait for a maintenance run (every 5 s: the head's buckets are
# regrouped), then `query_bench --only Q --columnar` per query type; the two alternate.
# Prints one line per query and server with the median, p95 and p99 in ms.
# Usage: bench/ab_head_queries.sh OLD_STRATAD NEW_STRATAD [rounds]
# Environment: QUERIES (space-separated types), ROWS, RUNS (per type, default 7), WAIT (s, 12).
set -euo pipefail
cd "$(dirname "$0")/.."
old=$1 new=$2 rounds=${3:-2}
queries=${QUERIES:-double-groupby-1 double-groupby-5 double-groupby-all high-cpu-all \
groupby-orderby-limit lastpoint single-groupby-1-1-1 high-cpu-1}
scripts/build.sh ingest_bench query_bench >/dev/null
port=${STRATA_BENCH_PORT:-7891}
for round in $(seq "$rounds"); do
  for bin in "$old" "$new"; do
    dir=$(mktemp -d)
    "$bin" --data-dir "$dir/data" --listen "127.0.0.1:$port" --http-listen 127.0.0.1:0 \
      --pg-listen 127.0.0.1:0 --maintenance-interval-seconds 5 --seal-after-minutes 0 \
      2>"$dir/log" &
    pid=$!
    until grep -q "serving on port" "$dir/log"; do sleep 0.1; done
    build/bench/ingest_bench --target "127.0.0.1:$port" --hosts 1000 --rows "${ROWS:-720000}" \
      --streams 4 >/dev/null
    sleep "${WAIT:-12}"
    label=$([ "$bin" = "$old" ] && echo old || echo new)
    for q in $queries; do
      echo "round $round $label $(build/bench/query_bench --target "127.0.0.1:$port" --only "$q" \
        --runs "${RUNS:-7}" --columnar | tail -1)"
    done
    kill "$pid"
    wait "$pid" 2>/dev/null || true
    rm -rf "$dir"
  done
done
