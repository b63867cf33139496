#!/usr/bin/env bash
# A/B of three query types between two stratad binaries: each loads the same 864,000 TSBS rows
# into a data directory of its own (a block format change leaves an older binary unable to read
# a newer one's blocks), its sealed hours tiered into blocks; then OLD and NEW alternately serve
# `query_bench --runs 15`; prints the median of each query type per run.
# Usage: bench/ab_queries.sh OLD_STRATAD NEW_STRATAD [ingest_bench options, e.g. --step-hundredths 173]
#        (NEW must know --http-listen); AB_QUERY_TYPES: an extended regex of the types to print
#        (default three; '.' prints every type)
set -u
cd "$(dirname "$0")/.."
scripts/build.sh ingest_bench query_bench >/dev/null
dir=$(mktemp -d)
old=$1 new=$2
shift 2
start() { # BINARY
  local http=()
  [ "$1" = "$new" ] && http=(--http-listen 127.0.0.1:0 --pg-listen 127.0.0.1:0)
  local data="$dir/old"
  [ "$1" = "$new" ] && data="$dir/new"
  "$1" --data-dir "$data" --listen 127.0.0.1:7891 "${http[@]}" \
    --maintenance-interval-seconds 5 2>>"$dir/log" &
  pid=$!
  until grep -q "serving on port" "$dir/log"; do sleep 0.1; done
}
stop() { kill "$pid"; wait "$pid" 2>/dev/null; : >"$dir/log"; }
for bin in "$old" "$new"; do
  start "$bin"
  build/bench/ingest_bench --target 127.0.0.1:7891 --hosts 1000 --rows 864000 --streams 4 "$@" |
    sed -n 2p
  sleep 20  # sealed hours become blocks (maintenance every 5 s)
  stop
done
for round in 1 2 3; do
  for bin in "$old" "$new"; do
    start "$bin"
    r=$(build/bench/query_bench --target 127.0.0.1:7891 --runs 15 |
      grep -E "${AB_QUERY_TYPES:-double-groupby-1 |high-cpu-all|single-groupby-1-1-1}" | awk '{printf "%s=%s ", $1, $2}')
    echo "round $round $([ "$bin" = "$old" ] && echo old || echo new) $r"
    stop
  done
done
rm -rf "$dir"
