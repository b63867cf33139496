#!/usr/bin/env bash
# A/B of a small query's fixed cost between stratad binaries: one data directory of 864,000
# TSBS rows (loaded by the first binary, its sealed hours tiered into blocks), then each binary
# in turn serves `query_bench --runs 2000` of SELECT 1 and of single-groupby-1-1-1 (columnar)
# under `perf stat` on its pid. Prints per binary and round: p50, context switches and server
# CPU a query. The binaries must read one another's blocks.
# Usage: bench/ab_small_queries.sh BINARY... (AB_ROUNDS rounds, default 3)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh ingest_bench query_bench >/dev/null
dir=$(mktemp -d)
port=${STRATA_BENCH_PORT:-7891}
runs=2000
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$dir"' EXIT
pid=
start() { # BINARY
  : >"$dir/log"
  "$1" --data-dir "$dir/data" --listen "127.0.0.1:$port" --maintenance-interval-seconds 5 \
    2>>"$dir/log" &
  pid=$!
  until grep -q "serving on port" "$dir/log"; do sleep 0.1; done
}
stop() { kill "$pid"; wait "$pid" 2>/dev/null || true; }
measure() { # query_bench arguments: "p50 ms, switches, CPU" of $runs runs
  perf stat -e context-switches,task-clock -p "$pid" -x, -o "$dir/stat" -- sleep 5 &
  local perf=$!
  sleep 0.2
  local p50
  p50=$(build/bench/query_bench --target "127.0.0.1:$port" --runs "$runs" "$@" 2>&1 |
    tail -1 | awk '{print $2}')
  wait "$perf"
  awk -F, -v p50="$p50" -v n="$runs" '/context-switches/{c=$1} /task-clock/{t=$1}
    END{printf "%s ms, %.1f switches, %d us CPU", p50, c/n, t*1000/n}' "$dir/stat"
}
start "$1"
build/bench/ingest_bench --target "127.0.0.1:$port" --hosts 1000 --rows 864000 --streams 4 | sed -n 2p
sleep 25  # sealed hours become blocks (maintenance every 5 s)
stop
for round in $(seq "${AB_ROUNDS:-3}"); do
  for bin in "$@"; do
    start "$bin"
    build/bench/query_bench --target "127.0.0.1:$port" --sql "SELECT 1" --runs 300 >/dev/null 2>&1
    echo "round $round $bin: SELECT 1 $(measure --sql 'SELECT 1'); single-groupby-1-1-1 $(measure --only single-groupby-1-1-1 --columnar)"
    stop
  done
done
