// Window functions (Presto semantics): f(...) OVER (PARTITION BY ... ORDER BY
// ... [ROWS|RANGE frame]). The operator sits in the row half of the plan,
// after grouping and HAVING and before the select list: it holds every row
// (charged to the query's memory), sorts row indexes once per window, and
// appends one column per call. Ranking and offset functions look at the
// partition's order; value functions and every aggregate look at the frame.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "query/exec/operators.h"
#include "query/functions/functions.h"
#include "query/parse/ast.h"

namespace strata::query {

// One window function call, its expressions bound to the operator's input.
struct WindowCall {
  std::string name;
  const AggregateFunction* aggregate = nullptr;  // an aggregate over the frame
  bool distinct = false;
  std::vector<const Expr*> args;
  std::vector<DataType> arg_types;
  DataType type = DataType::kUnknown;
  std::vector<const Expr*> partition_by;
  std::vector<const Expr*> order_by;
  std::vector<bool> descending, nulls_first;
  WindowFrame frame;  // resolved: the default when the query gave none
  // RANGE with an offset: the distances of the frame's bounds, in the single
  // ORDER BY key's units (nanoseconds for a timestamp key).
  bool range_offsets = false;
  long double start_distance = 0, end_distance = 0;
  bool ignore_nulls = false;  // first/last/nth_value, lag and lead skip NULL values
  // row_number, rank or dense_rank: a filter above the window keeps only rows ranked up to
  // this (0: none), so the window may drop the others first (partition_top_n.h).
  int64_t kept_ranks = 0;
};

// Checks a call whose arguments, PARTITION BY and ORDER BY are bound, and
// fills `call` (its result type, the frame to use). Errors name the problem;
// `sql` is for the caret.
absl::Status BindWindowCall(const Expr& expr, std::string_view sql, WindowCall* call);

// Keeps columns `keep` of every row (the calls' expressions are bound to
// that narrowed row) and appends one column per call, in call order. Rows
// leave ordered by the first call's partition and order keys, as batches of
// `types` (the kept columns', then the calls'). Batches in and out: a row made
// for each input row, and for each output row, was two fifths of a large
// window's time.
std::unique_ptr<BatchSink> MakeWindow(std::vector<WindowCall> calls, std::vector<int> keep,
                                      std::vector<DataType> types, QueryContext* context,
                                      BatchSink* next);

}  // namespace strata::query
