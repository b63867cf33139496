#!/usr/bin/env bash
# The end-to-end and cluster tests against a stratad built with clang's AddressSanitizer and
# UBSan (the fuzzers' build directory, build-fuzz: scripts/build_sanitized.sh), so that a use
# after free, an overflow or undefined behaviour anywhere a test's calls reach in the server
# (the gRPC calls' lifetimes on the completion queues, the PostgreSQL and HTTP doors, a cluster
# node's internal service) stops that server with a report instead of passing unseen. The
# tests themselves are build/'s (scripts/build.sh), told the other binary by STRATA_TEST_STRATAD.
# Reports go to build/sanitizer-reports/ (each server's own file); the script fails if any
# server wrote one. Slower than the plain run (~2× a server's CPU): a test that waits on a
# server's timing may fail on it alone; its log says so.
# Usage: scripts/sanitized_e2e.sh [ctest arguments, e.g. -R PgWire]   (default: -L 'e2e|cluster')
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
scripts/build_sanitized.sh stratad
reports=$PWD/build/sanitizer-reports
rm -rf "$reports"
mkdir -p "$reports"
# Leaks are not checked: a server stopped by a signal leaves gRPC's and RocksDB's process-wide
# objects behind on purpose.
export STRATA_TEST_STRATAD=$PWD/build-fuzz/server/stratad
export ASAN_OPTIONS=detect_leaks=0:log_path=$reports/asan
export UBSAN_OPTIONS=print_stacktrace=1:log_path=$reports/ubsan
# Left out by default, as the sanitizers change what they measure, not what they guard: the
# peak-RSS bounds (ASan's shadow memory and its quarantine of freed blocks: a million rows
# through a psycopg cursor, the gzip bomb, gigabytes of text under a 16 MiB limit, which also
# outlasts its timeout), and hostile_input.test's nesting errors (ASan's larger frames meet
# the stack guard first: "nests expressions too deeply for the server's stack", as meant).
args=("$@")
[ $# -gt 0 ] || args=(-L 'e2e|cluster' -E 'BoundedMemory|BoundedWithOne|HeldToTheQueryMemoryLimit|hostile_input')
status=0
(cd build && ctest --output-on-failure -j "$(($(nproc) * 2))" "${args[@]}") || status=$?
if compgen -G "$reports/*" >/dev/null; then
  echo "sanitizer reports (build/sanitizer-reports/):" >&2
  head -n 40 "$reports"/* >&2
  exit 1
fi
exit "$status"
