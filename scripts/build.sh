#!/usr/bin/env bash
# Configures (once) and builds Strata into build/. Usage: scripts/build.sh [target...]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
if [ ! -f build/build.ninja ]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
cmake --build build -j "$(nproc)" ${1:+--target "$@"}
