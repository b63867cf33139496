#include "query/expr/block_bounds.h"

#include <optional>

namespace strata::query {
namespace {

// The operator with its operands swapped: `3 < x` is `x > 3`.
std::string Flip(const std::string& op) {
  if (op == "<") return ">";
  if (op == "<=") return ">=";
  if (op == ">") return "<";
  if (op == ">=") return "<=";
  return op;
}

bool IsOrdering(const std::string& op) {
  return op == "<" || op == "<=" || op == ">" || op == ">=" || op == "=";
}

// A constant the column's values compare with exactly: any number for a
// DOUBLE column (compared as doubles), an integer for BIGINT, a timestamp
// for TIMESTAMP.
std::optional<Datum> ComparableConstant(const Expr& e, DataType column_type,
                                        const EvalContext& context) {
  std::optional<Datum> v = FoldConstant(e, context);
  if (!v || v->null) return std::nullopt;
  switch (column_type) {
    case DataType::kDouble:
      if (v->type == DataType::kDouble || v->type == DataType::kBigint) return v;
      return std::nullopt;
    case DataType::kBigint:
    case DataType::kTimestamp:
      if (v->type == column_type) return v;
      return std::nullopt;
    default: return std::nullopt;
  }
}

bool IsMeasureColumn(const Expr& e, int first_measure_column) {
  if (e.kind != ExprKind::kColumn || e.bound.column < first_measure_column) return false;
  const DataType t = e.bound.type;
  return t == DataType::kDouble || t == DataType::kBigint || t == DataType::kTimestamp;
}

// `conjunct` is the whole condition, for EXPLAIN.
void AddBound(const Expr& column, std::string op, const Expr& constant, const Expr& conjunct,
              const EvalContext& context, std::vector<ValueBound>* out) {
  std::optional<Datum> value = ComparableConstant(constant, column.bound.type, context);
  if (!value) return;
  out->push_back({.column = column.bound.column, .type = column.bound.type, .op = std::move(op),
                  .value = *std::move(value), .text = conjunct.ToString()});
}

// Whether some value in [min, max] satisfies `value_in_range <op> bound`.
template <typename T>
bool SomeValuePasses(const std::string& op, T min, T max, T bound) {
  if (op == "<") return min < bound;
  if (op == "<=") return min <= bound;
  if (op == ">") return max > bound;
  if (op == ">=") return max >= bound;
  return min <= bound && bound <= max;  // "="
}

}  // namespace

std::vector<ValueBound> ExtractValueBounds(const std::vector<const Expr*>& conjuncts,
                                           int first_measure_column,
                                           const EvalContext& context) {
  std::vector<ValueBound> bounds;
  for (const Expr* c : conjuncts) {
    if (c->kind == ExprKind::kBetween && !c->negated &&
        IsMeasureColumn(*c->args[0], first_measure_column)) {
      AddBound(*c->args[0], ">=", *c->args[1], *c, context, &bounds);
      AddBound(*c->args[0], "<=", *c->args[2], *c, context, &bounds);
      continue;
    }
    if (c->kind != ExprKind::kBinary || c->args.size() != 2 || !IsOrdering(c->name)) continue;
    if (IsMeasureColumn(*c->args[0], first_measure_column)) {
      AddBound(*c->args[0], c->name, *c->args[1], *c, context, &bounds);
    } else if (IsMeasureColumn(*c->args[1], first_measure_column)) {
      AddBound(*c->args[1], Flip(c->name), *c->args[0], *c, context, &bounds);
    }
  }
  return bounds;
}

bool RulesOut(const ValueBound& bound, const format::ColumnSummary* column, uint32_t count) {
  // Absent or all NULL: every comparison is NULL, which WHERE drops.
  if (column == nullptr || column->null_count >= count) return true;
  if (!column->has_stats) return false;
  switch (bound.type) {
    case DataType::kDouble:
      // Blocks hold no NaN (writes refuse it), so min and max cover every
      // non-NULL value.
      if (column->type != ValueType::kDouble) return false;
      return !SomeValuePasses(bound.op, column->min, column->max, bound.value.AsDouble());
    case DataType::kBigint:
    case DataType::kTimestamp:
      if (column->type != (bound.type == DataType::kBigint ? ValueType::kBigint
                                                           : ValueType::kTimestamp)) {
        return false;
      }
      return !SomeValuePasses(bound.op, column->int_min, column->int_max, bound.value.i);
    default: return false;
  }
}

bool DoubleMayPass(const ValueBound& bound, double v) {
  return bound.type != DataType::kDouble || SomeValuePasses(bound.op, v, v, bound.value.AsDouble());
}

bool PointMayPass(const ValueBound& bound, const format::ColumnValues& values, size_t k) {
  switch (bound.type) {
    case DataType::kDouble:
      return values.type != ValueType::kDouble || DoubleMayPass(bound, values.reals[k]);
    case DataType::kBigint:
    case DataType::kTimestamp: {
      if (values.type != (bound.type == DataType::kBigint ? ValueType::kBigint
                                                          : ValueType::kTimestamp)) {
        return true;
      }
      const int64_t v = values.numbers[k];
      return SomeValuePasses(bound.op, v, v, bound.value.i);
    }
    default: return true;
  }
}

}  // namespace strata::query
