#!/usr/bin/env bash
# One query type's latency and the server's CPU per query, on an existing data directory (e.g. a
# copy of the one bench/run_queries.sh loads): starts STRATAD on it, runs 50 warm-up queries, then
# RUNS more while /proc counts the server's user + system time.
# Usage: bench/query_cpu.sh STRATAD DATA_DIR [query type] [runs]
# STRATA_BENCH_QUERY_ARGS adds query_bench flags (e.g. --columnar).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/process_cpu.sh
stratad=$1 data=$2 query=${3:-single-groupby-1-1-1} runs=${4:-2000}
scripts/build.sh query_bench >/dev/null
port=${STRATA_BENCH_PORT:-7895}
log=$(mktemp)
"$stratad" --data-dir "$data" --listen "127.0.0.1:$port" --http-listen 127.0.0.1:0 \
  --pg-listen 127.0.0.1:0 2>"$log" &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -f "$log"' EXIT
until grep -q "serving on port" "$log"; do sleep 0.1; done
build/bench/query_bench --target "127.0.0.1:$port" --runs 50 --only "$query" >/dev/null
before=$(ticks "$pid")
# shellcheck disable=SC2086
result=$(build/bench/query_bench --target "127.0.0.1:$port" --runs "$runs" --only "$query" \
  ${STRATA_BENCH_QUERY_ARGS:-} | tail -1)
after=$(ticks "$pid")
echo "$result" | awk -v b="$(basename "$stratad")" '{printf "%s %s median=%s p95=%s ", b, $1, $2, $3}'
awk -v t=$((after - before)) -v hz="$(getconf CLK_TCK)" -v r="$runs" \
  'BEGIN {printf "server_cpu_us/query=%.0f\n", t / hz * 1e6 / r}'
