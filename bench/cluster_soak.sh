#!/usr/bin/env bash
# The cluster soak (docs/benchmarks.md, not a CI test): CYCLES fault cycles (default 20)
# under a continuous write load on a 3-node cluster of real etcd, NATS and stratad processes:
# every other cycle kills (-9) the node leading a shard, the others a NATS server, each
# restarted after; after every cycle every acknowledged record is read back through another
# node. Prints each cycle, then the records lost (target 0), the failover times and the
# write rate before and after. Usage: bench/cluster_soak.sh [cycles]
# STRATA_SOAK_NODE_FLAGS adds flags to every node, e.g. "--cluster-log-trim-seconds 1
# --cluster-log-keep-entries 20": the logs trimmed so that a killed node comes back behind them
# and its replicas are built again from peers' checkpoints under the load.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh cluster_test stratad >/dev/null
STRATA_SOAK_CYCLES=${1:-20} build/tests/cluster_test --gtest_also_run_disabled_tests \
  --gtest_filter='ClusterSoak.DISABLED_FaultCycles' 2>&1 |
  grep --line-buffered -E '^(cycle|soak|leader|write rate|replicas built|\[ |.*Failure)'
