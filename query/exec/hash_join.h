// Joins: a hash join on the equality conditions between the two sides, with
// the rest of the ON condition checked on each matching pair. The build side
// (the one the planner estimates smaller) is held in memory, charged to the
// query's limit, so a join too big for it fails the query with
// RESOURCE_EXHAUSTED; the probe side streams through. Without equality
// conditions (CROSS JOIN, ON a < b) every pair is tried.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "query/exec/operators.h"
#include "query/expr/expr.h"
#include "query/parse/ast.h"

namespace strata::query {

// Set by a join before its probe side runs: that table scan reads only the
// series whose `column` (a dimension or measure_name) is one of `values`,
// the build side's keys. Rows of other series could not match.
struct SeriesRestriction {
  int column = -1;
  std::shared_ptr<const absl::flat_hash_set<std::string>> values;  // null: no restriction
};

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
  // With narrow_build, the build side holds only columns `build_keep` (what
  // anything after the join reads; its keys are evaluated before the row is
  // narrowed), and the others come out NULL.
  bool narrow_build = false;
  std::vector<int> build_keep;
  // When set, the probe side's scan is narrowed to the build side's values
  // of key `restrict_key` before it runs (a dynamic filter).
  std::shared_ptr<SeriesRestriction> probe_restriction;
  int restrict_key = -1;
};

using SideRun = std::function<absl::Status(BatchSink*)>;

// Runs both sides and pushes the joined rows into `out` as batches, then
// calls out->Finish().
absl::Status RunJoin(const JoinSpec& spec, const SideRun& left, const SideRun& right,
                     QueryContext* context, BatchSink* out);

}  // namespace strata::query
