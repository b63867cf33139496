#!/usr/bin/env bash
# Builds everything and runs every test (unit, end-to-end against the real
# stratad on loopback, layering). Extra arguments go to ctest, e.g. -L unit.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
cd build
ctest --output-on-failure -j "$(nproc)" "$@"
