#!/usr/bin/env bash
# Builds everything and runs every test (unit, end-to-end against the real
# stratad on loopback, the CLI, the Python and Node examples, layering).
# Extra arguments go to ctest, e.g. -L unit.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
# Node packages from their lockfiles: the Node example's, and the real ecosystem
# clients the protocol tests drive (InfluxDB's client, node-postgres).
for dir in client/node tests/protocols/node; do
  if [ ! -f "$dir/node_modules/.package-lock.json" ] ||
     [ "$dir/package-lock.json" -nt "$dir/node_modules/.package-lock.json" ]; then
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
  fi
done
cd build
# Three times as many tests as cores: most end-to-end and cluster tests wait on timers and
# sockets, not the CPU (the cluster tests, in three chains, set the pace: tests/CMakeLists.txt).
# On the 2-core machine: 434 s at -j4 with two chains, 401 s at -j6 with three (docs/benchmarks.md).
ctest --output-on-failure -j "$(($(nproc) * 3))" "$@"
