#!/usr/bin/env bash
# The cost of a cluster write per row (docs/benchmarks.md): `strata import` of a TSBS-like
# line-protocol file (1000 hosts, 10 doubles a row) into a single stratad, then through one
# node of a 3-node cluster (scripts/cluster.sh: 3 etcd, 3 NATS, 3 stratad on this machine),
# with the CPU each process spent (/proc/PID/stat) per row, by role: the node the client
# talks to (gateway), the other nodes (replicas; each also leads a third of the shards),
# NATS, etcd. STRATA_CLUSTER_TLS=1: the cluster with TLS on every connection.
# Usage: bench/cluster_load.sh [rows] [parallel] [records per request, default 1000]
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${1:-200000} parallel=${2:-4} batch=${3:-1000}
scripts/build.sh stratad strata >/dev/null
dir=$(mktemp -d)
export STRATA_CLUSTER_DIR=$dir/cluster STRATA_CLUSTER_PORT_BASE=${STRATA_CLUSTER_PORT_BASE:-18000}
single=""
trap '[ -n "$single" ] && kill $single 2>/dev/null; scripts/cluster.sh down >/dev/null 2>&1; rm -rf "$dir"' EXIT
hz=$(getconf CLK_TCK)
cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }  # ticks
strata() { build/client/strata "$@"; }

bench/gen_import_file.sh "$rows" lp >"$dir/data.lp"
echo "file: $rows rows, $(du -h "$dir/data.lp" | cut -f1); $parallel requests in flight, $batch records each"

port=$((STRATA_CLUSTER_PORT_BASE + 900))
build/server/stratad --data-dir "$dir/single" --listen "127.0.0.1:$port" --http-listen '' \
  --pg-listen '' 2>"$dir/single.log" &
single=$!
for _ in $(seq 50); do strata -p $port health >/dev/null 2>&1 && break; sleep 0.1; done
strata -p $port db create bench >/dev/null
strata -p $port table create bench cpu --memory 24h >/dev/null
before=$(cpu $single)
start=$(date +%s.%N)
strata -p $port import bench cpu "$dir/data.lp" --parallel "$parallel" --batch-size "$batch" --progress none >/dev/null
elapsed=$(echo "$(date +%s.%N) - $start" | bc)
awk -v t="$elapsed" -v r="$rows" -v c=$(( $(cpu $single) - before )) -v hz="$hz" 'BEGIN {
  printf "single node: %.1f s, %.0f rows/s; stratad %.2f us CPU/row\n", t, r / t, c / hz * 1e6 / r }'
kill $single; wait $single 2>/dev/null || true; single=""

scripts/cluster.sh up 3 >/dev/null
secured=""
if [ "${STRATA_CLUSTER_TLS:-0}" = 1 ]; then  # every connection over TLS: the CLI too
  export STRATA_TLS_CA=$STRATA_CLUSTER_DIR/tls/ca.pem
  STRATA_TOKEN=$(cat "$STRATA_CLUSTER_DIR/admin.token") && export STRATA_TOKEN
  secured=", TLS everywhere"
fi
gateway=$((STRATA_CLUSTER_PORT_BASE + 100))
strata -p $gateway db create bench >/dev/null
strata -p $gateway table create bench cpu --memory 24h >/dev/null
declare -A start_cpu
while read -r kind name pid; do start_cpu[$name]=$(cpu "$pid"); done <"$dir/cluster/pids"
start=$(date +%s.%N)
strata -p $gateway import bench cpu "$dir/data.lp" --parallel "$parallel" --batch-size "$batch" --progress none >/dev/null
elapsed=$(echo "$(date +%s.%N) - $start" | bc)
# Until every replica applied everything (a query on each waits for it).
for k in 0 1 2; do strata -p $((gateway + 10 * k)) query "SELECT count(*) FROM bench.cpu" >/dev/null; done
declare -A role_ticks
while read -r kind name pid; do
  role=$kind
  [ "$name" = node0 ] && role="gateway node"
  [ "$kind" = node ] && [ "$name" != node0 ] && role="other nodes"
  role_ticks[$role]=$(( ${role_ticks[$role]:-0} + $(cpu "$pid") - ${start_cpu[$name]} ))
done <"$dir/cluster/pids"
count=$(strata -p $((gateway + 20)) query "SELECT count(*) FROM bench.cpu" --format csv | tail -1)
awk -v t="$elapsed" -v r="$rows" -v s="$secured" 'BEGIN { printf "cluster (3 nodes, 16 shards%s): %.1f s, %.0f rows/s\n", s, t, r / t }'
total=0
for role in "gateway node" "other nodes" nats etcd; do
  ticks=${role_ticks[$role]:-0}
  total=$((total + ticks))
  awk -v c="$ticks" -v r="$rows" -v hz="$hz" -v role="$role" 'BEGIN {
    printf "  %-13s %.2f us CPU/row\n", role, c / hz * 1e6 / r }'
done
awk -v c="$total" -v r="$rows" -v hz="$hz" 'BEGIN { printf "  %-13s %.2f us CPU/row\n", "all", c / hz * 1e6 / r }'
echo "rows read back through node n2: $count"
