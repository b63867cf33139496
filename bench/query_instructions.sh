#!/usr/bin/env bash
# Server instructions per query (callgrind), the same data for every build: an A/B that the
# noise of a shared 2-core VM does not move. Loads ROWS TSBS rows (1,000 hosts) into a data
# directory with this checkout's stratad and lets it seal the closed hours, then for each
# STRATAD starts it on a copy of that directory under callgrind with counting off, runs two
# warm-up queries of each type, waits until the server is idle, and counts RUNS more.
# Usage: bench/query_instructions.sh ROWS RUNS "QUERY TYPES" STRATAD...
# Needs valgrind (apt-get install valgrind).
set -euo pipefail
cd "$(dirname "$0")/.."
rows=$1 runs=$2 queries=$3
shift 3
command -v valgrind >/dev/null || { echo "needs valgrind: sudo apt-get install valgrind" >&2; exit 1; }
scripts/build.sh stratad ingest_bench query_bench >/dev/null
work=$(mktemp -d)
pid=
trap '[[ -n $pid ]] && kill $pid 2>/dev/null; rm -rf "$work"' EXIT
port=${STRATA_BENCH_PORT:-7898}
serve() {  # STRATAD DATA [wrapper...]: starts it, waits until it serves
  local stratad=$1 data=$2
  shift 2
  "$@" "$stratad" --data-dir "$data" --listen "127.0.0.1:$port" --http-listen 127.0.0.1:0 \
    --pg-listen 127.0.0.1:0 --maintenance-interval-seconds "$interval" 2>"$work/log" &
  pid=$!
  until grep -q "serving on port" "$work/log"; do sleep 0.2; done
}
stop() { kill -INT "$pid"; wait "$pid" || true; pid=; }
# Until the server used under 5 % of a core for two seconds (its idle timers, slow under
# valgrind): what it does after a start (a compaction, a replay) must not be counted as the
# queries'.
wait_idle() {
  local before after
  after=$(awk '{print $14 + $15}' "/proc/$pid/stat")
  until [[ -n ${before:-} ]] && ((after - before < $(getconf CLK_TCK) / 10)); do
    before=$after
    sleep 2
    after=$(awk '{print $14 + $15}' "/proc/$pid/stat")
  done
}

interval=5
serve build/server/stratad "$work/data"
build/bench/ingest_bench --target "127.0.0.1:$port" --hosts 1000 --rows "$rows" --streams 4 |
  sed -n 2p
runs_seen() { grep -c 'tiering "benchmark"."cpu"' "$work/log" || true; }
seen=-1
until [[ $seen == $(runs_seen) ]]; do seen=$(runs_seen); sleep 11; done
stop

interval=86400
for stratad in "$@"; do
  for q in $queries; do
    rm -rf "$work/copy" "$work"/cg.out*
    cp -a "$work/data" "$work/copy"
    serve "$stratad" "$work/copy" valgrind --tool=callgrind --instr-atstart=no \
      --callgrind-out-file="$work/cg.out"
    build/bench/query_bench --target "127.0.0.1:$port" --only "$q" --runs 2 --columnar >/dev/null
    wait_idle
    callgrind_control -i on "$pid" >/dev/null 2>&1
    build/bench/query_bench --target "127.0.0.1:$port" --only "$q" --runs "$runs" --columnar \
      >/dev/null
    callgrind_control -i off "$pid" >/dev/null 2>&1
    stop
    total=$(grep -hE '^(summary|totals):' "$work"/cg.out* | awk '{s += $2} END {print s}')
    printf '%-24s %-22s instructions/query=%d\n' "$(basename "$stratad")" "$q" $((total / runs))
  done
done
