#!/usr/bin/env bash
# Loads TSBS devops data (default 1000 hosts x 1 day = 8.64 M rows) into a
# fresh stratad and runs the query suite. Usage: bench/run_queries.sh [rows] [runs]
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${1:-8640000}
runs=${2:-5}
scripts/build.sh stratad ingest_bench query_bench >/dev/null
dir=$(mktemp -d)
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$dir"' EXIT
port=${STRATA_BENCH_PORT:-7880}
build/server/stratad --data-dir "$dir/data" --listen "127.0.0.1:$port" 2>"$dir/stratad.log" &
pid=$!
sleep 1
build/bench/ingest_bench --target "127.0.0.1:$port" --hosts 1000 --rows "$rows" --streams 4 | head -2
build/bench/query_bench --target "127.0.0.1:$port" --runs "$runs"
