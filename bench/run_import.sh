#!/usr/bin/env bash
# Times `strata import` of a TSBS-like CSV (time, host, region, 10 double measures) into a fresh
# stratad: the CLI's parse + batch + parallel-write path end to end.
# Usage: bench/run_import.sh [rows] [format: csv|lp] [parallel] [stratad binary]
# STRATA_BENCH_SERVER_ENV: NAME=VALUE words for the server's environment (e.g.
# "MALLOC_CONF=thp:always,metadata_thp:always", docs/operations.md); the server's minor page
# faults are reported with its CPU.
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${1:-1000000} format=${2:-csv} parallel=${3:-4} stratad=${4:-build/server/stratad}
scripts/build.sh stratad strata >/dev/null
dir=$(mktemp -d)
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$dir"' EXIT
port=${STRATA_BENCH_PORT:-7879}
env ${STRATA_BENCH_SERVER_ENV:-} "$stratad" --data-dir "$dir/data" --listen "127.0.0.1:$port" --http-listen 127.0.0.1:0 --pg-listen 127.0.0.1:0 2>"$dir/stratad.log" &
pid=$!
strata() { build/client/strata --port "$port" "$@"; }
for _ in $(seq 50); do strata health >/dev/null 2>&1 && break; sleep 0.1; done
strata db create bench >/dev/null
strata table create bench cpu --memory 24h >/dev/null

bench/gen_import_file.sh "$rows" "$format" >"$dir/data.$format"
echo "file: $rows rows, $(du -h "$dir/data.$format" | cut -f1)"
/usr/bin/time -f "client: %e s wall, %U s user, %S s system, %M KB max RSS" \
  build/client/strata --port "$port" import bench cpu "$dir/data.$format" --parallel "$parallel" \
  --progress none
echo "server RSS: $(($(awk '/VmHWM/{print $2}' /proc/$pid/status) / 1024)) MB peak"
awk -v hz="$(getconf CLK_TCK)" -v r="$rows" \
  '{printf "server CPU: %.1f s user, %.1f s system (%.2f us/row, start-up included), %d minor faults\n", $14 / hz, $15 / hz, ($14 + $15) / hz * 1e6 / r, $10}' \
  "/proc/$pid/stat"
