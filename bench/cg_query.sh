#!/usr/bin/env bash
# Instructions the server executes per query of one type, under callgrind:
# steady where this VM's query timings move ±30 % between rounds. 864,000
# TSBS rows are loaded once (by the last binary, its sealed hours tiered into
# blocks); then each binary serves RUNS and 2×RUNS queries of the type from
# that data directory, and the difference divided by RUNS leaves start-up and
# shutdown out. Maintenance is held off while counting.
# Needs valgrind (apt-get install valgrind).
# Usage: bench/cg_query.sh QUERY_TYPE STRATAD [STRATAD...] [-- RUNS]   (RUNS default 5)
#   e.g. bench/cg_query.sh double-groupby-1 /tmp/stratad-old build/server/stratad
set -euo pipefail
cd "$(dirname "$0")/.."
only=$1
shift
binaries=()
runs=5
while [ $# -gt 0 ]; do
  if [ "$1" = "--" ]; then runs=$2; break; fi
  binaries+=("$1")
  shift
done
command -v valgrind >/dev/null || { echo "valgrind is missing: apt-get install valgrind" >&2; exit 1; }
scripts/build.sh ingest_bench query_bench >/dev/null
port=${STRATA_BENCH_PORT:-7897}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
wait_serving() { until grep -qs "serving on port" "$1"; do sleep 0.2; done; }
loader=${binaries[-1]}
"$loader" --data-dir "$dir/data" --listen "127.0.0.1:$port" --http-listen 127.0.0.1:0 \
  --pg-listen 127.0.0.1:0 --maintenance-interval-seconds 5 2>"$dir/load.log" &
pid=$!
wait_serving "$dir/load.log"
build/bench/ingest_bench --target "127.0.0.1:$port" --hosts 1000 --rows 864000 --streams 4 >/dev/null
sleep 20  # sealed hours become blocks
kill -INT "$pid"
wait "$pid" || true
# Settle: the first open after the load compacts and warms what the others
# would not; without this the first binary counted paid ~10 % more.
"$loader" --data-dir "$dir/data" --listen "127.0.0.1:$port" --http-listen 127.0.0.1:0 \
  --pg-listen 127.0.0.1:0 --maintenance-interval-seconds 86400 2>"$dir/settle.log" &
pid=$!
wait_serving "$dir/settle.log"
build/bench/query_bench --target "127.0.0.1:$port" --only "$only" --runs 3 >/dev/null
sleep 15
kill -INT "$pid"
wait "$pid" || true
instructions() {  # BINARY RUNS -> instructions collected
  # The previous run's log says "serving" too: without this, the client
  # could start before the server (and fail, leaving the server running).
  rm -f "$dir/log"
  valgrind --tool=callgrind --callgrind-out-file="$dir/out" "$1" --data-dir "$dir/data" \
    --listen "127.0.0.1:$port" --http-listen 127.0.0.1:0 --pg-listen 127.0.0.1:0 \
    --maintenance-interval-seconds 86400 2>"$dir/log" &
  local pid=$!
  wait_serving "$dir/log"
  build/bench/query_bench --target "127.0.0.1:$port" --only "$only" --runs "$2" >/dev/null
  kill -INT "$pid"
  wait "$pid" || true
  sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$dir/log"
}
for bin in "${binaries[@]}"; do
  one=$(instructions "$bin" "$runs")
  two=$(instructions "$bin" $((2 * runs)))
  echo "$bin $only: $(((two - one) / runs)) instructions per query"
done
