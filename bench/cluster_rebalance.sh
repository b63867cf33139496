#!/usr/bin/env bash
# A node added under a write load (docs/benchmarks.md, "Cluster: a node added under load"):
# a 3-node cluster on this machine (scripts/cluster.sh) takes TSBS-like MULTI rows from
# bench ingest_bench (4 streams of 100-record requests) twice: once as it is, once while a
# fourth node is added and replicas move to it. Reports each run's write latencies (from
# ingest_bench), how long the moves took, and checks that every acknowledged row reads back
# and that every shard's replicas end with equal applied sequences and digests.
# Usage: bench/cluster_rebalance.sh [rows per run] [hosts]
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${1:-400000} hosts=${2:-1000}
scripts/build.sh stratad strata ingest_bench >/dev/null
dir=$(mktemp -d)
export STRATA_CLUSTER_DIR=$dir/cluster STRATA_CLUSTER_PORT_BASE=${STRATA_CLUSTER_PORT_BASE:-18500}
trap 'scripts/cluster.sh down >/dev/null 2>&1; rm -rf "$dir"' EXIT
strata() { build/client/strata "$@"; }
gateway=$((STRATA_CLUSTER_PORT_BASE + 100))

scripts/cluster.sh up 3 >/dev/null
# The placement becomes per-shard keys in etcd: a node started later holds nothing.
strata -p $gateway cluster rebalance >/dev/null
# "settled" once no shard is moving and the nodes' replica counts are within one.
settled() {
  strata -p $gateway query --format csv \
    "SELECT CASE WHEN max(joining) = 0 AND max(n) - min(n) <= 1 THEN 'settled' ELSE 'moving' END
     FROM (SELECT node_id, count(*) AS n,
                  max(CASE WHEN placement LIKE '%joining%' THEN 1 ELSE 0 END) AS joining
           FROM \"system\".\"cluster_shards\" GROUP BY node_id) AS per_node" | tail -1
}

load() { # database: rows into <database>.cpu through the gateway; prints ingest_bench's report
  build/bench/ingest_bench --target 127.0.0.1:$gateway --database "$1" --table cpu --hosts "$hosts" \
    --rows "$rows" --streams 4 2>&1
}

echo "== run 1: $rows rows, $hosts hosts, no move"
load steady | tee "$dir/steady.txt"

echo "== run 2: $rows rows while node n3 is added"
load moving >"$dir/moving.txt" &
loader=$!
sleep 3
start=$(date +%s.%N)
scripts/cluster.sh add-node >/dev/null 2>&1
# Until the controller planned every move and none is under way (twice in a row: between
# two moves a round may find none under way).
sleep 3
while [ "$(settled)" != settled ]; do sleep 1; done
sleep 2
while [ "$(settled)" != settled ]; do sleep 1; done
moved=$(echo "$(date +%s.%N) - $start" | bc)
wait $loader
cat "$dir/moving.txt"
printf 'moves: done %.1f s after add-node\n' "$moved"
strata -p $gateway query --format csv \
  "SELECT node_id, count(*) AS shards FROM \"system\".\"cluster_shards\" GROUP BY node_id ORDER BY node_id"

# Acknowledged rows read back (a failed request's rows may be partly applied: at least the
# acknowledged ones must be there), through the new node.
failed=$(grep -o 'failed_requests=[0-9]*' "$dir/moving.txt" | cut -d= -f2)
count=$(strata -p $((gateway + 30)) query --format csv "SELECT count(*) FROM moving.cpu" | tail -1)
echo "rows read back through n3: $count (written $rows, failed requests: ${failed:-0})"
[ "$count" -ge $((rows - ${failed:-0} * 100)) ] || { echo "FAIL: acknowledged rows missing" >&2; exit 1; }
# Equal replicas: per shard one applied sequence and one digest (queries wait for the logs).
for k in 0 1 2 3; do strata -p $((gateway + 10 * k)) query "SELECT count(*) FROM moving.cpu" >/dev/null; done
sleep 2
differing=$(strata -p $gateway query --format csv \
  "SELECT shard FROM \"system\".\"cluster_shards\" GROUP BY shard HAVING count(DISTINCT digest) > 1 OR count(DISTINCT applied_sequence) > 1" |
  tail -n +2 | wc -l)
echo "shards whose replicas differ: $differing"
[ "$differing" = 0 ] || exit 1
