#!/usr/bin/env bash
# A/B of two stratad binaries on a throttled 3-node cluster (issue 58; docs/benchmarks.md): the
# TSBS-like data of cluster_query_scaling.sh (HOSTS hosts × 12 h) loaded and settled once with
# OLD, then ROUNDS rounds, each restarting the cluster on the same data with OLD and then with
# NEW (etcd and NATS too), every stratad under QUOTA CPUs (bench/cgroup_quota.sh), and running
# query type TYPE RUNS times through node n0, after RUNS unmeasured runs. Prints, per round and binary, query_bench's
# median ms and the CPU ms a query of n0 and of n1 + n2 (/proc/PID/stat, the warm-up included).
# Both binaries must read the same data directory (no block format change between them).
# STRATA_BENCH_PARTITION_KEY and STRATA_BENCH_QUOTA_PERIOD_MS as for cluster_query_scaling.sh.
# Usage: bench/cluster_ab.sh OLD_STRATAD NEW_STRATAD [hosts] [quota] [rounds] [type] [runs]
#        e.g. bench/cluster_ab.sh /tmp/stratad.old build/server/stratad 200 0.5 4 high-cpu-all 15
set -euo pipefail
cd "$(dirname "$0")/.."
old=$(realpath "$1") new=$(realpath "$2")
hosts=${3:-200} quota=${4:-0.5} rounds=${5:-4} type=${6:-high-cpu-all} runs=${7:-15}
scripts/build.sh strata query_bench >/dev/null
dir=$(mktemp -d)
export STRATA_CLUSTER_DIR=$dir/cluster STRATA_CLUSTER_PORT_BASE=${STRATA_CLUSTER_PORT_BASE:-19200}
export STRATA_CLUSTER_NODE_FLAGS="--maintenance-interval-seconds 5"
source bench/cgroup_quota.sh
source bench/cluster_tsbs_data.sh
cleanup() {
  scripts/cluster.sh down >/dev/null 2>&1 || true
  cg_cleanup
  rm -rf "$dir"
}
trap cleanup EXIT
strata() { build/client/strata "$@"; }
gateway=$((STRATA_CLUSTER_PORT_BASE + 100))
hz=$(getconf CLK_TCK)
node_pids() { awk '$1 == "node" {print $3}' "$STRATA_CLUSTER_DIR/pids"; }
pid_of() { awk -v n="$1" '$2 == n {print $3}' "$STRATA_CLUSTER_DIR/pids"; }

up() { # binary
  STRATAD=$1 scripts/cluster.sh up 3 >/dev/null
  await_spread_leads $gateway
}

generate "$hosts" >"$dir/data.lp"
up "$old"
load $gateway "$dir/data.lp"
settle "$STRATA_CLUSTER_DIR"/node*.log
await_quiet $(node_pids)
scripts/cluster.sh down >/dev/null
echo "$(wc -l <"$dir/data.lp") rows, $type × $runs, quota $quota CPU a node"
echo "round binary median_ms cpu_ms_n0 cpu_ms_n1+n2"
for round in $(seq "$rounds"); do
  for label in old new; do
    bin=$old
    [ "$label" = new ] && bin=$new
    up "$bin"
    await_quiet $(node_pids)
    while read -r kind name pid; do
      if [ "$kind" = node ]; then cg_quota "$cg_root/$name" "$quota"; else cg_quota "$cg_root/$name" max; fi
      cg_add "$cg_root/$name" "$pid"
    done <"$STRATA_CLUSTER_DIR/pids"
    # Warm first (unmeasured): a new process's first queries fault in the memory later ones
    # reuse.
    build/bench/query_bench --target "127.0.0.1:$gateway" --runs "$runs" --columnar \
      --only "$type" >/dev/null
    n0=$(pid_of node0)
    others=$(awk '$1 == "node" && $2 != "node0" {print $3}' "$STRATA_CLUSTER_DIR/pids")
    t0=$(ticks "$n0") o0=$(ticks $others)
    median=$(build/bench/query_bench --target "127.0.0.1:$gateway" --runs "$runs" --columnar \
      --only "$type" | awk 'NR == 2 {print $2}')
    t1=$(ticks "$n0") o1=$(ticks $others)
    echo "$round $label $median" \
      "$(echo "($t1 - $t0) * 1000 / $hz / $runs" | bc -l | xargs printf '%.1f')" \
      "$(echo "($o1 - $o0) * 1000 / $hz / $runs" | bc -l | xargs printf '%.1f')"
    scripts/cluster.sh down >/dev/null
  done
done
