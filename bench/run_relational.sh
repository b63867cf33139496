#!/usr/bin/env bash
# Joins, window functions and set operations over TSBS devops data: loads
# ROWS rows (default 1,000,000: 1,000 hosts) into a fresh stratad, then times
# each query with the default per-query memory (256 MiB) and with
# --query-memory-mb MB (default 4096), restarting the server on the same
# data. A query past the limit must end in RESOURCE_EXHAUSTED, never take
# the server down; the server's peak RSS is printed after each run.
# Usage: bench/run_relational.sh [rows] [MB]
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${1:-1000000}
big=${2:-4096}
scripts/build.sh stratad strata ingest_bench >/dev/null
dir=$(mktemp -d)
port=${STRATA_BENCH_PORT:-7893}
pid=
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$dir"' EXIT
start() { # [stratad flags...]
  build/server/stratad --data-dir "$dir/data" --listen "127.0.0.1:$port" --http-listen "" \
    --pg-listen "" --query-timeout-seconds 600 "$@" 2>>"$dir/log" &
  pid=$!
  until grep -q "serving on port" "$dir/log"; do sleep 0.1; done
}
stop() { kill "$pid"; wait "$pid" 2>/dev/null || true; : >"$dir/log"; }
start
build/bench/ingest_bench --target "127.0.0.1:$port" --hosts 1000 --rows "$rows" --streams 4 | sed -n 2p
queries=(
  "join-1Mx1M|SELECT count(*) FROM benchmark.cpu a JOIN benchmark.cpu b ON a.hostname = b.hostname AND a.time = b.time"
  "join-table-to-cte|WITH f AS (SELECT region, avg(usage_user) AS m FROM benchmark.cpu GROUP BY region) SELECT count(*), avg(c.usage_user - f.m) FROM benchmark.cpu c JOIN f ON c.region = f.region"
  "join-dynamic-filter|WITH top AS (SELECT hostname FROM benchmark.cpu GROUP BY hostname ORDER BY max(usage_user) DESC LIMIT 10) SELECT count(*) FROM benchmark.cpu c JOIN top ON c.hostname = top.hostname"
  "window-1M|SELECT max(r), avg(d) FROM (SELECT row_number() OVER (PARTITION BY hostname ORDER BY time) AS r, usage_user - lag(usage_user) OVER (PARTITION BY hostname ORDER BY time) AS d FROM benchmark.cpu)"
  "moving-avg-1M|SELECT max(m) FROM (SELECT avg(usage_user) OVER (PARTITION BY hostname ORDER BY time ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) AS m FROM benchmark.cpu)"
  "union-distinct|SELECT count(*) FROM (SELECT hostname, region FROM benchmark.cpu UNION SELECT hostname, datacenter FROM benchmark.cpu)"
)
run_all() { # label
  for q in "${queries[@]}"; do
    name=${q%%|*} sql=${q#*|}
    start_ns=$(date +%s%N)
    if out=$(build/client/strata -p "$port" --timeout 600 query --format csv "$sql" 2>&1); then
      result=$(echo "$out" | tail -1)
    else
      result="ERROR $(echo "$out" | grep -o 'RESOURCE_EXHAUSTED\|memory[^;]*' | head -1)"
    fi
    ms=$(( ($(date +%s%N) - start_ns) / 1000000 ))
    rss=$(awk '/VmHWM/ {print int($2/1024) " MB"}' /proc/$pid/status)
    echo "$1 $name: ${ms} ms, peak RSS ${rss}: $result"
  done
}
stop
start
run_all "default-limit"
stop
start --query-memory-mb "$big" --query-memory-total-mb "$big"
run_all "limit-${big}MB"
