#!/usr/bin/env bash
# Statements whose rows hold long texts: a 1 MB text joined with (or computed for) each of
# 1,000 rows. For each, its time and the server's peak RSS (VmHWM) after it, on a fresh
# stratad at --query-memory-mb MB (default 256). The rows in flight are held to that limit
# (docs/query-engine.md, "Rows in flight"); before, the first statement alone held 1 GB.
# Usage: bench/run_rows_in_flight.sh [MB]
set -euo pipefail
cd "$(dirname "$0")/.."
mb=${1:-256}
scripts/build.sh stratad strata >/dev/null
dir=$(mktemp -d)
port=${STRATA_BENCH_PORT:-7894}
build/server/stratad --data-dir "$dir/data" --listen "127.0.0.1:$port" --http-listen "" \
  --pg-listen "" --query-memory-mb "$mb" 2>>"$dir/log" &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$dir"' EXIT
until grep -q "serving on port" "$dir/log"; do sleep 0.1; done
one="(SELECT lpad('', 1000000, 'x') AS t) CROSS JOIN UNNEST(sequence(1, 1000)) AS u(n)"
texts="(SELECT n, lpad(CAST(n AS varchar), 1000000, 'x') AS t FROM UNNEST(sequence(1, 1000)) AS u(n))"
queries=(
  "one-text-unnested|SELECT count(*), sum(length(t)) FROM $one"
  "one-text-extended|SELECT max(length(t || CAST(n AS varchar))) FROM $one"
  "a-text-per-row|SELECT count(*), max(length(t)) FROM $texts"
  "filtered-on-a-longer-text|SELECT count(*), min(length(t)) FROM $texts WHERE length(lpad(t, 1000001, 'y')) > 0"
  "joined|SELECT count(*), sum(length(a.t)) FROM $texts a JOIN $texts b ON a.n = b.n + 1 AND b.n < 300"
)
echo "query-memory-mb $mb; stratad's RSS at start: $(awk '/VmHWM/ {print $2 / 1024 " MB"}' /proc/$pid/status)"
for q in "${queries[@]}"; do
  name=${q%%|*} sql=${q#*|}
  start_ns=$(date +%s%N)
  out=$(build/client/strata -p "$port" query --format csv "$sql" 2>&1 | tail -1) || true
  ms=$(( ($(date +%s%N) - start_ns) / 1000000 ))
  echo "$name: ${ms} ms, answer $out, peak RSS $(awk '/VmHWM/ {print $2 / 1024 " MB"}' /proc/$pid/status)"
done
