#!/usr/bin/env bash
# Times `strata import` of the same file twice into a fresh stratad, the second
# time after its hours were sealed into blocks: what a user retrying an import
# that failed half-way meets. Every record of the second import is already
# stored (an idempotent retry, accepted without a change), so the server checks
# each against the row in its block. With `new` as the third argument the
# second file has the same series and hours but times shifted by 5 s: late
# writes of new points into sealed hours (a backfill) instead.
# Usage: bench/run_reimport.sh [rows] [parallel] [same|new] [stratad binary]
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${1:-200000} parallel=${2:-4} second=${3:-same} stratad=${4:-build/server/stratad}
scripts/build.sh stratad strata >/dev/null
dir=$(mktemp -d)
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$dir"' EXIT
port=${STRATA_BENCH_PORT:-7882}
"$stratad" --data-dir "$dir/data" --listen "127.0.0.1:$port" --http-listen 127.0.0.1:0 \
  --pg-listen 127.0.0.1:0 --maintenance-interval-seconds 2 2>"$dir/stratad.log" &
pid=$!
strata() { build/client/strata --port "$port" "$@"; }
for _ in $(seq 50); do strata health >/dev/null 2>&1 && break; sleep 0.1; done
strata db create bench >/dev/null
strata table create bench cpu --memory 24h >/dev/null

bench/gen_import_file.sh "$rows" lp >"$dir/first.lp"
if [ "$second" = new ]; then
  # The last field is the time: whole seconds then nine zeros (gen_import_file.sh).
  awk '{ $NF = (substr($NF, 1, length($NF) - 9) + 5) "000000000"; print }' "$dir/first.lp" \
    >"$dir/second.lp"
else
  cp "$dir/first.lp" "$dir/second.lp"
fi
import() {
  /usr/bin/time -f "client: %e s wall, %U s user" build/client/strata --port "$port" import bench cpu \
    "$1" --parallel "$parallel" --progress none
}
import "$dir/first.lp"
sealed() {  # rows the tiering passes have sealed so far
  sed -n 's/.*tiering "bench"."cpu": \([0-9]*\) memory-store rows.*/\1/p' "$dir/stratad.log" |
    awk '{ n += $1 } END { print n + 0 }'
}
for _ in $(seq 600); do [ "$(sealed)" -ge "$rows" ] && break; sleep 0.5; done
if [ "$(sealed)" -lt "$rows" ]; then
  echo "only $(sealed) of $rows rows were sealed within 5 minutes; the server said:" >&2
  tail -5 "$dir/stratad.log" >&2
  exit 1
fi
echo "sealed into blocks: $(sealed) rows"
read -r u0 s0 <<<"$(awk '{print $14, $15}' "/proc/$pid/stat")"
import "$dir/second.lp"
awk -v hz="$(getconf CLK_TCK)" -v r="$rows" -v u0="$u0" -v s0="$s0" \
  '{printf "server CPU for the second import: %.2f us/row\n", ($14 + $15 - u0 - s0) / hz * 1e6 / r}' \
  "/proc/$pid/stat"
strata query "SELECT count(*) AS rows FROM bench.cpu"
