#!/usr/bin/env bash
# A/B of three query types between two stratad binaries on one data directory: 864,000 TSBS rows
# loaded by NEW (its sealed hours tiered into blocks), then OLD and NEW alternately serve
# `query_bench --runs 15`; prints the median of each query type per run.
# Usage: bench/ab_queries.sh OLD_STRATAD NEW_STRATAD   (NEW must know --http-listen)
set -u
cd "$(dirname "$0")/.."
scripts/build.sh ingest_bench query_bench >/dev/null
dir=$(mktemp -d)
old=$1 new=$2
start() { # BINARY
  local http=()
  [ "$1" = "$new" ] && http=(--http-listen 127.0.0.1:0 --pg-listen 127.0.0.1:0)
  "$1" --data-dir "$dir/data" --listen 127.0.0.1:7891 "${http[@]}" \
    --maintenance-interval-seconds 5 2>>"$dir/log" &
  pid=$!
  until grep -q "serving on port" "$dir/log"; do sleep 0.1; done
}
stop() { kill "$pid"; wait "$pid" 2>/dev/null; : >"$dir/log"; }
start $new
build/bench/ingest_bench --target 127.0.0.1:7891 --hosts 1000 --rows 864000 --streams 4 | sed -n 2p
sleep 20  # sealed hours become blocks (maintenance every 5 s)
stop
for round in 1 2 3; do
  for bin in "$old" "$new"; do
    start "$bin"
    r=$(build/bench/query_bench --target 127.0.0.1:7891 --runs 15 |
      grep -E "double-groupby-1 |high-cpu-all|single-groupby-1-1-1" | awk '{printf "%s=%s ", $1, $2}')
    echo "round $round $([ "$bin" = "$old" ] && echo old || echo new) $r"
    stop
  done
done
rm -rf "$dir"
