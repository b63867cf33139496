#!/usr/bin/env bash
# A/B of ingest between two stratad binaries (e.g. the previous commit's, built in a git
# worktree, and this one): a fresh data dir per run, the two alternating, the same
# ingest_bench load each time. Prints one line per run with the server's CPU
# time per row (user + system, from /proc, start-up included); compare the
# medians.
# Usage: bench/ab_ingest.sh OLD_STRATAD NEW_STRATAD [rounds] [rows] [streams]
set -euo pipefail
cd "$(dirname "$0")/.."
old=$1 new=$2 rounds=${3:-3} rows=${4:-500000} streams=${5:-4}
scripts/build.sh ingest_bench >/dev/null
port=${STRATA_BENCH_PORT:-7890}
for round in $(seq "$rounds"); do
  for bin in "$old" "$new"; do
    dir=$(mktemp -d)
    # Binaries from before the HTTP port do not know --http-listen.
    http=()
    if "$bin" --help 2>/dev/null | grep -q -- --http-listen; then http=(--http-listen 127.0.0.1:0); fi
    if "$bin" --help 2>/dev/null | grep -q -- --pg-listen; then http+=(--pg-listen 127.0.0.1:0); fi
    "$bin" --data-dir "$dir/data" --listen "127.0.0.1:$port" "${http[@]}" 2>"$dir/log" &
    pid=$!
    until grep -q "serving on port" "$dir/log"; do sleep 0.1; done
    result=$(build/bench/ingest_bench --target "127.0.0.1:$port" --hosts 1000 --rows "$rows" \
      --streams "$streams" | sed -n 2p)
    ticks=$(awk '{print $14 + $15}' "/proc/$pid/stat")
    cpu=$(awk -v t="$ticks" -v hz="$(getconf CLK_TCK)" -v r="$rows" \
      'BEGIN {printf "server_cpu_us/row=%.2f", t / hz * 1e6 / r}')
    echo "round $round $([ "$bin" = "$old" ] && echo old || echo new) $result $cpu"
    kill "$pid"
    wait "$pid" 2>/dev/null || true
    rm -rf "$dir"
  done
done
