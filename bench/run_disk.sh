#!/usr/bin/env bash
# Disk that matches the data: loads ROWS TSBS devops rows (1,000 hosts, 10
# double fields at full precision) into a fresh stratad (or the binary given),
# waits until the tiering job has sealed every hour (closed ones, and the open
# one once no write has touched it for the seal delay, 1 minute here instead
# of the default 10 so the load settles sooner), then prints the data
# directory's size, its SST files' and write-ahead log's, and bytes per point
# (10 points a row). STRATA_DISK_DESCRIBE=1 also prints the table's storage.
# Usage: bench/run_disk.sh [rows] [stratad binary] [ingest_bench options, e.g. --decimals 2]
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${1:-4320000}
stratad=${2:-build/server/stratad}
shift $(($# < 2 ? $# : 2))
scripts/build.sh stratad ingest_bench >/dev/null
dir=$(mktemp -d)
port=${STRATA_BENCH_PORT:-7894}
seal_minutes=1
"$stratad" --data-dir "$dir/data" --listen "127.0.0.1:$port" --maintenance-interval-seconds 5 \
  --seal-after-minutes "$seal_minutes" --http-listen "" --pg-listen "" 2>"$dir/log" &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$dir"' EXIT
until grep -q "serving on port" "$dir/log"; do sleep 0.1; done
build/bench/ingest_bench --target "127.0.0.1:$port" --hosts 1000 --rows "$rows" --streams 4 "$@" | sed -n 2p
# Settled: the open hour has been quiet for the seal delay, and then two
# maintenance runs in a row found nothing to seal.
sleep $((seal_minutes * 60 + 6))
runs() { grep -c 'tiering "benchmark"."cpu"' "$dir/log" || true; }
seen=-1
until [[ $seen == $(runs) ]]; do seen=$(runs); sleep 11; done
sleep 6
[[ -n ${STRATA_DISK_DESCRIBE:-} ]] && { build/client/strata --port "$port" table describe benchmark cpu --storage || true; }
total=$(du -sb "$dir/data" | cut -f1)
wal=$(find "$dir/data" -name '*.log' -printf '%s\n' | awk '{s+=$1} END {print s+0}')
sst=$(find "$dir/data" -name '*.sst' -printf '%s\n' | awk '{s+=$1} END {print s+0}')
points=$((rows * 10))
awk -v t="$total" -v w="$wal" -v s="$sst" -v p="$points" 'BEGIN {
  printf "data dir %.1f MB (%.2f B/point): SST %.1f MB (%.2f B/point), WAL %.1f MB\n",
         t/1e6, t/p, s/1e6, s/p, w/1e6 }'
