#!/usr/bin/env bash
# A/B of SQL beyond TSBS between stratad binaries: the queries a dashboard user types (DISTINCT
# for a variable, a regexp on a dimension, a date_trunc grouping) and window functions (lag,
# rank, moving averages and maxima) over ROWS TSBS-like rows (1,000 hosts, 10 doubles) in the
# memory head. One data directory is loaded once; the binaries then take turns serving it for
# `rounds`, each statement the best of 5, in ms as `strata query --stats` reports it (the
# query's round trip, without the CLI's own start, ~50 ms on these VMs).
# Usage: bench/ab_sql_queries.sh OLD_STRATAD NEW_STRATAD [rounds] [rows]
# AB_SQL_FILE=path runs that file's statements (one a line) instead of these.
set -euo pipefail
cd "$(dirname "$0")/.."
old=$1 new=$2 rounds=${3:-2} rows=${4:-1000000}
scripts/build.sh strata >/dev/null
port=${STRATA_BENCH_PORT:-7894}
statements=(
  "SELECT DISTINCT host FROM bench.cpu"
  "SELECT count(*) FROM bench.cpu WHERE regexp_like(host, 'host_1[0-9]+\$')"
  "SELECT date_trunc('minute', time) AS m, max(usage_user) FROM bench.cpu GROUP BY 1 ORDER BY 1 DESC LIMIT 3"
  "SELECT max(d) FROM (SELECT usage_user - lag(usage_user) OVER (PARTITION BY host ORDER BY time) d FROM bench.cpu)"
  "SELECT max(r) FROM (SELECT rank() OVER (PARTITION BY region ORDER BY usage_user DESC) r FROM bench.cpu)"
  "SELECT max(m) FROM (SELECT avg(usage_user) OVER (PARTITION BY host ORDER BY time ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) m FROM bench.cpu)"
  "SELECT max(m) FROM (SELECT avg(usage_user) OVER (PARTITION BY host ORDER BY time ROWS BETWEEN 59 PRECEDING AND CURRENT ROW) m FROM bench.cpu)"
  "SELECT max(m) FROM (SELECT max(usage_user) OVER (PARTITION BY host ORDER BY time ROWS BETWEEN 59 PRECEDING AND CURRENT ROW) m FROM bench.cpu)"
  "SELECT max(s) FROM (SELECT sum(usage_user) OVER (PARTITION BY host ORDER BY time) s FROM bench.cpu)"
)
if [ -n "${AB_SQL_FILE:-}" ]; then
  mapfile -t statements <"$AB_SQL_FILE"
fi
dir=$(mktemp -d)
pid=
stop() {
  if [ -n "$pid" ]; then
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    pid=
  fi
}
trap 'stop; rm -rf "$dir"' EXIT
strata() { build/client/strata --port "$port" "$@"; }
# Starts `$1` on the shared data directory and waits until it answers.
serve() {
  "$1" --data-dir "$dir/data" --listen "127.0.0.1:$port" --http-listen 127.0.0.1:0 \
    --pg-listen 127.0.0.1:0 --seal-after-minutes 100000 --memory-store-budget-mb 4000 \
    >>"$dir/log" 2>&1 &
  pid=$!
  until strata health >/dev/null 2>&1; do
    kill -0 "$pid" 2>/dev/null || { tail "$dir/log"; exit 1; }
    sleep 0.1
  done
}

serve "$old"
strata db create bench >/dev/null
strata table create bench cpu --memory 2d >/dev/null
bench/gen_import_file.sh "$rows" lp >"$dir/data.lp"
strata import bench cpu "$dir/data.lp" --parallel 16 --progress none >/dev/null
stop
for round in $(seq "$rounds"); do
  for bin in "$old" "$new"; do
    serve "$bin"
    for q in "${statements[@]}"; do
      best=
      for _ in 1 2 3 4 5; do
        ms=$(strata query --stats "$q" 2>&1 >/dev/null | sed -n 's/.* in \([0-9.]*\) ms.*/\1/p')
        best=$(awk -v a="$best" -v b="$ms" 'BEGIN { print (a == "" || b + 0 < a + 0) ? b : a }')
      done
      printf 'round %s  %-28s %6s ms  %s\n' "$round" "$(basename "$bin")" "$best" "${q:0:90}"
    done
    stop
  done
done
