#!/usr/bin/env bash
# Loads TSBS devops data (default 1000 hosts x 1 day = 8.64 M rows) into a
# fresh stratad and runs the query suite.
# Usage: bench/run_queries.sh [rows] [runs] [memory-store hours]
# With memory-store hours (e.g. 1), the table's memory store is shrunk to
# that after loading and the suite runs once the tiering job has moved the
# older hours into magnetic blocks; without, all data stays in the memory
# store, and the suite runs once the tiering job has sealed its closed hours
# (STRATA_BENCH_SEAL_AFTER_MINUTES=0 turns sealing off: rows only).
# The suite starts once the server is quiet (its compactions done: bench/process_cpu.sh).
# STRATA_BENCH_QUERY_ARGS adds query_bench flags (e.g. --columnar); STRATA_BENCH_STRATAD names
# another stratad binary (an earlier build, for an A/B).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/process_cpu.sh
rows=${1:-8640000}
runs=${2:-5}
memory_hours=${3:-}
scripts/build.sh stratad strata ingest_bench query_bench >/dev/null
dir=$(mktemp -d)
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$dir"' EXIT
port=${STRATA_BENCH_PORT:-7880}
${STRATA_BENCH_STRATAD:-build/server/stratad} --data-dir "$dir/data" --listen "127.0.0.1:$port" --http-listen 127.0.0.1:0 --pg-listen 127.0.0.1:0 \
  --maintenance-interval-seconds 5 --seal-after-minutes "${STRATA_BENCH_SEAL_AFTER_MINUTES:-10}" \
  2>"$dir/stratad.log" &
pid=$!
sleep 1
build/bench/ingest_bench --target "127.0.0.1:$port" --hosts 1000 --rows "$rows" --streams 4 | head -2
# Waits until two maintenance runs in a row find nothing left to move or seal
# (a pass moves a few hours; queries run during the next ones were slowed).
runs() { grep -c 'tiering "benchmark"."cpu"' "$dir/stratad.log" || true; }
settle() {
  seen=-1
  until [[ $seen == $(runs) ]]; do
    seen=$(runs)
    sleep 11
  done
}
if [[ -n "$memory_hours" ]]; then
  build/client/strata -p "$port" table update benchmark cpu --memory "${memory_hours}h" >/dev/null
  until grep -q 'tiering "benchmark"."cpu"' "$dir/stratad.log"; do sleep 1; done
  settle
  grep 'tiering "benchmark"."cpu"' "$dir/stratad.log" | sed 's/.*tiering/tiering/'
else
  settle  # sealing ran during the load
  echo "sealing: $seen tiering runs during and after the load"
fi
await_quiet "$pid"
build/bench/query_bench --target "127.0.0.1:$port" --runs "$runs" ${STRATA_BENCH_QUERY_ARGS:-}
