#include "query/expr/block_bounds.h"

#include <algorithm>
#include <optional>

namespace strata::query {
namespace {

std::optional<BoundOp> BoundOpOf(const std::string& sql) {
  if (sql == "<") return BoundOp::kLess;
  if (sql == "<=") return BoundOp::kLessOrEqual;
  if (sql == ">") return BoundOp::kGreater;
  if (sql == ">=") return BoundOp::kGreaterOrEqual;
  if (sql == "=") return BoundOp::kEqual;
  return std::nullopt;
}

// The comparison with its operands swapped: `3 < x` is `x > 3`.
BoundOp Flip(BoundOp op) {
  switch (op) {
    case BoundOp::kLess:
      return BoundOp::kGreater;
    case BoundOp::kLessOrEqual:
      return BoundOp::kGreaterOrEqual;
    case BoundOp::kGreater:
      return BoundOp::kLess;
    case BoundOp::kGreaterOrEqual:
      return BoundOp::kLessOrEqual;
    case BoundOp::kEqual:
      return BoundOp::kEqual;
  }
  return op;
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
void AddBound(const Expr& column, BoundOp op, const Expr& constant, const Expr& conjunct,
              const EvalContext& context, std::vector<ValueBound>* out) {
  std::optional<Datum> value = ComparableConstant(constant, column.bound.type, context);
  if (!value) return;
  out->push_back({.column = column.bound.column,
                  .type = column.bound.type,
                  .op = op,
                  .value = *std::move(value),
                  .text = conjunct.ToString()});
}

// Whether some value in [min, max] satisfies `value_in_range <op> bound`.
template <typename T>
bool SomeValuePasses(BoundOp op, T min, T max, T bound) {
  switch (op) {
    case BoundOp::kLess:
      return min < bound;
    case BoundOp::kLessOrEqual:
      return min <= bound;
    case BoundOp::kGreater:
      return max > bound;
    case BoundOp::kGreaterOrEqual:
      return max >= bound;
    case BoundOp::kEqual:
      return min <= bound && bound <= max;
  }
  return true;
}

// ClearPointsThatFail for one comparison over `values` (the present points' values, in
// order): the comparison chosen once a column, not once a point.
template <typename T, typename Passes>
void ClearFailing(const std::vector<bool>& present, const std::vector<T>& values, Passes passes,
                  std::vector<uint8_t>* keep) {
  const size_t n = std::min(keep->size(), present.size());
  for (size_t i = 0, k = 0; i < n; ++i) {
    if (!present[i]) {
      (*keep)[i] = 0;
    } else if (k < values.size() && !passes(values[k++])) {
      (*keep)[i] = 0;
    }
  }
}

template <typename T>
void ClearFailingValues(BoundOp op, T bound, const std::vector<bool>& present,
                        const std::vector<T>& values, std::vector<uint8_t>* keep) {
  switch (op) {
    case BoundOp::kLess:
      return ClearFailing(
          present, values, [bound](T v) { return v < bound; }, keep);
    case BoundOp::kLessOrEqual:
      return ClearFailing(
          present, values, [bound](T v) { return v <= bound; }, keep);
    case BoundOp::kGreater:
      return ClearFailing(
          present, values, [bound](T v) { return v > bound; }, keep);
    case BoundOp::kGreaterOrEqual:
      return ClearFailing(
          present, values, [bound](T v) { return v >= bound; }, keep);
    case BoundOp::kEqual:
      return ClearFailing(
          present, values, [bound](T v) { return v == bound; }, keep);
  }
}

}  // namespace

const char* BoundOpName(BoundOp op) {
  switch (op) {
    case BoundOp::kLess:
      return "<";
    case BoundOp::kLessOrEqual:
      return "<=";
    case BoundOp::kGreater:
      return ">";
    case BoundOp::kGreaterOrEqual:
      return ">=";
    case BoundOp::kEqual:
      return "=";
  }
  return "?";
}

std::vector<ValueBound> ExtractValueBounds(const std::vector<const Expr*>& conjuncts,
                                           int first_measure_column,
                                           const EvalContext& context) {
  std::vector<ValueBound> bounds;
  for (const Expr* c : conjuncts) {
    if (c->kind == ExprKind::kBetween && !c->negated &&
        IsMeasureColumn(*c->args[0], first_measure_column)) {
      AddBound(*c->args[0], BoundOp::kGreaterOrEqual, *c->args[1], *c, context, &bounds);
      AddBound(*c->args[0], BoundOp::kLessOrEqual, *c->args[2], *c, context, &bounds);
      continue;
    }
    if (c->kind != ExprKind::kBinary || c->args.size() != 2) continue;
    const std::optional<BoundOp> op = BoundOpOf(c->name);
    if (!op) continue;
    if (IsMeasureColumn(*c->args[0], first_measure_column)) {
      AddBound(*c->args[0], *op, *c->args[1], *c, context, &bounds);
    } else if (IsMeasureColumn(*c->args[1], first_measure_column)) {
      AddBound(*c->args[1], Flip(*op), *c->args[0], *c, context, &bounds);
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

void ClearPointsThatFail(const ValueBound& bound, const format::ColumnValues& values,
                         std::vector<uint8_t>* keep) {
  switch (bound.type) {
    case DataType::kDouble:
      if (values.type == ValueType::kDouble) {
        ClearFailingValues(bound.op, bound.value.AsDouble(), values.present, values.reals, keep);
        return;
      }
      break;
    case DataType::kBigint:
    case DataType::kTimestamp:
      if (values.type ==
          (bound.type == DataType::kBigint ? ValueType::kBigint : ValueType::kTimestamp)) {
        ClearFailingValues(bound.op, bound.value.i, values.present, values.numbers, keep);
        return;
      }
      break;
    default:
      break;
  }
  // Values of another type are not judged; an absent one is still NULL.
  const size_t n = std::min(keep->size(), values.present.size());
  for (size_t i = 0; i < n; ++i) {
    if (!values.present[i]) (*keep)[i] = 0;
  }
}

}  // namespace strata::query
