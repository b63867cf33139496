#!/usr/bin/env bash
# Configures (once) and builds Strata into build/. Usage: scripts/build.sh [target...]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
# The web console's bundle first: stratad embeds it (server/CMakeLists.txt).
scripts/build_console.sh
# ccache: paths relative to this checkout and the working directory left out of the hash, so a
# fresh clone in another folder (CI's) reuses what any checkout on this machine compiled.
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
if [ ! -f build/build.ninja ]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
cmake --build build -j "$(nproc)" ${1:+--target "$@"}
