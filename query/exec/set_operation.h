// UNION, INTERSECT and EXCEPT, with or without ALL, over the rows of two
// plans whose columns line up. Duplicates are found by the same key
// encoding as DISTINCT and GROUP BY (NULLs equal, 1 = 1.0). The right side
// of INTERSECT and EXCEPT, and UNION's distinct keys, are held in memory and
// charged to the query's limit.
#pragma once

#include <functional>
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

}  // namespace strata::query
