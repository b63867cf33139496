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
for round in $(seq "$rounds"); do
  for bin in "$old" "$new"; do
    dir=$(mktemp -d)
    "$bin" --data-dir "$dir/data" --listen "127.0.0.1:$port" --http-listen 127.0.0.1:0 \
      --pg-listen 127.0.0.1:0 >"$dir/log" 2>&1 &
    pid=$!
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
    kill "$pid"
    wait "$pid" 2>/dev/null || true
    rm -rf "$dir"
  done
done
