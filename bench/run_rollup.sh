#!/usr/bin/env bash
# The cost of a per-minute rollup while ingest runs at full speed
# (docs/benchmarks.md, "Scheduled queries"): on one fresh stratad, the ingest
# benchmark (1,000 hosts, 100-record MULTI requests, fsync) into a table
# without any scheduled query, then into another table that a rate(1 minute)
# scheduled query rolls up (min/max/avg/count of usage_user per host per
# minute over the newest 10 simulated minutes the table holds: ~60k rows
# read, ~10k records written per run), then without again (the spread of the
# two baselines is the noise), and the runs' own figures from
# system.scheduled_query_runs.
# Usage: bench/run_rollup.sh [rows per ingest run, default 9000000]
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${1:-9000000}
scripts/build.sh stratad strata ingest_bench >/dev/null
dir=$(mktemp -d)
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$dir"' EXIT
port=${STRATA_BENCH_PORT:-7881}
build/server/stratad --data-dir "$dir/data" --listen "127.0.0.1:$port" --http-listen "" \
  --pg-listen "" 2>"$dir/stratad.log" &
pid=$!
sleep 1
cli() { build/client/strata -p "$port" "$@"; }
ingest() { build/bench/ingest_bench --target "127.0.0.1:$port" --server-pid "$pid" --hosts 1000 "$@"; }

echo "== ingest without a scheduled query"
ingest --rows "$rows" --table plain
echo "== ingest with a rate(1 minute) rollup of the table being written"
ingest --rows 1000 --table cpu >/dev/null  # the table and its columns exist before the rollup plans
cli table create benchmark cpu_1m >/dev/null
cli scheduled-query create cpu_1m --schedule 'rate(1 minute)' \
  --query "SELECT hostname, bin(time, 1m) AS minute, min(usage_user) AS min_user,
             max(usage_user) AS max_user, avg(usage_user) AS avg_user, count(*) AS samples
           FROM benchmark.cpu
           WHERE time > (SELECT max(time) FROM benchmark.cpu) - 10m AND time < @scheduled_runtime
           GROUP BY hostname, bin(time, 1m)" \
  --database benchmark --table cpu_1m --time-column minute --dimension hostname \
  --measure-name usage_1m --measure min_user:double --measure max_user:double \
  --measure avg_user:double --measure samples:bigint
ingest --rows "$rows" --table cpu
echo "== ingest without a scheduled query, again"
cli scheduled-query disable cpu_1m >/dev/null
ingest --rows "$rows" --table plain2
echo "== the rollup's runs during the second ingest"
cli query "SELECT invocation_time, status, execution_millis, query_result_rows, records_ingested,
                  bytes_scanned FROM system.scheduled_query_runs ORDER BY invocation_time" -f csv
