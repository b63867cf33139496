#!/usr/bin/env bash
# Times psql's \copy ... FROM of a TSBS-like CSV (time as text, host, region, 10 double measures)
# into a fresh stratad's PostgreSQL port (COPY FROM STDIN), beside `strata import` of the same
# file. The CSV is the import bench's rows, loaded with `strata import` and written back out by
# `\copy (SELECT ...) TO` (so its times are PostgreSQL's text).
# Usage: bench/run_copy_from.sh [rows] [stratad binary]
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${1:-1000000} stratad=${2:-build/server/stratad}
scripts/build.sh stratad strata >/dev/null
dir=$(mktemp -d)
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$dir"' EXIT
port=${STRATA_BENCH_PORT:-7879} pg_port=${STRATA_BENCH_PG_PORT:-7881}
"$stratad" --data-dir "$dir/data" --listen "127.0.0.1:$port" --http-listen 127.0.0.1:0 \
  --pg-listen "127.0.0.1:$pg_port" 2>"$dir/stratad.log" &
pid=$!
strata() { build/client/strata --port "$port" "$@"; }
psql_() { psql -X -q -h 127.0.0.1 -p "$pg_port" -U strata -d bench "$@"; }
for _ in $(seq 50); do strata health >/dev/null 2>&1 && break; sleep 0.1; done
strata db create bench >/dev/null
for t in source copied imported; do strata table create bench "$t" --memory 24h >/dev/null; done

bench/gen_import_file.sh "$rows" csv >"$dir/gen.csv"
strata import bench source "$dir/gen.csv" --progress none >/dev/null
columns="time, host, region, usage_user, usage_system, usage_idle, usage_nice, usage_iowait, \
usage_irq, usage_softirq, usage_steal, usage_guest, usage_guest_nice"
psql_ -c "\\copy (SELECT $columns FROM source) TO '$dir/data.csv' CSV HEADER"
echo "file: $rows rows, $(du -h "$dir/data.csv" | cut -f1)"
cpu() { awk -v hz="$(getconf CLK_TCK)" '{printf "%.2f", ($14 + $15) / hz}' "/proc/$pid/stat"; }
before=$(cpu)
/usr/bin/time -f "COPY FROM STDIN (psql copy): %e s wall, psql %U s user %S s system" \
  psql -X -h 127.0.0.1 -p "$pg_port" -U strata -d bench \
  -c "\\copy copied ($columns) FROM '$dir/data.csv' CSV HEADER"
after=$(cpu)
echo "server CPU: $(awk -v a="$after" -v b="$before" 'BEGIN { printf "%.2f", a - b }') s"
/usr/bin/time -f "strata import: %e s wall, client %U s user %S s system" \
  build/client/strata --port "$port" import bench imported "$dir/data.csv" --progress none \
  --dimensions host,region
echo "server CPU: $(awk -v a="$(cpu)" -v b="$after" 'BEGIN { printf "%.2f", a - b }') s"
psql_ -Atc "SELECT (SELECT count(*) FROM copied), (SELECT count(*) FROM imported)"
