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
#include "query/base/datum.h"
#include "query/base/memory_budget.h"
#include "query/base/read_access.h"
#include "query/base/result.h"
#include "query/base/running_queries.h"
#include "query/base/vector.h"
#include "query/exec/table_layout.h"
#include "query/expr/expr.h"
#include "query/parse/parser.h"
#include "query/query_options.h"
#include "storage/engine.h"

namespace strata::query {

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
