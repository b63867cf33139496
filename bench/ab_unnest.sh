#!/usr/bin/env bash
# A/B of UNNEST between stratad binaries: about a million output rows from arrays made in the
# statement (no table), each binary on a fresh data directory, the binaries alternating for
# `rounds`; the best of 5 runs a statement, in ms, the client's round trip included.
# Usage: bench/ab_unnest.sh OLD_STRATAD NEW_STRATAD [rounds]
set -euo pipefail
cd "$(dirname "$0")/.."
old=$1 new=$2 rounds=${3:-2}
scripts/build.sh strata >/dev/null
port=${STRATA_BENCH_PORT:-7893}
statements=(
  "SELECT count(*), sum(x) FROM UNNEST(sequence(1, 10000)) AS a(y) CROSS JOIN UNNEST(sequence(1, 100)) AS t(x)"
  "SELECT count(*), sum(k) FROM UNNEST(sequence(1, 1000), sequence(1, 1000)) AS a(x, y) CROSS JOIN UNNEST(sequence(1, 1000)) WITH ORDINALITY AS t(v, k)"
)
# Starts `$1` on a fresh data directory, prints each statement's best of five, and stops it.
run_on() {
  local bin=$1 round=$2 dir pid q best ms start
  dir=$(mktemp -d)
  "$bin" --data-dir "$dir/data" --listen "127.0.0.1:$port" --http-listen 127.0.0.1:0 \
    --pg-listen 127.0.0.1:0 >"$dir/log" 2>&1 &
  pid=$!
  trap 'kill "$pid" 2>/dev/null; rm -rf "$dir"' RETURN
  until build/client/strata -p "$port" health >/dev/null 2>&1; do sleep 0.1; done
  for q in "${statements[@]}"; do
    best=
    for _ in 1 2 3 4 5; do
      start=$(date +%s%N)
      build/client/strata -p "$port" query "$q" >/dev/null
      ms=$((($(date +%s%N) - start) / 1000000))
      if [ -z "$best" ] || [ "$ms" -lt "$best" ]; then best=$ms; fi
    done
    echo "round $round  $bin  ${best} ms  ${q:0:60}..."
  done
}

for round in $(seq "$rounds"); do
  run_on "$old" "$round"
  run_on "$new" "$round"
done
