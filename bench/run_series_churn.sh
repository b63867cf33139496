#!/usr/bin/env bash
# The first query after the table's registry changed: a fresh stratad loaded with HOSTS series
# (TSBS devops rows, the newest hour open), then the first high-cpu-1 query (the table layout
# built), then ROUNDS times a write of one new series (a known measure: "series"), or of a new
# measure ("measure"), each followed by the first query after it (the layout made again).
# Prints each query's time in ms. STRATA_BENCH_STRATAD names another stratad binary.
# Usage: bench/run_series_churn.sh [hosts] [rows] [rounds] [series|measure]
set -euo pipefail
cd "$(dirname "$0")/.."
hosts=${1:-100000} rows=${2:-1000000} rounds=${3:-6} change=${4:-series}
stratad=${STRATA_BENCH_STRATAD:-build/server/stratad}
scripts/build.sh stratad strata ingest_bench query_bench >/dev/null
dir=$(mktemp -d)
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$dir"' EXIT
port=${STRATA_BENCH_PORT:-7882}
"$stratad" --data-dir "$dir/data" --listen "127.0.0.1:$port" --http-listen 127.0.0.1:0 \
  --pg-listen 127.0.0.1:0 2>"$dir/stratad.log" &
pid=$!
until grep -q "serving on port" "$dir/stratad.log"; do sleep 0.1; done
build/bench/ingest_bench --target "127.0.0.1:$port" --hosts "$hosts" --rows "$rows" --streams 4 \
  | sed -n 2p
first_query() {
  build/bench/query_bench --target "127.0.0.1:$port" --only high-cpu-1 --runs 1 --columnar \
    | tail -1 | awk -v what="$1" '{print what ": " $2 " ms"}'
}
first_query "first query (layout built)"
for i in $(seq "$rounds"); do
  measure=cpu
  [ "$change" = measure ] && measure="new_measure_$i"
  build/client/strata --port "$port" write benchmark cpu -D "hostname=new_host_$i" \
    -m usage_user=1 --measure-name "$measure" >/dev/null
  first_query "after a new $change"
done
