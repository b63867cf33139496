// The query engine: runs one SQL statement against the storage engine and
// streams the result. Read this header first.
//
//   text -> Parse -> plan (bind names and types, push time range,
//   measure_name and dimension predicates into the scan) -> operators
//   (operators.h) -> pages of rows into a ResultSink.
//
// Thread-safety: Execute may run concurrently for different queries.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "query/datum.h"
#include "query/expr.h"
#include "query/memory_budget.h"
#include "query/parser.h"
#include "query/read_access.h"
#include "query/result.h"
#include "query/running_queries.h"
#include "query/table_layout.h"
#include "query/vector.h"
#include "storage/engine.h"

namespace strata::query {

class SystemTables;  // query/system_tables.h

struct QueryOptions {
  int page_size = 1000;
  int64_t timeout_millis = 60'000;
  int64_t memory_limit_bytes = 256 << 20;
  // Set by CancelQuery or a client that went away; checked while running.
  const std::atomic<bool>* cancelled = nullptr;
  // The server-wide budget the query's memory also comes from; none: only
  // memory_limit_bytes applies.
  MemoryBudget* shared_budget = nullptr;
  // What the caller may read (query/read_access.h); null: everything.
  const ReadAccess* access = nullptr;
  // The server's running queries, for SHOW QUERIES and KILL QUERY; null:
  // those statements are refused.
  const RunningQueries* running = nullptr;
  // Where the scans publish what they have read so far; null: nowhere.
  QueryProgress* progress = nullptr;
  // The "system" tables (query/system_tables.h); null: there are none.
  const SystemTables* system_tables = nullptr;
  // Values for the statement's ? and @name placeholders (query/parser.h).
  QueryParameters parameters;
  // The database of unqualified table names (QueryRequest.database); empty:
  // names must be qualified.
  std::string default_database;
  // Plan only: the sink gets the result's columns and the query stops there
  // (a DELETE deletes nothing). PostgreSQL's Describe of a statement.
  bool describe_only = false;
};

class QueryEngine {
 public:
  // `storage` must outlive the engine.
  explicit QueryEngine(Engine* storage) : storage_(*storage) {}

  // Runs `sql`. Errors: INVALID_ARGUMENT (syntax, names, types; the message
  // carries a caret), NOT_FOUND (database or table), RESOURCE_EXHAUSTED,
  // DEADLINE_EXCEEDED, CANCELLED, or an error of the sink.
  absl::StatusOr<QueryStats> Execute(std::string_view sql, const QueryOptions& options,
                                     ResultSink* sink);

 private:
  Engine& storage_;
  TableLayoutCache layouts_;
};

}  // namespace strata::query
