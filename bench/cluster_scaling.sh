#!/usr/bin/env bash
# Write scaling at a CPU quota per node (issue 58; docs/benchmarks.md, "Cluster II: write
# scaling"). This machine has 2 cores, so machines are emulated: each stratad runs in a
# cgroup of its own with a quota of QUOTA CPUs; NATS and etcd in cgroups without a quota, and
# the loaders in none; their CPU is reported to show whether they, not the nodes, were the
# limit. For each node count N: scripts/cluster.sh up N (16 shards, three replicas each: on
# every node when N is 3, on three of the N otherwise), one `strata import` per node of its
# slice of a TSBS-like line-protocol file (1,000 records a request, 4 in flight), all at
# once; then rows/s, CPU µs per row by role, and the model N·QUOTA / (the nodes' CPU per
# row), the rate the nodes' quota allows.
# A quota divides CPU time only: the nodes still share memory bandwidth, caches, the one
# disk (each apply fsyncs) and loopback.
# STRATA_CLUSTER_SHARD_REPLICAS=1: one replica of each shard (RF = 1), placed on the N nodes.
# Needs root and a cgroup cpu controller (bench/cgroup_quota.sh).
# Usage: bench/cluster_scaling.sh [rows] [quota] [node counts...]   e.g. 200000 0.15 3 6
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${1:-200000} quota=${2:-0.15}
shift $(($# < 2 ? $# : 2))
counts=("$@")
[ ${#counts[@]} -gt 0 ] || counts=(3 6)
scripts/build.sh stratad strata >/dev/null
dir=$(mktemp -d)
export STRATA_CLUSTER_DIR=$dir/cluster STRATA_CLUSTER_PORT_BASE=${STRATA_CLUSTER_PORT_BASE:-19000}
hz=$(getconf CLK_TCK)
cpu() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0; }  # ticks
strata() { build/client/strata "$@"; }

source bench/cgroup_quota.sh
cleanup() {
  scripts/cluster.sh down >/dev/null 2>&1 || true
  cg_cleanup
  rm -rf "$dir"
}
trap cleanup EXIT

bench/gen_import_file.sh "$rows" lp >"$dir/data.lp"
echo "file: $rows rows; quota $quota CPU per node; node counts: ${counts[*]}"
echo "| nodes | rows/s | node µs/row | NATS µs/row | etcd µs/row | loaders µs/row | model N·q/node cost (rows/s) | nodes' CPU used of their quota |"
echo "|---|---|---|---|---|---|---|---|"
for n in "${counts[@]}"; do
  rm -rf "$STRATA_CLUSTER_DIR"
  scripts/cluster.sh up "$n" >/dev/null
  declare -A start=() pid_of=()
  while read -r kind name pid; do
    group=$cg_root/$name
    if [ "$kind" = node ]; then cg_quota "$group" "$quota"; else cg_quota "$group" max; fi
    cg_add "$group" "$pid"
    pid_of[$name]=$pid
  done <"$STRATA_CLUSTER_DIR/pids"
  gateway=$((STRATA_CLUSTER_PORT_BASE + 100))
  strata -p $gateway db create bench >/dev/null
  strata -p $gateway table create bench cpu --memory 24h >/dev/null
  # Each node's slice of the file, whole lines.
  split -n "l/$n" -d -a 2 "$dir/data.lp" "$dir/slice."
  for name in "${!pid_of[@]}"; do start[$name]=$(cpu "${pid_of[$name]}"); done
  began=$(date +%s.%N)
  loaders=()
  for ((j = 0; j < n; j++)); do
    (
      build/client/strata -p $((gateway + 10 * j)) import bench cpu \
        "$dir/slice.$(printf %02d $j)" --format lp --parallel 4 --progress none >/dev/null
      times >"$dir/load.$j"  # its second line: the import's user and system time, "0m1.2s 0m0.3s"
    ) &
    loaders+=($!)
  done
  for p in "${loaders[@]}"; do wait "$p"; done
  elapsed=$(echo "$(date +%s.%N) - $began" | bc)
  # Until every replica applied everything (a query on each node waits for it).
  for ((j = 0; j < n; j++)); do strata -p $((gateway + 10 * j)) query "SELECT count(*) FROM bench.cpu" >/dev/null; done
  declare -A role=()
  while read -r kind name pid; do
    role[$kind]=$(( ${role[$kind]:-0} + $(cpu "$pid") - ${start[$name]} ))
  done <"$STRATA_CLUSTER_DIR/pids"
  load_seconds=$(awk 'FNR == 2' "$dir"/load.* | tr 'ms' '  ' |
    awk '{s += $1 * 60 + $2 + $3 * 60 + $4} END {print s}')
  count=$(strata -p $gateway query "SELECT count(*) FROM bench.cpu" --format csv | tail -1)
  [ "$count" = "$rows" ] || echo "warning: $count rows read back of $rows" >&2
  awk -v n="$n" -v t="$elapsed" -v r="$rows" -v hz="$hz" -v q="$quota" \
    -v node="${role[node]}" -v nats="${role[nats]}" -v etcd="${role[etcd]}" -v load="$load_seconds" 'BEGIN {
    us = 1e6 / hz / r
    node_us = node * us
    printf "| %d | %.0f | %.1f | %.1f | %.1f | %.1f | %.0f | %.0f %% |\n", n, r / t, node_us,
      nats * us, etcd * us, load * 1e6 / r, n * q * 1e6 / node_us, 100 * node / hz / t / (n * q) }'
  scripts/cluster.sh down >/dev/null
  for name in "${!pid_of[@]}"; do rmdir "$cg_root/$name" 2>/dev/null || true; done
  unset start pid_of role
  rm -f "$dir"/slice.* "$dir"/load.*
done
