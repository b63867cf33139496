#!/usr/bin/env bash
# Coverage-guided fuzzing with clang's libFuzzer, every library under
# AddressSanitizer + UBSan (ctest runs the same targets with deterministic
# mutation drivers instead). Usage:
#   scripts/fuzz.sh [block|sql|write|ingest|head_log|pg_session|http|cluster_log] [seconds]   (default: block, 60 s)
#   scripts/fuzz.sh [seconds]                     (the block decoder)
# Corpora are kept in build-fuzz/corpus-<target>; the SQL corpus starts from
# every statement of the SQL-logic golden files. A crash leaves its input in
# build-fuzz/ (crash-*), which the ctest driver replays when given it as an
# argument: build/tests/fuzz/sql_fuzz build-fuzz/crash-...
set -euo pipefail
cd "$(dirname "$0")/.."
target=block
if [ $# -gt 0 ] && [[ ! "$1" =~ ^[0-9]+$ ]]; then target=$1; shift; fi
seconds=${1:-60}
case "$target" in block|sql|write|ingest|head_log|pg_session|http|cluster_log) ;; *) echo "fuzz.sh: unknown target $target (block, sql, write, ingest, head_log, pg_session, http, cluster_log)" >&2; exit 2;; esac

scripts/build_sanitized.sh "${target}_libfuzzer"
out=build-fuzz

corpus="$out/corpus-$target"
mkdir -p "$corpus"
if [ "$target" = sql ] && [ -z "$(ls -A "$corpus")" ]; then
  # One file per statement of the golden files (the SQL between a query or
  # error line and its ----).
  awk -v dir="$corpus" '
    /^(query|error)/ { sql = ""; on = 1; next }
    on && /^----$/ { n++; f = sprintf("%s/seed-%05d.sql", dir, n); printf "%s", sql > f; close(f); on = 0; next }
    on { sql = sql $0 "\n" }' tests/sql/*.test
fi
cd "$out"
# -rss_limit_mb: a query may take memory up to its limits, not more. -timeout: a hang, well past
# a query's 2 s limit; under ASan the golden files' largest statements (a 1,000,000-element
# array cast from text) take up to ~9 s of a loaded machine's CPU on their own.
"./tests/fuzz/${target}_libfuzzer" -max_total_time="$seconds" -max_len=8192 -timeout=30 \
  -rss_limit_mb=4096 "corpus-$target"
