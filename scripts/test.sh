#!/usr/bin/env bash
# Builds everything and runs every test (unit, end-to-end against the real
# stratad on loopback, the CLI, the Python and Node examples, layering).
# Extra arguments go to ctest, e.g. -L unit.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
# The Node example's packages, from the lockfile; its test is skipped without node.
if command -v npm >/dev/null && [ ! -d client/node/node_modules/@grpc/grpc-js ]; then
  (cd client/node && npm ci --no-audit --no-fund --loglevel=error)
fi
cd build
ctest --output-on-failure -j "$(nproc)" "$@"
