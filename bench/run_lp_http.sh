#!/usr/bin/env bash
# Line protocol over HTTP: the same TSBS-like file (1000 hosts, 2 tags, 10 float fields per
# line) loaded into a fresh stratad three ways, fsync durability throughout:
#   1. POST /write in 5000-line requests, 4 in flight (curl, as Telegraf batches);
#   2. `strata import --format lp` (the CLI over gRPC, 4 requests in flight);
#   3. InfluxDB 1.x's own /write with the same requests, when `influxd` is installed
#      (Debian's `influxdb` package; STRATA_BENCH_INSTALL_INFLUXDB=1 installs it).
# STRATA_BENCH_STRATAD names another stratad binary (an older build, to compare); the server's
# CPU per row (user + system, start-up included) follows each of its loads.
# Usage: bench/run_lp_http.sh [rows]
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${1:-1000000}
stratad=${STRATA_BENCH_STRATAD:-build/server/stratad}
scripts/build.sh stratad strata >/dev/null
if ! command -v influxd >/dev/null && [ "${STRATA_BENCH_INSTALL_INFLUXDB:-0}" = 1 ]; then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends influxdb >/dev/null
  $sudo systemctl stop influxdb 2>/dev/null || true
fi
dir=$(mktemp -d)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; rm -rf "$dir"' EXIT

now=$(date +%s)
awk -v rows="$rows" -v now="$now" 'BEGIN {
  srand(1)
  for (i = 0; i < rows; i++) {
    h = i % 1000; t = now - 86000 + int(i / 1000) * 10 % 86000
    printf "cpu,host=host_%d,region=region_%d ", h, h % 10
    for (f = 0; f < 10; f++) printf "%sf%d=%.2f", (f ? "," : ""), f, rand() * 100
    printf " %d\n", t
  }
}' >"$dir/data.lp"
mkdir "$dir/parts"
split -l 5000 -d -a 5 "$dir/data.lp" "$dir/parts/p"
echo "file: $rows lines, $(du -h "$dir/data.lp" | cut -f1), $(ls "$dir/parts" | wc -l) requests of 5000 lines"

# Posts every part to URL, 4 at a time; prints rows/s. Fails on any answer but 204.
post_all() {
  local url=$1 start end
  start=$(date +%s.%N)
  ls "$dir/parts" | xargs -P "${STRATA_BENCH_IN_FLIGHT:-4}" -I{} sh -c \
    'code=$(curl -s -o /dev/null -w "%{http_code}" -XPOST "$1" --data-binary @"$2/parts/{}"); [ "$code" = 204 ] || { echo "HTTP $code for {}" >&2; exit 255; }' \
    _ "$url" "$dir"
  end=$(date +%s.%N)
  awk -v s="$start" -v e="$end" -v n="$rows" 'BEGIN { printf "%.1f s, %.0f rows/s\n", e - s, n / (e - s) }'
}

start_stratad() {  # $1: data dir; sets port, http
  port=$((20000 + RANDOM % 10000))
  "$stratad" --data-dir "$1" --listen "127.0.0.1:$port" --http-listen 127.0.0.1:0 \
    --pg-listen '' 2>"$1.log" &
  pids+=($!)
  for _ in $(seq 100); do
    http=$(grep -o 'HTTP on port [0-9]*' "$1.log" 2>/dev/null | grep -o '[0-9]*$' || true)
    [ -n "$http" ] && build/client/strata --port "$port" health >/dev/null 2>&1 && break
    sleep 0.1
  done
  build/client/strata --port "$port" db create bench >/dev/null
  build/client/strata --port "$port" table create bench cpu --memory 24h >/dev/null
}

server_cpu() {  # the last started stratad's CPU per row so far
  awk -v hz="$(getconf CLK_TCK)" -v r="$rows" \
    '{ printf "  server CPU: %.2f us/row (start-up included)\n", ($14 + $15) / hz * 1e6 / r }' \
    "/proc/${pids[-1]}/stat"
}

start_stratad "$dir/strata-http"
echo -n "stratad POST /write (5000 lines, 4 in flight): "
post_all "http://127.0.0.1:$http/write?db=bench&precision=s"
server_cpu
echo "  stored: $(build/client/strata --port "$port" query 'SELECT count(*) FROM bench.cpu' -f csv | tail -1) rows"

start_stratad "$dir/strata-import"
echo -n "strata import --format lp (4 in flight): "
start=$(date +%s.%N)
build/client/strata --port "$port" import bench cpu "$dir/data.lp" --format lp --time-unit s \
  --parallel 4 --progress none >/dev/null
end=$(date +%s.%N)
awk -v s="$start" -v e="$end" -v n="$rows" 'BEGIN { printf "%.1f s, %.0f rows/s\n", e - s, n / (e - s) }'
server_cpu

if command -v influxd >/dev/null; then
  ip=$((30000 + RANDOM % 10000))
  cat >"$dir/influx.conf" <<CONF
reporting-disabled = true
bind-address = "127.0.0.1:$((ip + 1))"
[meta]
  dir = "$dir/influx/meta"
[data]
  dir = "$dir/influx/data"
  wal-dir = "$dir/influx/wal"
  wal-fsync-delay = "0s"
  query-log-enabled = false
[http]
  bind-address = "127.0.0.1:$ip"
  log-enabled = false
CONF
  influxd -config "$dir/influx.conf" 2>"$dir/influx.log" &
  pids+=($!)
  for _ in $(seq 100); do curl -s "http://127.0.0.1:$ip/ping" >/dev/null && break; sleep 0.1; done
  curl -s -XPOST "http://127.0.0.1:$ip/query" --data-urlencode "q=CREATE DATABASE bench" >/dev/null
  echo -n "influxd $(influxd version 2>/dev/null | head -1 | cut -c1-30) POST /write: "
  post_all "http://127.0.0.1:$ip/write?db=bench&precision=s"
else
  echo "influxd: not installed (STRATA_BENCH_INSTALL_INFLUXDB=1 installs Debian's influxdb)"
fi
