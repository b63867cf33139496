// UNION, INTERSECT and EXCEPT, with or without ALL, over the rows of two
// plans whose columns line up, and the UNION of a recursive WITH query.
// Duplicates are found by the same key encoding as DISTINCT and GROUP BY
// (NULLs equal, 1 = 1.0). The right side of INTERSECT and EXCEPT, UNION's
// distinct keys and a recursive query's last step are held in memory and
// charged to the query's limit.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "query/exec/operators.h"
#include "query/parse/ast.h"

namespace strata::query {

using PlanRun = std::function<absl::Status(RowSink*)>;

// Runs `left` then (or, for INTERSECT and EXCEPT, after) `right` and pushes
// the result into `out` with each value converted to `types`, then calls
// out->Finish().
absl::Status RunSetOperation(SetOperation op, bool all, const PlanRun& left, const PlanRun& right,
                             std::vector<DataType> types, QueryContext* context, RowSink* out);

// What a recursive WITH query's second query reads under the query's own name: the rows the
// step before made. RunRecursiveUnion fills it for each step; `reading` is set only while a
// step runs, so a read at any other time (a subquery in an expression, which the planner runs
// while it plans) is refused rather than answered with no rows.
struct WorkingTable {
  std::string name;
  std::vector<Row> rows;
  bool reading = false;
};

// WITH RECURSIVE's `first UNION [ALL] step`: pushes `first`'s rows, then runs `step` over
// them (as `table`'s rows), then over the rows that step made, until a step makes none or the
// consumer has enough (its LIMIT). Without ALL a row already made is dropped, and with it the
// steps it would feed. Calls out->Finish().
absl::Status RunRecursiveUnion(bool all, const PlanRun& first, const PlanRun& step,
                               WorkingTable* table, std::vector<DataType> types,
                               QueryContext* context, RowSink* out);

}  // namespace strata::query
