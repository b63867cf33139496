#!/usr/bin/env bash
# Coverage-guided fuzzing of the block decoder with clang's libFuzzer (the
# ctest run uses a deterministic mutation driver instead). Usage:
#   scripts/fuzz.sh [seconds]     (default 60; corpus kept in build-fuzz/corpus)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
command -v clang++ >/dev/null || {
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends clang >/dev/null
}
out=build-fuzz
mkdir -p "$out/corpus"
clang++ -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -I. \
  tests/fuzz/block_decoder_fuzz.cc storage/format/*.cc common/coding.cc common/value.cc \
  $(pkg-config --cflags --libs absl_status absl_statusor absl_flat_hash_map fmt) \
  -o "$out/block_decoder_libfuzzer"
"$out/block_decoder_libfuzzer" -max_total_time="${1:-60}" -max_len=4096 "$out/corpus"
