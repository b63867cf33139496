#!/usr/bin/env bash
# The dependency arrows of docs/architecture.md, checked two ways:
#  1. the per-module include roots make a wrong-way project include fail to
#     compile (proved here by preprocessing probes against them: whether an
#     include resolves is the preprocessor's question, and it answers in a
#     tenth of the time a syntax check takes);
#  2. system headers (gRPC, RocksDB, generated proto) cannot be hidden by
#     include roots, so their use in the wrong folder is caught by grep.
set -u
src=$1 layers=$2 cxx=$3
failed=0
probe=$(mktemp --suffix=.cc)
trap 'rm -f "$probe"' EXIT

expect_compile() { # layer, header, should-compile (yes/no)
  echo "#include \"$2\"" >"$probe"
  if "$cxx" -std=c++20 -E -o /dev/null -I"$layers/$1" "$probe" 2>/dev/null; then got=yes; else got=no; fi
  if [ "$got" != "$3" ]; then
    echo "FAIL: in $1, #include \"$2\" compiled=$got, expected $3"
    failed=1
  fi
}
expect_compile strata_storage common/clock.h yes
expect_compile strata_storage storage/kv/keys.h yes
expect_compile strata_storage server/ops/config.h no
expect_compile strata_common common/clock.h yes
expect_compile strata_common storage/kv/keys.h no
expect_compile strata_rpc rpc/call_queues.h yes
expect_compile strata_rpc storage/kv/keys.h no
expect_compile strata_storage rpc/call_queues.h no
expect_compile strata_query rpc/call_queues.h no
expect_compile strata_cluster rpc/streaming_call.h yes
expect_compile strata_server_grpc rpc/unary_calls.h yes
expect_compile strata_server_runner rpc/call_queues.h no
expect_compile strata_client client/exit_code.h yes
expect_compile strata_client storage/engine.h no
expect_compile strata_client query/engine.h no
# The rooms of storage/ (storage/CMakeLists.txt), lowest first: each sees
# only the rooms below it.
expect_compile strata_storage_rows storage/rows/row_codec.h yes
expect_compile strata_storage_rows storage/kv/keys.h no
expect_compile strata_storage_rows storage/blocks/block_format.h no
expect_compile strata_storage_blocks storage/blocks/block.h yes
expect_compile strata_storage_blocks storage/kv/keys.h no
expect_compile strata_storage_kv storage/kv/store.h yes
expect_compile strata_storage_kv storage/rows/write_types.h no
expect_compile strata_storage_head storage/head/head_log.h yes
expect_compile strata_storage_head storage/catalog/names.h no
expect_compile strata_storage_head storage/blocks/block_format.h no
expect_compile strata_storage_catalog storage/catalog/catalog.h yes
expect_compile strata_storage_catalog storage/blocks/block_format.h no
expect_compile strata_storage_catalog storage/write/name_memo.h no
expect_compile strata_storage_read storage/read/table_state.h yes
expect_compile strata_storage_read storage/write/name_memo.h no
expect_compile strata_storage_read storage/jobs/backup.h no
expect_compile strata_storage_write storage/write/writer.h yes
expect_compile strata_storage_write storage/jobs/backup.h no
expect_compile strata_storage_jobs storage/jobs/tiering.h yes
expect_compile strata_storage_jobs storage/engine.h no
# The rooms of query/ (query/CMakeLists.txt), lowest first.
expect_compile strata_query_base query/base/datum.h yes
expect_compile strata_query_base query/functions/functions.h no
expect_compile strata_query_functions query/functions/functions.h yes
expect_compile strata_query_functions query/parse/lexer.h no
expect_compile strata_query_parse query/parse/parser.h yes
expect_compile strata_query_parse query/expr/expr.h no
expect_compile strata_query_expr query/expr/vector_eval.h yes
expect_compile strata_query_expr query/exec/operators.h no
expect_compile strata_query_exec query/exec/window.h yes
# cluster/ sits between server/ and the engine: it sees storage/ and query/, never server/;
# only the composition root (stratad) sees it.
expect_compile strata_cluster cluster/log_entry.h yes
expect_compile strata_cluster server/ops/config.h no
expect_compile strata_cluster storage/catalog/catalog_changes.h yes
expect_compile strata_storage cluster/log_entry.h no
expect_compile strata_query cluster/log_entry.h no
expect_compile strata_server_runner cluster/log_entry.h no
expect_compile strata_server_grpc cluster/log_entry.h no
expect_compile strata_query_exec query/plan/planner.h no
expect_compile strata_query_plan query/plan/planner.h yes
expect_compile strata_query_plan query/engine.h no
# The rooms of server/ (server/CMakeLists.txt): the front doors share the
# runner and never see one another. Each "no" probe is a header that
# compiles where its room is visible (no generated code in it).
expect_compile strata_server_runner server/auth/grants.h yes
expect_compile strata_server_runner server/ops/metrics.h yes
expect_compile strata_server_runner server/grpc/status_map.h no
expect_compile strata_server_runner server/pg/session.h no
expect_compile strata_server_runner server/scheduler/schedule_expression.h no
expect_compile strata_server_auth server/auth/grants.h yes
expect_compile strata_server_auth server/ops/metrics.h no
expect_compile strata_server_auth server/runner/query_workers.h no
expect_compile strata_server_ops server/ops/metrics.h yes
expect_compile strata_server_ops server/auth/grants.h no
expect_compile strata_server_ops server/runner/query_workers.h no
expect_compile strata_server_pg server/runner/query_runner.h yes
expect_compile strata_server_pg server/pg/session.h yes
expect_compile strata_server_pg server/grpc/status_map.h no
expect_compile strata_server_pg server/http/server.h no
expect_compile strata_server_pg server/scheduler/schedule_expression.h no
expect_compile strata_server_http server/http/server.h yes
expect_compile strata_server_http server/grpc/status_map.h no
expect_compile strata_server_http server/pg/session.h no
expect_compile strata_server_http server/scheduler/schedule_expression.h no
expect_compile strata_server_scheduler server/scheduler/schedule_expression.h yes
expect_compile strata_server_scheduler server/grpc/status_map.h no
expect_compile strata_server_scheduler server/pg/session.h no
expect_compile strata_server_scheduler server/http/server.h no
expect_compile strata_server_grpc server/grpc/status_map.h yes
expect_compile strata_server_grpc server/pg/session.h no
expect_compile strata_server_grpc server/http/server.h no

forbid() { # folder, pattern, what
  [ -d "$src/$1" ] || return 0
  hits=$(grep -rnE "#include[[:space:]]+[\"<]($2)" "$src/$1" --include='*.h' --include='*.cc')
  if [ -n "$hits" ]; then
    echo "FAIL: $1 must not include $3:"
    echo "$hits"
    failed=1
  fi
}
forbid storage 'query/|server/|client/|.*\.pb\.h|grpc' 'query/, server/, client/, proto or gRPC headers'
forbid query 'server/|client/|.*\.pb\.h|grpc|rocksdb/' 'server/, client/, proto, gRPC or RocksDB headers'
forbid common 'storage/|query/|server/|client/|rocksdb/|.*\.pb\.h|grpc|rpc/' 'anything above it'
forbid rpc 'storage/|query/|cluster/|server/|client/|rocksdb/|.*\.pb\.h' 'the engine, a service or proto messages'
forbid storage/blocks 'rocksdb/|storage/(kv|head|catalog|read|write|jobs)/|storage/engine|query/|server/|client/|.*\.pb\.h|grpc' 'RocksDB or the engine (blocks are pure bytes)'
# The query engine reads storage through the engine's facade and the reader
# (read/), and decodes the formats of rows and blocks; the memory head, the
# store, the write path, the jobs and the catalog's internals are not its.
forbid query 'storage/(kv|head|write|jobs)/|storage/catalog/(catalog|catalog_codec|names|scheduled_query_store|table_data|token_store)\.h' 'storage internals (it may use storage/engine.h, read/, rows/, blocks/ and catalog/catalog_types.h)'
forbid client 'storage/|query/|server/|rocksdb/' 'the engine (the CLI talks gRPC only)'
forbid server/ops 'server/(auth|runner|wire|scheduler|grpc|pg|http)/|strata/v1/' 'another room of server/ or proto messages'
forbid server/auth 'server/(ops|runner|wire|scheduler|grpc|pg|http)/|.*\.pb\.h|grpc' 'another room of server/, proto or gRPC'
forbid server/runner 'server/(wire|scheduler|grpc|pg|http)/|.*\.pb\.h|grpc' 'a front door, proto or gRPC headers'
forbid server/wire 'server/(ops|auth|runner|scheduler|grpc|pg|http)/|grpc' 'a room of server/ or gRPC (messages only)'
forbid server/scheduler 'server/(grpc|pg|http)/|grpc' 'a front door or gRPC headers'
# The scheduler works on its own types (scheduled_query.h); one file reads
# and writes them as the API's messages, for the gRPC service and the stored
# records.
hits=$(grep -rnE '#include[[:space:]]+["<](strata/v1/|.*\.pb\.h|server/wire/|server/scheduler/scheduled_query_proto\.h)' \
  "$src/server/scheduler" --include='*.h' --include='*.cc' |
  grep -v '/scheduled_query_proto\.\(h\|cc\):' || true)
if [ -n "$hits" ]; then
  echo "FAIL: server/scheduler must not see proto messages outside scheduled_query_proto.{h,cc}:"
  echo "$hits"
  failed=1
fi
forbid server/pg 'server/(wire|scheduler|grpc|http)/|strata/v1/|grpc' 'another front door, proto or gRPC headers'
forbid server/http 'server/(wire|scheduler|grpc|pg)/|strata/v1/|grpc' 'another front door, proto or gRPC headers'
forbid server/grpc 'server/(pg|http)/' 'another front door'

[ $failed -eq 0 ] && echo "layering: all arrows point down"
exit $failed
