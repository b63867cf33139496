#!/usr/bin/env bash
# Starts a fresh stratad on a temp data dir and runs the ingest benchmark
# against it. Usage: bench/run_ingest.sh [ingest_bench flags...]
# Example: bench/run_ingest.sh --hosts 1000 --rows 2000000 --streams 4
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh stratad ingest_bench >/dev/null
dir=$(mktemp -d)
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$dir"' EXIT
port=${STRATA_BENCH_PORT:-7879}
build/server/stratad --data-dir "$dir/data" --listen "127.0.0.1:$port" --http-listen 127.0.0.1:0 --pg-listen 127.0.0.1:0 \
  ${STRATA_BENCH_DURABILITY:+--durability $STRATA_BENCH_DURABILITY} 2>"$dir/stratad.log" &
pid=$!
sleep 1
build/bench/ingest_bench --target "127.0.0.1:$port" --server-pid "$pid" "$@"
echo "data dir size: $(du -sh "$dir/data" | cut -f1)"
