#!/usr/bin/env bash
# The tests under clang's AddressSanitizer and UBSan, so that a use after free, an overflow or
# undefined behaviour anywhere the tests reach stops with a report instead of passing unseen:
#   unit  every module's unit-test binary built in the sanitizers' build directory (build-fuzz:
#         scripts/build_sanitized.sh) and run there;
#   e2e   build/'s end-to-end and cluster tests against a stratad built there (the gRPC calls'
#         lifetimes on the completion queues, the PostgreSQL and HTTP doors, a cluster node's
#         internal service and its stop), told the other binary by STRATA_TEST_STRATAD.
# Each process's report goes to build/sanitizer-reports/; the script fails if any was written,
# even when its test passed (a server that aborts at its stop after the test's checks).
# Usage: scripts/sanitized_tests.sh [unit|e2e] [ctest arguments, e.g. -R PgWire]   (both
# without a mode; the arguments replace the default selection below)
set -euo pipefail
cd "$(dirname "$0")/.."
mode=all
case "${1:-}" in unit | e2e) mode=$1; shift ;; esac
reports=$PWD/build/sanitizer-reports
rm -rf "$reports"
mkdir -p "$reports"
# Leaks are not checked: a stratad, even one stopped gracefully (as the harness now stops each
# at a test's end), leaves gRPC's and RocksDB's process-wide objects behind on purpose.
export ASAN_OPTIONS=detect_leaks=0:log_path=$reports/asan
export UBSAN_OPTIONS=print_stacktrace=1:log_path=$reports/ubsan
jobs=$(($(nproc) * 2))
status=0

if [ "$mode" != e2e ]; then
  scripts/build_sanitized.sh strata_unit_tests
  # Left out: the checks of stack room (ASan's larger frames meet the guard sooner, as meant:
  # "nests expressions too deeply for the server's stack"), and the install test, which needs
  # build/'s binaries.
  args=("$@")
  [ $# -gt 0 ] || args=(-L unit -E 'StackBytesLeft|ParserStack|hostile_input|^install$')
  (cd build-fuzz && ctest --output-on-failure -j "$jobs" "${args[@]}") || status=$?
fi

if [ "$mode" != unit ]; then
  scripts/build.sh
  scripts/build_sanitized.sh stratad
  export STRATA_TEST_STRATAD=$PWD/build-fuzz/server/stratad
  # Left out: the peak-RSS bounds (ASan's shadow memory and its quarantine of freed blocks: a
  # million rows through a psycopg cursor, the gzip bomb, gigabytes of text under a 16 MiB
  # limit, which also outlasts its timeout), and hostile_input.test's nesting errors (the stack
  # guard again). A test that waits on a server's timing may fail on ASan's slowness alone
  # (~2× a server's CPU); its log says so.
  args=("$@")
  [ $# -gt 0 ] ||
    args=(-L 'e2e|cluster' -E 'BoundedMemory|BoundedWithOne|HeldToTheQueryMemoryLimit|hostile_input')
  (cd build && ctest --output-on-failure -j "$jobs" "${args[@]}") || status=$?
fi

if compgen -G "$reports/*" >/dev/null; then
  echo "sanitizer reports (build/sanitizer-reports/):" >&2
  head -n 40 "$reports"/* >&2
  exit 1
fi
exit "$status"
