// Evaluating bound expressions over a whole batch at once. Column reads,
// literals, comparisons, arithmetic, AND/OR/NOT, IS NULL and scalar function
// calls run as loops over typed arrays; the rarer constructs (CASE, CAST,
// IN, BETWEEN, LIKE) evaluate row by row through Eval (expr.h), so both
// paths give the same answers by construction.
#pragma once

#include <vector>

#include "query/base/vector.h"
#include "query/expr/expr.h"

namespace strata::query {

// The value of `expr` for every row of `batch`; the result's type is the
// expression's bound type (a NULL-typed expression may adopt its values').
// Evaluation errors (a failing CAST) land in context.error as with Eval.
Vector EvalBatch(const Expr& expr, const Batch& batch, const EvalContext& context);

// As EvalBatch, but an expression that reads a column as it is returns the
// batch's own vector instead of a copy; others are evaluated into *scratch.
const Vector& EvalBatchRef(const Expr& expr, const Batch& batch, const EvalContext& context,
                           Vector* scratch);

// Sets (*columns)[i] for every input column `expr` reads.
void MarkColumns(const Expr& expr, std::vector<bool>* columns);

}  // namespace strata::query
