#!/usr/bin/env bash
# Queries through a node that holds every shard, and through one that holds some only
# (docs/cluster.md, "Reads"): the same TSBS-like data (bench/gen_import_file.sh) in a 3-node
# cluster (every node holds every shard) and in a 5-node one (--cluster-nodes: each shard on
# three nodes; node n0 reads the others' shards as fragments), under each read choice
# (docs/cluster.md, "Read choices": leader reads fan out to the shards' leaders, strong and
# follower reads use n0's own replicas where it has them). Prints each query's median time
# through n0 over `runs` runs, the client's round trip included.
# Usage: bench/cluster_reads.sh [rows] [runs]   (READS="leader strong follower" by default;
# NODES="3 5" the cluster sizes; QUERIES=FILE the statements, one a line, instead of the five
# below, e.g. bench/cluster_case_queries.sql)
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${1:-100000} runs=${2:-11} reads=${READS:-leader strong follower}
scripts/build.sh stratad strata >/dev/null
dir=$(mktemp -d)
export STRATA_CLUSTER_DIR=$dir/cluster STRATA_CLUSTER_PORT_BASE=${STRATA_CLUSTER_PORT_BASE:-18000}
trap 'scripts/cluster.sh down >/dev/null 2>&1; rm -rf "$dir"' EXIT
strata() { build/client/strata "$@"; }
bench/gen_import_file.sh "$rows" lp >"$dir/data.lp"
gateway=$((STRATA_CLUSTER_PORT_BASE + 100))
queries=(
  "SELECT count(*) FROM bench.cpu"
  "SELECT host, max(usage_user) FROM bench.cpu GROUP BY host ORDER BY host LIMIT 5"
  "SELECT max(usage_user) FROM bench.cpu WHERE host = 'host_7'"
  "SELECT host, time, usage_user FROM bench.cpu ORDER BY usage_user DESC LIMIT 5"
  "SELECT bin(time, 1h) AS hour, avg(usage_user), max(usage_system) FROM bench.cpu GROUP BY 1 ORDER BY 1"
)
if [ -n "${QUERIES:-}" ]; then mapfile -t queries < <(grep -v '^ *$' "$QUERIES"); fi
for nodes in ${NODES:-3 5}; do
  scripts/cluster.sh up "$nodes" >/dev/null
  strata -p $gateway db create bench >/dev/null
  strata -p $gateway table create bench cpu --memory 24h >/dev/null
  strata -p $gateway import bench cpu "$dir/data.lp" --parallel 4 --progress none >/dev/null
  echo "$nodes nodes ($rows rows; n0 holds $( [ "$nodes" = 3 ] && echo "every shard" || echo "3/5 of the shards")), median ms by --read:"
  for q in "${queries[@]}"; do
    declare -A times=()
    for read in $reads; do strata -p $gateway query --read "$read" "$q" >/dev/null; done  # warm
    # The choices take turns, so a background settle or compaction slows them alike.
    for _ in $(seq "$runs"); do
      for read in $reads; do
        start=$(date +%s%N)
        strata -p $gateway query --read "$read" "$q" >/dev/null
        times[$read]+="$(( ($(date +%s%N) - start) / 1000 )) "
      done
    done
    line=""
    for read in $reads; do
      median=$(printf '%s\n' ${times[$read]} | sort -n | sed -n "$(( (runs + 1) / 2 ))p")
      line+=$(awk -v m="$median" -v r="$read" 'BEGIN { printf "  %s %7.1f", r, m / 1000 }')
    done
    echo "$line  $q"
    unset times
  done
  scripts/cluster.sh purge >/dev/null
done
