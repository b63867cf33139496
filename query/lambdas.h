// Functions that take lambdas (filter, transform, reduce, any_match, ...,
// zip_with). A lambda's body reads its parameters and the row around it, so
// these are bound and evaluated here rather than through the registry's
// binder and evaluator: the body is bound to the row's schema with the
// parameters appended, and evaluated per element with their values there.
#pragma once

#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "query/expr.h"

namespace strata::query {

// Binds a call of a function with `takes_lambdas` (its arguments included).
absl::Status BindLambdaCall(Expr& call, const Schema& schema, std::string_view sql);

// Evaluates such a call over one row.
Datum EvalLambdaCall(const Expr& call, const Row& row, const EvalContext& context);

// Their registry entries (documentation and names; binding and evaluation
// are the two functions above).
void AddLambdaFunctions(std::vector<ScalarFunction>* scalars);

}  // namespace strata::query
