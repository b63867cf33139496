#!/usr/bin/env bash
# Configures (once) and builds targets into build-fuzz/: clang, every library under
# AddressSanitizer + UBSan with libFuzzer's instrumentation (-DSTRATA_LIBFUZZER=ON), for
# scripts/fuzz.sh's coverage-guided runs and scripts/sanitized_tests.sh's tests and stratad.
# Usage: scripts/build_sanitized.sh target...
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
command -v clang++ >/dev/null || {
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends clang >/dev/null
}
if [ ! -f build-fuzz/build.ninja ]; then
  cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
    -DSTRATA_LIBFUZZER=ON -DSTRATA_BUILD_BENCH=OFF >/dev/null
fi
cmake --build build-fuzz --target "$@"
