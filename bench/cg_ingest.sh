#!/usr/bin/env bash
# Instructions the server executes per ingested row, under callgrind: steady
# where this VM's timings move ±30 % within minutes. Each binary ingests
# ROWS and 2×ROWS TSBS rows (ingest_bench, 16 streams) into a fresh data
# directory; the difference divided by ROWS leaves start-up and shutdown out.
# Maintenance is held off (its first pass a day away): the load's older hour
# is otherwise sealed into blocks in some runs and not others, as the wall
# clock and callgrind's pace fall, which doubled some counts.
# Needs valgrind (apt-get install valgrind).
# Usage: bench/cg_ingest.sh STRATAD [STRATAD...] [-- ROWS]   (ROWS default 100000)
set -euo pipefail
cd "$(dirname "$0")/.."
binaries=()
rows=100000
while [ $# -gt 0 ]; do
  if [ "$1" = "--" ]; then rows=$2; break; fi
  binaries+=("$1")
  shift
done
command -v valgrind >/dev/null || { echo "valgrind is missing: apt-get install valgrind" >&2; exit 1; }
scripts/build.sh ingest_bench >/dev/null
port=${STRATA_BENCH_PORT:-7896}
instructions() {  # BINARY ROWS -> instructions collected
  local dir
  dir=$(mktemp -d)
  valgrind --tool=callgrind --callgrind-out-file="$dir/out" "$1" --data-dir "$dir/data" \
    --listen "127.0.0.1:$port" --http-listen 127.0.0.1:0 --pg-listen 127.0.0.1:0 \
    --maintenance-interval-seconds 86400 2>"$dir/log" &
  local pid=$!
  until grep -q "serving on port" "$dir/log"; do sleep 0.2; done
  build/bench/ingest_bench --target "127.0.0.1:$port" --hosts 1000 --rows "$2" --streams 16 \
    >/dev/null
  kill -INT "$pid"
  wait "$pid" || true
  sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$dir/log"
  rm -rf "$dir"
}
for bin in "${binaries[@]}"; do
  one=$(instructions "$bin" "$rows")
  two=$(instructions "$bin" $((2 * rows)))
  echo "$bin instructions/row=$(( (two - one) / rows ))"
done
