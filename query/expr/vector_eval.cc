#include "query/expr/vector_eval.h"

#include <cmath>
#include <optional>

#include "query/base/checked_math.h"

namespace strata::query {
namespace {

bool IsComparison(const std::string& op) {
  return op == "=" || op == "<>" || op == "<" || op == "<=" || op == ">" || op == ">=";
}

Vector Broadcast(const Datum& d, DataType type, size_t n) {
  Vector out(type == DataType::kUnknown ? d.type : type);
  out.ResetNull(n);
  if (d.null || n == 0) return out;
  out.nulls.assign(n, 0);
  if (IsComposite(out.type)) {
    out.nested.assign(n, d.nested);
    return out;
  }
  switch (out.type) {
    case DataType::kDouble: out.doubles.assign(n, d.AsDouble()); break;
    case DataType::kVarchar:
    case DataType::kJson: {  // (a JSON parameter was broadcast as integers: empty texts)
      // One owned copy; every row views it.
      out.SetOwnedString(0, d.s);
      out.strings.assign(n, out.strings[0]);
      break;
    }
    case DataType::kUnknown: break;
    default: out.ints.assign(n, d.i); break;
  }
  return out;
}

// Stores a computed value at row `i` of `out`, counting a long one as in flight (the query
// fails once they would pass its memory limit: EvalContext::HoldInFlight).
void SetComputed(Vector& out, size_t i, const Datum& value, const EvalContext& context) {
  // Only texts and nested values can be long (numbers are never counted).
  if (IsText(value.type)) {
    if (!context.HoldInFlight(static_cast<int64_t>(value.s.size()))) return;
  } else if (value.nested != nullptr && !context.HoldInFlight(value.HeapBytes())) {
    return;
  }
  out.Set(i, value);
}

// Through Eval, one row at a time: the reference semantics.
Vector RowByRow(const Expr& e, const Batch& batch, const EvalContext& context) {
  std::vector<bool> used(batch.columns.size());
  MarkColumns(e, &used);
  Row row(batch.columns.size());
  Vector out(e.bound.type);
  out.ResetNull(batch.rows);
  for (size_t i = 0; i < batch.rows; ++i) {
    for (size_t c = 0; c < used.size(); ++c) {
      if (used[c]) row[c] = batch.columns[c].Get(i);
    }
    SetComputed(out, i, Eval(e, row, context), context);
    if (!context.error.empty()) break;  // the query fails: the other rows are waste
  }
  return out;
}

// Compare's three-way result (-1, 0, 1) against an operator.
bool Holds(const std::string& op, int c) {
  if (op == "=") return c == 0;
  if (op == "<>") return c != 0;
  if (op == "<") return c < 0;
  if (op == "<=") return c <= 0;
  if (op == ">") return c > 0;
  return c >= 0;
}

// out.nulls must already hold the union of the inputs' nulls. `three_way`
// gives Compare's -1/0/1 for two values.
template <typename T, typename ThreeWay>
void CompareValues(const std::string& op, const T* x, const T* y, Vector& out,
                   ThreeWay three_way) {
  bool result[3] = {Holds(op, -1), Holds(op, 0), Holds(op, 1)};
  for (size_t i = 0; i < out.size(); ++i) {
    if (!out.nulls[i]) out.ints[i] = result[three_way(x[i], y[i]) + 1];
  }
}

template <typename T>
int ThreeWay(const T& a, const T& b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

// Doubles as SQL compares them: with a NaN on either side only <> holds (Unordered).
void CompareDoubles(const std::string& op, const double* x, const double* y, Vector& out) {
  bool result[3] = {Holds(op, -1), Holds(op, 0), Holds(op, 1)};
  const bool unordered = op == "<>";
  for (size_t i = 0; i < out.size(); ++i) {
    if (out.nulls[i]) continue;
    out.ints[i] =
        std::isnan(x[i]) || std::isnan(y[i]) ? unordered : result[ThreeWay(x[i], y[i]) + 1];
  }
}

std::vector<double> AsDoubles(const Vector& v) {
  if (v.type == DataType::kDouble) return v.doubles;
  std::vector<double> out(v.size());
  for (size_t i = 0; i < v.size(); ++i) out[i] = v.nulls[i] ? 0 : static_cast<double>(v.ints[i]);
  return out;
}

Vector NullUnion(const Vector& a, const Vector& b, DataType type) {
  Vector out(type);
  out.ResetNull(a.size());
  for (size_t i = 0; i < a.size(); ++i) out.nulls[i] = a.nulls[i] | b.nulls[i];
  return out;
}

// Typed comparison; nullopt when the operand types need Eval's rules.
std::optional<Vector> Comparison(const std::string& op, const Vector& a, const Vector& b) {
  const bool strings = a.type == DataType::kVarchar && b.type == DataType::kVarchar;
  const bool numbers = (UsesInts(a.type) || a.type == DataType::kDouble) &&
                       (UsesInts(b.type) || b.type == DataType::kDouble);
  if (!strings && !numbers) return std::nullopt;
  Vector out = NullUnion(a, b, DataType::kBoolean);
  if (strings) {
    CompareValues(op, a.strings.data(), b.strings.data(), out, ThreeWay<std::string_view>);
  } else if (a.type == DataType::kDouble || b.type == DataType::kDouble) {
    std::vector<double> x = AsDoubles(a), y = AsDoubles(b);
    CompareDoubles(op, x.data(), y.data(), out);
  } else {
    CompareValues(op, a.ints.data(), b.ints.data(), out, ThreeWay<int64_t>);
  }
  return out;
}

// Typed arithmetic with Eval's rules (integer division by zero fails);
// nullopt for operand types it does not cover.
std::optional<Vector> Arithmetic(const std::string& op, const Vector& a, const Vector& b,
                                 DataType type, const EvalContext& context) {
  const auto numeric = [](DataType t) {
    return (UsesInts(t) && !IsCalendarType(t)) || t == DataType::kDouble;
  };
  if (!numeric(a.type) || !numeric(b.type) || IsCalendarType(type)) return std::nullopt;
  Vector out = NullUnion(a, b, type);
  if (type == DataType::kDouble) {
    std::vector<double> x = AsDoubles(a), y = AsDoubles(b);
    double* r = out.doubles.data();
    if (op == "+") for (size_t i = 0; i < x.size(); ++i) r[i] = x[i] + y[i];
    else if (op == "-") for (size_t i = 0; i < x.size(); ++i) r[i] = x[i] - y[i];
    else if (op == "*") for (size_t i = 0; i < x.size(); ++i) r[i] = x[i] * y[i];
    else if (op == "/") for (size_t i = 0; i < x.size(); ++i) r[i] = x[i] / y[i];
    else for (size_t i = 0; i < x.size(); ++i) r[i] = std::fmod(x[i], y[i]);
    return out;
  }
  if (!UsesInts(type) || !UsesInts(a.type) || !UsesInts(b.type)) return std::nullopt;
  const char o = op[0];  // + - * / %
  for (size_t i = 0; i < out.size(); ++i) {
    if (out.nulls[i]) continue;
    const int64_t x = a.ints[i], y = b.ints[i];
    if ((o == '/' || o == '%') && y == 0) {
      if (context.error.empty()) context.error = kDivisionByZero;
      out.nulls[i] = 1;
      continue;
    }
    std::optional<int64_t> r = CheckedIntegerOp(o, x, y);
    if (!r) {
      if (context.error.empty()) context.error = OverflowMessage(type, o, x, y);
      out.nulls[i] = 1;
      continue;
    }
    out.ints[i] = *r;
  }
  return out;
}

// Three-valued AND / OR.
Vector Logical(bool is_and, const Vector& a, const Vector& b) {
  Vector out(DataType::kBoolean);
  out.ResetNull(a.size());
  auto value = [](const Vector& v, size_t i) { return v.type == DataType::kUnknown ? 0 : v.ints[i]; };
  for (size_t i = 0; i < a.size(); ++i) {
    const bool a_decides = !a.nulls[i] && (value(a, i) != 0) != is_and;
    const bool b_decides = !b.nulls[i] && (value(b, i) != 0) != is_and;
    if (a_decides || b_decides) {
      out.nulls[i] = 0;
      out.ints[i] = !is_and;
    } else if (!a.nulls[i] && !b.nulls[i]) {
      out.nulls[i] = 0;
      out.ints[i] = is_and;
    }
  }
  return out;
}

Vector Call(const Expr& e, const Batch& batch, const EvalContext& context) {
  // The arguments' values are gone once the call's are made: only the call's stay in flight.
  const int64_t before_args = context.value_bytes_in_flight;
  std::vector<Vector> args;
  args.reserve(e.args.size());
  for (const auto& a : e.args) args.push_back(EvalBatch(*a, batch, context));
  const int64_t args_bytes = context.value_bytes_in_flight - before_args;
  Vector out(e.bound.type);
  out.ResetNull(batch.rows);
  const ScalarFunction& f = *e.bound.function;
  if (f.eval_batch && f.null_propagating) {
    if (f.eval_batch(args, &out)) {
      context.value_bytes_in_flight -= args_bytes;
      return out;
    }
    out.ResetNull(batch.rows);
  }
  std::vector<Datum> values(args.size());
  for (size_t i = 0; i < batch.rows; ++i) {
    bool null_in = false;
    for (size_t k = 0; k < args.size(); ++k) {
      null_in |= args[k].nulls[i] != 0;
      values[k] = args[k].Get(i);
    }
    if (null_in && f.null_propagating) continue;
    SetComputed(out, i, CallScalar(f, values, e.bound.type, context), context);
    if (!context.error.empty()) break;  // the query fails: the other rows are waste
  }
  context.value_bytes_in_flight -= args_bytes;
  return out;
}

// A call of constants only (sequence(1, 100), ago(1h), a volatile function excepted: IsConstant)
// has the same value on every row: computed once, on a row of its own, and shared by the
// batch's rows (Broadcast: one copy of a text or an array, counted once as in flight) instead of
// made again for each row.
Vector OnceForEveryRow(const Expr& e, const Batch& batch, const EvalContext& context) {
  Batch one;
  one.rows = 1;
  const Vector value = Call(e, one, context);
  // Failed, it is still the batch's size: the expression around it may read every row.
  return Broadcast(context.error.empty() ? value.Get(0) : Datum::Null(e.bound.type), e.bound.type,
                   batch.rows);
}

}  // namespace

void MarkColumns(const Expr& expr, std::vector<bool>* columns) {
  // An aggregate's slot reads its column; its arguments were the aggregation's input.
  const bool slot = expr.kind == ExprKind::kCall && expr.bound.aggregate >= 0;
  if ((expr.kind == ExprKind::kColumn || slot) && expr.bound.column >= 0 &&
      expr.bound.column < static_cast<int>(columns->size())) {
    (*columns)[expr.bound.column] = true;
  }
  if (slot) return;
  for (const auto& a : expr.args) MarkColumns(*a, columns);
}

const Vector& EvalBatchRef(const Expr& e, const Batch& batch, const EvalContext& context,
                           Vector* scratch) {
  if (e.kind == ExprKind::kColumn || (e.kind == ExprKind::kCall && e.bound.aggregate >= 0)) {
    return batch.columns[e.bound.column];
  }
  *scratch = EvalBatch(e, batch, context);
  return *scratch;
}

Vector EvalBatch(const Expr& e, const Batch& batch, const EvalContext& context) {
  switch (e.kind) {
    case ExprKind::kLiteral:
      return Broadcast(e.literal, e.bound.type, batch.rows);
    case ExprKind::kColumn:
      return batch.columns[e.bound.column];
    case ExprKind::kUnary: {
      Vector v = EvalBatch(*e.args[0], batch, context);
      if (v.type == DataType::kUnknown) return v;
      for (size_t i = 0; i < v.size(); ++i) {
        if (v.nulls[i]) continue;
        if (e.name == "NOT") {
          v.ints[i] = v.ints[i] == 0;
        } else if (v.type == DataType::kDouble) {
          v.doubles[i] = -v.doubles[i];
        } else if (std::optional<int64_t> negated = CheckedNegate(v.ints[i])) {
          v.ints[i] = *negated;
        } else {
          if (context.error.empty()) {
            context.error = NegationOverflowMessage(v.type, "-", v.ints[i]);
          }
          v.nulls[i] = 1;
        }
      }
      return v;
    }
    case ExprKind::kBinary: {
      const std::string& op = e.name;
      if (op == "AND" || op == "OR") {
        if (CanFail(*e.args[1])) return RowByRow(e, batch, context);
        return Logical(op == "AND", EvalBatch(*e.args[0], batch, context),
                       EvalBatch(*e.args[1], batch, context));
      }
      if (op == "||" || op == "IS DISTINCT FROM" || op == "IS NOT DISTINCT FROM") break;
      Vector a = EvalBatch(*e.args[0], batch, context);
      Vector b = EvalBatch(*e.args[1], batch, context);
      std::optional<Vector> out =
          IsComparison(op) ? Comparison(op, a, b) : Arithmetic(op, a, b, e.bound.type, context);
      if (out) return *std::move(out);
      break;
    }
    case ExprKind::kCall:
      // An aggregate over the groups: its slot, a column of the aggregation's output.
      if (e.bound.aggregate >= 0) return batch.columns[e.bound.column];
      if (e.bound.function != nullptr && !e.bound.function->takes_lambdas &&
          !e.bound.function->catches_errors) {
        // Not for an empty batch: a call that fails (1 / 0) must fail only where a row needs it.
        if (batch.rows > 1 && IsConstant(e)) return OnceForEveryRow(e, batch, context);
        return Call(e, batch, context);
      }
      break;
    case ExprKind::kIsNull: {
      Vector v = EvalBatch(*e.args[0], batch, context);
      Vector out(DataType::kBoolean);
      out.nulls.assign(batch.rows, 0);
      out.ints.resize(batch.rows);
      for (size_t i = 0; i < batch.rows; ++i) out.ints[i] = (v.nulls[i] != 0) != e.negated;
      return out;
    }
    default:
      break;
  }
  return RowByRow(e, batch, context);
}

}  // namespace strata::query
