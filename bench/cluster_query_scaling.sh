#!/usr/bin/env bash
# Query scaling at a CPU quota per node (issue 58; docs/benchmarks.md, "Cluster II: query
# scaling"). The TSBS devops suite (bench/query_bench) over the same data on one stratad and
# on a 3-node cluster (strong scaling), and over three times the data on the 3-node cluster
# (weak scaling), each stratad in a cgroup with a quota of QUOTA CPUs (bench/cgroup_quota.sh;
# NATS and etcd without one). Data: HOSTS hosts × 12 hours at 10 s (TSBS-like rows of 10
# doubles, dimension hostname), loaded without quotas and settled (closed hours sealed into
# blocks) before the quotas are set. Queries go through node n0 (leader reads: each shard's
# leader computes its part); every query type's row count is compared across the runs (the
# data generated to end at one moment, and every run's windows read as of it: --now).
# STRATA_BENCH_PARTITION_KEY=dimension:hostname creates the table with that partition key
# (on every setup), so that a query fixing the host reads one shard.
# STRATA_BENCH_QUOTA_PERIOD_MS=10 holds the quota over 10 ms periods instead of the kernel's
# 100 (bench/cgroup_quota.sh): at 100, a query of a few tens of ms runs at full speed on one
# node whenever the queries before it left quota in the period.
# Each query type runs WARMUP times unmeasured before its RUNS measured runs (query_bench
# --warmup): the first queries after a start or an idle spell fault their memory in again and
# find cold caches (on session 77's VM a page fault cost ~18 µs, and high-cpu-all's first runs
# through a cluster 120-170 ms against 55-85 after), which the steady state of either side does
# not pay. WARMUP 0 measures those first queries too (sessions before 77 did).
# Usage: bench/cluster_query_scaling.sh [hosts] [quota] [runs] [warmup]   e.g. 200 0.5 9 3
set -euo pipefail
cd "$(dirname "$0")/.."
hosts=${1:-200} quota=${2:-0.5} runs=${3:-9} warmup=${4:-3}
scripts/build.sh stratad strata query_bench >/dev/null
dir=$(mktemp -d)
export STRATA_CLUSTER_DIR=$dir/cluster STRATA_CLUSTER_PORT_BASE=${STRATA_CLUSTER_PORT_BASE:-19200}
export STRATA_CLUSTER_NODE_FLAGS="--maintenance-interval-seconds 5"
source bench/cgroup_quota.sh
source bench/cluster_tsbs_data.sh
single=""
cleanup() {
  [ -n "$single" ] && kill "$single" 2>/dev/null
  scripts/cluster.sh down >/dev/null 2>&1 || true
  cg_cleanup
  rm -rf "$dir"
}
trap cleanup EXIT
strata() { build/client/strata "$@"; }

suite() { # port, output file
  build/bench/query_bench --target "127.0.0.1:$1" --runs "$runs" --warmup "$warmup" --columnar \
    --now "$end" >"$2"
}

# CPU ms per query of the node queried and of the other nodes together, each query type on
# its own (query_bench --only; /proc/PID/stat, the runs' warm-up included): on a cluster, the
# coordinator's share beyond its own shards' fragment is its merge.
cpu_by_type() { # port, output file, PID of the node queried, PIDs of the others...
  local port=$1 out=$2 n0=$3 name t0 t1 o0 o1
  shift 3
  local others=("$@")
  for name in $(tail -n +2 "$dir/one.txt" | awk '{print $1}'); do
    t0=$(ticks "$n0") o0=$(ticks "${others[@]}")
    build/bench/query_bench --target "127.0.0.1:$port" --runs "$runs" --columnar --now "$end" \
      --only "$name" >/dev/null
    t1=$(ticks "$n0") o1=$(ticks "${others[@]}")
    echo "$name $(echo "($t1 - $t0) * 1000 / $hz / $runs" | bc -l) $(echo "($o1 - $o0) * 1000 / $hz / $runs" | bc -l)"
  done >"$out"
}
hz=$(getconf CLK_TCK)

end=$(date +%s)
generate "$hosts" "$end" >"$dir/data.lp"
generate $((3 * hosts)) "$end" >"$dir/data3.lp"
echo "data: $hosts hosts × 12 h ($(wc -l <"$dir/data.lp") rows), and $((3 * hosts)) hosts; quota $quota CPU per stratad; $runs runs a query after $warmup unmeasured"

# One stratad.
port=$((STRATA_CLUSTER_PORT_BASE + 900))
start_single $port "$dir" "$dir/data.lp"
cg_quota "$cg_root/single" "$quota"
cg_add "$cg_root/single" "$single"
suite $port "$dir/one.txt"
cpu_by_type $port "$dir/one.txt.cpu" "$single"
kill "$single"; wait "$single" 2>/dev/null || true; single=""

cluster_suite() { # file, output
  rm -rf "$STRATA_CLUSTER_DIR"
  scripts/cluster.sh up 3 >/dev/null
  local gateway=$((STRATA_CLUSTER_PORT_BASE + 100))
  load $gateway "$1"
  settle "$STRATA_CLUSTER_DIR"/node*.log
  await_quiet $(awk '$1 == "node" {print $3}' "$STRATA_CLUSTER_DIR/pids")
  while read -r kind name pid; do
    if [ "$kind" = node ]; then cg_quota "$cg_root/$name" "$quota"; else cg_quota "$cg_root/$name" max; fi
    cg_add "$cg_root/$name" "$pid"
  done <"$STRATA_CLUSTER_DIR/pids"
  suite $gateway "$2"
  cpu_by_type $gateway "$2.cpu" $(awk '$2 == "node0" {print $3}' "$STRATA_CLUSTER_DIR/pids") \
    $(awk '$1 == "node" && $2 != "node0" {print $3}' "$STRATA_CLUSTER_DIR/pids")
  scripts/cluster.sh down >/dev/null
}
cluster_suite "$dir/data.lp" "$dir/three.txt"
cluster_suite "$dir/data3.lp" "$dir/three3x.txt"

echo "| query | 1 node (ms) | 3 nodes, same data (ms) | speed-up | 3 nodes, 3× data (ms) | rows | CPU ms/query: 1 node | 3 nodes: n0 / n1+n2 |"
echo "|---|---|---|---|---|---|---|---|"
join <(tail -n +2 "$dir/one.txt" | awk '{print $1, $2, $5}' | sort) \
  <(tail -n +2 "$dir/three.txt" | awk '{print $1, $2, $5}' | sort) |
  join - <(tail -n +2 "$dir/three3x.txt" | awk '{print $1, $2}' | sort) |
  join - <(sort "$dir/one.txt.cpu" | awk '{print $1, $2}') |
  join - <(sort "$dir/three.txt.cpu") |
  awk '{ same = ($3 == $5) ? $3 : $3 " ≠ " $5
         printf "| %s | %.2f | %.2f | %.2f× | %.2f | %s | %.2f | %.2f / %.2f |\n", $1, $2, $4, $2 / $4, $6, same, $7, $8, $9 }'
