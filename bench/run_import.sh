#!/usr/bin/env bash
# Times `strata import` of a TSBS-like CSV (time, host, region, 10 double measures) into a fresh
# stratad: the CLI's parse + batch + parallel-write path end to end.
# Usage: bench/run_import.sh [rows] [format: csv|lp] [parallel]
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${1:-1000000} format=${2:-csv} parallel=${3:-4}
scripts/build.sh stratad strata >/dev/null
dir=$(mktemp -d)
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$dir"' EXIT
port=${STRATA_BENCH_PORT:-7879}
build/server/stratad --data-dir "$dir/data" --listen "127.0.0.1:$port" --http-listen 127.0.0.1:0 --pg-listen 127.0.0.1:0 2>"$dir/stratad.log" &
pid=$!
strata() { build/client/strata --port "$port" "$@"; }
for _ in $(seq 50); do strata health >/dev/null 2>&1 && break; sleep 0.1; done
strata db create bench >/dev/null
strata table create bench cpu --memory 24h >/dev/null

# 1000 hosts, one row per host every 10 s, ending now.
now=$(date +%s)
awk -v rows="$rows" -v now="$now" -v format="$format" 'BEGIN {
  srand(1)
  if (format == "csv") print "time,host,region,usage_user,usage_system,usage_idle,usage_nice,usage_iowait,usage_irq,usage_softirq,usage_steal,usage_guest,usage_guest_nice"
  for (i = 0; i < rows; i++) {
    h = i % 1000; t = now - 86000 + int(i / 1000) * 10 % 86000
    line = ""
    for (f = 0; f < 10; f++) line = line sprintf("%s%.2f", (f ? "," : ""), rand() * 100)
    if (format == "csv") printf "%.0f,host_%d,region_%d,%s\n", t * 1000, h, h % 10, line
    else {
      split(line, v, ",")
      printf "cpu,host=host_%d,region=region_%d usage_user=%s,usage_system=%s,usage_idle=%s,usage_nice=%s,usage_iowait=%s,usage_irq=%s,usage_softirq=%s,usage_steal=%s,usage_guest=%s,usage_guest_nice=%s %.0f000000000\n", h, h % 10, v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], t
    }
  }
}' >"$dir/data.$format"
echo "file: $rows rows, $(du -h "$dir/data.$format" | cut -f1)"
/usr/bin/time -f "client: %e s wall, %U s user, %M KB max RSS" \
  build/client/strata --port "$port" import bench cpu "$dir/data.$format" --parallel "$parallel" \
  --progress none
echo "server RSS: $(($(awk '/VmHWM/{print $2}' /proc/$pid/status) / 1024)) MB peak"
