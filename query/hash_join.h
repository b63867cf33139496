// Joins: a hash join on the equality conditions between the two sides, with
// the rest of the ON condition checked on each matching pair. The build side
// (the one the planner estimates smaller) is held in memory, charged to the
// query's limit, so a join too big for it fails the query with
// RESOURCE_EXHAUSTED; the probe side streams through. Without equality
// conditions (CROSS JOIN, ON a < b) every pair is tried.
#pragma once

#include <functional>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "query/ast.h"
#include "query/expr.h"
#include "query/operators.h"

namespace strata::query {

struct JoinSpec {
  JoinKind kind = JoinKind::kInner;  // kInner, kLeft, kRight, kFull or kCross
  // Equality conditions: left_keys[i] = right_keys[i], each bound to its side.
  std::vector<const Expr*> left_keys, right_keys;
  // The rest of the ON condition, bound to the joined row (left columns,
  // then right columns); null when there is none.
  const Expr* residual = nullptr;
  int left_width = 0, right_width = 0;
  std::vector<DataType> output_types;  // the joined row's types
  // USING columns (left column, right column): on a row only the right side
  // has, the left copy (the one SELECT * shows) takes the right's value.
  std::vector<std::pair<int, int>> using_columns;
  bool build_left = false;  // hold the left side in memory, stream the right
};

using SideRun = std::function<absl::Status(BatchSink*)>;

// Runs both sides and pushes the joined rows into `out` as batches, then
// calls out->Finish().
absl::Status RunJoin(const JoinSpec& spec, const SideRun& left, const SideRun& right,
                     QueryContext* context, BatchSink* out);

}  // namespace strata::query
