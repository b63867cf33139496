// Binding expressions to an input schema (names -> column indexes, types,
// functions) and evaluating them row by row.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "query/base/datum.h"
#include "query/functions/functions.h"
#include "query/parse/ast.h"

namespace strata::query {

struct ColumnInfo {
  std::string name;
  DataType type = DataType::kUnknown;
  std::string qualifier;  // the FROM alias or table name it came from
  // The right side's copy of a USING column: found only by its qualified
  // name and left out of SELECT *, so `k` alone means the joined key.
  bool hidden = false;
};
using Schema = std::vector<ColumnInfo>;

// A correlated subquery's answers (ExprKind::kLookup), by the outer values
// its WHERE equates with its own: AppendKey of each, in order.
struct LookupTable {
  absl::flat_hash_map<std::string, Datum> values;
  Datum otherwise;  // where no row matches, or an outer value is NULL
  DataType type = DataType::kUnknown;
};

// The memory a row holds (its datums and their strings), for the query
// memory budgets.
int64_t RowBytes(const Row& row);

// What the hash set of an IN list over `array`'s elements (Expr::in_array) takes beside the
// array, for the query memory budgets: a slot for each element (a key string and its control
// byte, the table at most 7/8 full) and the key's own bytes where they do not fit in it.
int64_t InListBytes(const Datum& array);

// Binds `expr` (and its children) against `schema`. Aggregate calls are an
// error here (the planner takes them out first). `sql` is for error carets.
absl::Status Bind(Expr& expr, const Schema& schema, std::string_view sql);
// The error of a call of no scalar function (`function f() does not exist`, or why a known
// name is refused); OK for a call of one.
absl::Status NoSuchScalarFunction(const Expr& call, std::string_view sql);
// Casts the JSON ones of bound `args` to VARCHAR: what Bind does for every operator and
// function but those that keep JSON, and the planner for an aggregate's arguments.
void CastJsonToText(std::vector<ExprPtr>& args);

// Evaluates a bound expression over one input row.
Datum Eval(const Expr& expr, const Row& row, const EvalContext& context);

// A call of a function that takes lambdas (ScalarFunction::takes_lambdas:
// filter, transform, reduce, ...), bound with its arguments, and evaluated
// over one row (query/expr/expr_lambdas.cc).
absl::Status BindLambdaCall(Expr& call, const Schema& schema, std::string_view sql);
Datum EvalLambdaCall(const Expr& call, const Row& row, const EvalContext& context);

// True if the bound expression reads no column, no aggregate and no volatile function: its
// value is the same over any row of any input.
bool IsConstant(const Expr& expr);
// The value of a bound expression that reads no column, if it is one.
std::optional<Datum> FoldConstant(const Expr& expr, const EvalContext& context);

// True if evaluating the expression can fail (a CAST that does not convert
// its value); the executor keeps such expressions behind the conditions
// that guard them.
bool CanFail(const Expr& expr);

// True if the expression contains a call to an aggregate function (not
// counting aggregates over a window, whose arguments may still contain one).
bool ContainsAggregate(const Expr& expr);

// True if the expression contains a window function call (f(...) OVER (...)).
bool ContainsWindow(const Expr& expr);

}  // namespace strata::query
