#!/usr/bin/env bash
# Small queries through a cluster node that holds every shard (issue 58's "small queries within
# 1.5× of one node"; docs/cluster.md, "A small leader read"): the TSBS suite's small query
# types (bench/query_bench) on one stratad, and on a 3-node cluster holding the same data
# restarted in turns with `--small-read-rows 0` (every leader read fans out to the shards'
# leaders) and with the default (a small one is read on the node's own replicas, confirmed
# against the leaders). No CPU quotas. Prints each type's median ms through n0 (the client's
# round trip included) and the CPU ms a query of all three nodes together. Each run reads
# another host (query_bench --hosts), as TSBS picks them: on the cluster a one-host query's
# shard is led by the node served through for about a third of them.
# STRATA_BENCH_PARTITION_KEY=dimension:hostname as in cluster_query_scaling.sh.
# Usage: bench/cluster_small_reads.sh [hosts] [runs] [rounds]   e.g. 200 200 2
set -euo pipefail
cd "$(dirname "$0")/.."
hosts=${1:-200} runs=${2:-200} rounds=${3:-2}
types=${TYPES:-single-groupby-1-1-1 single-groupby-1-8-1 single-groupby-5-1-12 cpu-max-all-1 cpu-max-all-8 high-cpu-1 lastpoint groupby-orderby-limit}
scripts/build.sh stratad strata query_bench >/dev/null
dir=$(mktemp -d)
export STRATA_CLUSTER_DIR=$dir/cluster STRATA_CLUSTER_PORT_BASE=${STRATA_CLUSTER_PORT_BASE:-19200}
source bench/cluster_tsbs_data.sh
single=""
cleanup() {
  if [ -n "$single" ] && ! kill -0 "$single" 2>/dev/null; then
    echo "the single stratad stopped; its log ends:" >&2
    tail -5 "$dir/single.log" >&2
  fi
  [ -n "$single" ] && kill "$single" 2>/dev/null
  scripts/cluster.sh down >/dev/null 2>&1 || true
  rm -rf "$dir"
}
trap cleanup EXIT
strata() { build/client/strata "$@"; }
hz=$(getconf CLK_TCK)

# Each type's median ms and CPU ms a query of PIDS, appended to FILE as `type median cpu rows`.
measure() { # port, file, pids...
  local port=$1 out=$2 t line t0 t1
  shift 2
  for t in $types; do
    build/bench/query_bench --target "127.0.0.1:$port" --runs 5 --columnar --only "$t" \
      --hosts "$hosts" >/dev/null
    t0=$(ticks "$@")
    line=$(build/bench/query_bench --target "127.0.0.1:$port" --runs "$runs" --columnar --only "$t" \
      --hosts "$hosts" | tail -1)
    t1=$(ticks "$@")
    echo "$t $(echo "$line" | awk '{print $2}') $(echo "($t1 - $t0) * 1000 / $hz / $runs" | bc -l) $(echo "$line" | awk '{print $6}')" >>"$out"
  done
}

generate "$hosts" >"$dir/data.lp"
echo "data: $hosts hosts × 12 h ($(wc -l <"$dir/data.lp") rows); $runs runs a type, $rounds rounds"

port=$((STRATA_CLUSTER_PORT_BASE + 900))
start_single $port "$dir" "$dir/data.lp"

gateway=$((STRATA_CLUSTER_PORT_BASE + 100))
STRATA_CLUSTER_NODE_FLAGS="--maintenance-interval-seconds 5" scripts/cluster.sh up 3 >/dev/null
load $gateway "$dir/data.lp"
settle "$STRATA_CLUSTER_DIR"/node*.log
await_quiet $(awk '$1 == "node" {print $3}' "$STRATA_CLUSTER_DIR/pids")
for round in $(seq "$rounds"); do
  measure $port "$dir/one.txt" "$single"
  for rows in 0 10000; do
    scripts/cluster.sh down >/dev/null
    STRATA_CLUSTER_NODE_FLAGS="--maintenance-interval-seconds 5 --small-read-rows $rows" \
      scripts/cluster.sh up 3 >/dev/null
    await_spread_leads $gateway
    measure $gateway "$dir/small$rows.txt" $(awk '$1 == "node" {print $3}' "$STRATA_CLUSTER_DIR/pids")
    # n0's small reads: confirmed, read again (a replica behind), and the calls they made.
    [ "$rows" = 0 ] || curl -s "http://127.0.0.1:$((gateway + 1))/metrics" |
      awk -v round="$round" '/^strata_local_leader_read/ { n = n " " $1 "=" $2 }
        END { print "round " round " n0:" n }' >&2
  done
done

# Each round's figures, side by side.
summary() { awk '{ ms[$1] = ms[$1] (ms[$1] ? "/" : "") sprintf("%.2f", $2)
                   cpu[$1] = cpu[$1] (cpu[$1] ? "/" : "") sprintf("%.2f", $3); rows[$1] = $4 }
  END { for (t in ms) print t, ms[t], cpu[t], rows[t] }' "$1" | sort; }
echo "| query | 1 node: ms; CPU ms | 3 nodes, fanned out | 3 nodes, small reads here | rows scanned |"
echo "|---|---|---|---|---|"
join <(summary "$dir/one.txt") <(summary "$dir/small0.txt") | join - <(summary "$dir/small10000.txt") |
  awk '{ printf "| %s | %s; %s | %s; %s | %s; %s | %s |\n", $1, $2, $3, $5, $6, $8, $9, $4 }'
