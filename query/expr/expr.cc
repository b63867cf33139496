#include "query/expr/expr.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "absl/container/flat_hash_set.h"
#include "common/status.h"
#include "common/strings.h"
#include "common/suggest.h"
#include "common/time_format.h"
#include "common/utf8.h"
#include "query/base/calendar.h"
#include "query/base/checked_math.h"
#include "query/base/interval_text.h"
#include "query/base/postgres_array_text.h"
#include "query/functions/json_document.h"
#include "query/functions/json_values.h"
#include "query/parse/session_zone.h"

namespace strata::query {
namespace {

using ExprKind = ExprKind;

DataType ArithmeticType(std::string_view op, DataType a, DataType b) {
  if (a == DataType::kUnknown) a = b;
  if (b == DataType::kUnknown) b = a;
  const bool additive = op == "+" || op == "-";
  const DataType kMonths = DataType::kIntervalYearToMonth;
  // A date or a timestamp moved by a duration or by months keeps its type;
  // a time of day moves by a duration (and wraps at midnight).
  for (DataType point : {DataType::kDate, DataType::kTimestamp, DataType::kTime}) {
    const bool by_months = point != DataType::kTime;
    if (additive && a == point && (b == DataType::kInterval || (by_months && b == kMonths))) {
      return point;
    }
    if (op == "+" && b == point && (a == DataType::kInterval || (by_months && a == kMonths))) {
      return point;
    }
  }
  // A day and a time of day (PostgreSQL's date + time, time + date, date - time).
  if ((additive && a == DataType::kDate && b == DataType::kTime) ||
      (op == "+" && a == DataType::kTime && b == DataType::kDate)) {
    return DataType::kTimestamp;
  }
  if (additive && a == kMonths && b == kMonths) return kMonths;
  if (op == "*" && ((a == kMonths && b == DataType::kBigint) || (a == DataType::kBigint && b == kMonths))) {
    return kMonths;
  }
  if (IsCalendarType(a) || IsCalendarType(b)) return DataType::kUnknown;
  if (op == "-" && a == DataType::kTimestamp && b == DataType::kTimestamp) return DataType::kInterval;
  if ((op == "+" || op == "-") && a == DataType::kTimestamp && b == DataType::kInterval) {
    return DataType::kTimestamp;
  }
  if (op == "+" && a == DataType::kInterval && b == DataType::kTimestamp) return DataType::kTimestamp;
  if ((op == "+" || op == "-") && a == DataType::kInterval && b == DataType::kInterval) {
    return DataType::kInterval;
  }
  // A duration scaled by a number (PostgreSQL's interval '1 hour' * 1.5), to the nanosecond.
  if ((op == "*" || op == "/") && a == DataType::kInterval && IsNumeric(b)) {
    return DataType::kInterval;
  }
  if (op == "*" && IsNumeric(a) && b == DataType::kInterval) return DataType::kInterval;
  if (IsNumeric(a) && IsNumeric(b)) {
    return (a == DataType::kDouble || b == DataType::kDouble) ? DataType::kDouble
                                                              : DataType::kBigint;
  }
  return DataType::kUnknown;
}

bool Comparable(DataType a, DataType b) {
  if (a == DataType::kUnknown || b == DataType::kUnknown || a == b) return true;
  if (KindOf(a) == TypeKind::kRow && KindOf(b) == TypeKind::kRow) {
    // (host, 1) = ('a', NULL), (x, 1) IN ((y, 2.5)): field by field.
    const std::vector<RowField>& x = RowFields(a);
    const std::vector<RowField>& y = RowFields(b);
    if (x.size() != y.size()) return false;
    for (size_t i = 0; i < x.size(); ++i) {
      if (!Comparable(x[i].type, y[i].type)) return false;
    }
    return true;
  }
  return IsNumeric(a) && IsNumeric(b);
}

// `e`, a name of a table in FROM (PostgreSQL's whole-row reference: row_to_json(t),
// json_agg(t)), as the row of that table's `columns`, its fields named as they are:
// CAST(ROW(c1, c2, ...) AS ROW(c1 type, c2 type, ...)), which binds again to the same.
absl::Status BindWholeRow(Expr& e, const Schema& schema, const std::vector<size_t>& columns,
                          std::string_view sql) {
  auto row = std::make_unique<Expr>();
  row->kind = ExprKind::kCall;
  row->pos = e.pos;
  row->name = "row";
  row->height = 2;
  std::vector<DataType> types;
  std::vector<RowField> fields;
  for (size_t i : columns) {
    auto column = std::make_unique<Expr>();
    column->kind = ExprKind::kColumn;
    column->pos = e.pos;
    column->name = schema[i].name;
    column->qualifier = e.name;
    column->bound.column = static_cast<int>(i);
    column->bound.type = schema[i].type;
    types.push_back(schema[i].type);
    fields.push_back({.name = schema[i].name, .type = schema[i].type});
    row->args.push_back(std::move(column));
  }
  row->bound.function = FunctionRegistry::Get().FindScalar("row");
  absl::StatusOr<DataType> unnamed = row->bound.function->bind(types);
  std::optional<DataType> named = RowOf(std::move(fields));
  if (!unnamed.ok() || !named) return SqlError(sql, e.pos, TooManyTypesMessage());
  row->bound.type = *unnamed;
  e.kind = ExprKind::kCast;
  e.name = "cast";
  e.cast_type = *named;
  e.bound.type = *named;
  e.height = 3;
  e.args.push_back(std::move(row));
  return absl::OkStatus();
}

absl::Status BindColumn(Expr& e, const Schema& schema, std::string_view sql) {
  int found = -1;
  for (size_t i = 0; i < schema.size(); ++i) {
    if (schema[i].name == e.name &&
        (e.qualifier.empty() ? !schema[i].hidden : schema[i].qualifier == e.qualifier)) {
      if (found >= 0) {
        return SqlError(sql, e.pos, StrCat("column \"", e.name, "\" is ambiguous"));
      }
      found = static_cast<int>(i);
    }
  }
  if (found < 0 && !e.qualifier.empty()) {
    // r.name where r is a row column: the row's field.
    for (size_t i = 0; i < schema.size(); ++i) {
      if (schema[i].hidden || schema[i].name != e.qualifier ||
          KindOf(schema[i].type) != TypeKind::kRow) {
        continue;
      }
      const std::vector<RowField>& fields = RowFields(schema[i].type);
      for (size_t f = 0; f < fields.size(); ++f) {
        if (fields[f].name != e.name) continue;
        auto row = std::make_unique<Expr>();
        row->kind = ExprKind::kColumn;
        row->pos = e.pos;
        row->name = e.qualifier;
        row->bound.column = static_cast<int>(i);
        row->bound.type = schema[i].type;
        auto index = std::make_unique<Expr>();
        index->pos = e.pos;
        index->literal = Datum::Bigint(static_cast<int64_t>(f));
        index->bound.type = DataType::kBigint;
        e.kind = ExprKind::kCall;
        e.args.push_back(std::move(row));
        e.args.push_back(std::move(index));
        e.name = "field";
        e.qualifier.clear();
        e.bound.function = FunctionRegistry::Get().FindScalar("field");
        e.bound.type = fields[f].type;
        return absl::OkStatus();
      }
    }
  }
  if (found < 0 && e.qualifier.empty() && !e.quoted) {
    std::vector<size_t> columns;  // of a table of this name
    for (size_t i = 0; i < schema.size(); ++i) {
      if (!schema[i].hidden && schema[i].qualifier == e.name) columns.push_back(i);
    }
    if (!columns.empty()) return BindWholeRow(e, schema, columns, sql);
  }
  if (found < 0) {
    std::vector<std::string_view> names;
    for (const ColumnInfo& c : schema) names.push_back(c.name);
    std::string message = StrCat("column \"", e.name, "\" does not exist");
    std::string hint = DidYouMean(e.name, names);
    if (!hint.empty()) {
      message += hint;
    } else if (e.quoted) {
      message += StrCat("; if you meant the text '", e.name,
                        "', write it with single quotes: double quotes name columns");
    }
    return SqlError(sql, e.pos, message);
  }
  e.bound.column = found;
  e.bound.type = schema[found].type;
  return absl::OkStatus();
}

absl::Status TypeError(std::string_view sql, const Expr& e, std::string_view message) {
  return SqlError(sql, e.pos, message);
}

}  // namespace

bool CanFail(const Expr& expr) {
  if (expr.kind == ExprKind::kCall && expr.bound.function != nullptr &&
      expr.bound.function->catches_errors) {
    return false;
  }
  if (expr.kind == ExprKind::kCast && expr.name != "try_cast") return true;
  // || fails past kMaxTextBytes.
  if (expr.kind == ExprKind::kBinary && expr.name == "||") return true;
  // 64-bit integer arithmetic fails on overflow (checked_math.h).
  const bool integer = expr.bound.type == DataType::kBigint ||
                       expr.bound.type == DataType::kTimestamp ||
                       expr.bound.type == DataType::kInterval;
  if (integer && (expr.kind == ExprKind::kUnary ||
                  (expr.kind == ExprKind::kBinary && expr.name != "||"))) {
    return true;
  }
  if (expr.kind == ExprKind::kCall && expr.bound.function != nullptr &&
      expr.bound.function->can_fail) {
    return true;
  }
  for (const auto& a : expr.args) {
    if (CanFail(*a)) return true;
  }
  return false;
}

bool ContainsAggregate(const Expr& expr) {
  if (expr.kind == ExprKind::kCall && !expr.window &&
      FunctionRegistry::Get().FindAggregate(expr.name) != nullptr) {
    return true;
  }
  for (const auto& a : expr.args) {
    if (ContainsAggregate(*a)) return true;
  }
  return false;
}

// The constants of a long IN list, by their key encoding (AppendKey), which
// is equal exactly when Compare says the values are equal.
struct InList {
  absl::flat_hash_set<std::string> keys;
  bool has_null = false;
  DataType tested = DataType::kUnknown;  // the type of the value looked up
  // A list of rows: keys only for rows whose fields are all plain values, the others (a NULL
  // or NaN field, NULL itself) compared one by one, as is a tested row that has such a field.
  bool rows = false;
  std::vector<Datum> unkeyed;
};

namespace {
// Shorter lists compare one by one.
constexpr size_t kInListHashThreshold = 16;
}  // namespace

bool ContainsWindow(const Expr& expr) {
  if (expr.kind == ExprKind::kCall && expr.window) return true;
  for (const auto& a : expr.args) {
    if (ContainsWindow(*a)) return true;
  }
  return false;
}

namespace {
std::optional<Datum> Convert(const Datum& v, DataType to);
}  // namespace

// A varchar literal compared with a timestamp is read as one, as
// PostgreSQL does: `time BETWEEN '2024-01-01T00:00:00Z' AND '...'` is what
// Grafana's $__timeFilter sends. Only literals: a varchar column stays text.
// An untyped parameter's text (Expr::untyped) takes the other side's type,
// whichever it is.
absl::Status CoerceTimestampLiteral(Expr& e, DataType other, std::string_view sql) {
  if (e.kind != ExprKind::kLiteral || e.literal.type != DataType::kVarchar) {
    return absl::OkStatus();
  }
  if (e.untyped && other != DataType::kVarchar && other != DataType::kUnknown) {
    if (e.literal.null) {
      e.literal = Datum::Null(other);
      e.bound.type = other;
      return absl::OkStatus();
    }
    if (other != DataType::kTimestamp) {
      std::optional<Datum> value = Convert(e.literal, other);
      if (!value) {
        return SqlError(sql, e.pos, StrCat("parameter value '", EchoInput(e.literal.s),
                                           "' is not a ", TypeName(other)));
      }
      e.literal = *std::move(value);
      e.bound.type = other;
      return absl::OkStatus();
    }
  }
  if ((other == DataType::kDate || other == DataType::kTime) && !e.literal.null) {
    const bool date = other == DataType::kDate;
    std::optional<Datum> value = date ? ParseDate(e.literal.s) : ParseTime(e.literal.s);
    if (!value) {
      return SqlError(sql, e.pos, StrCat("'", EchoInput(e.literal.s), "' is not a ",
                                         date ? "date; write '2023-05-17'"
                                              : "time of day; write '20:54:39'"));
    }
    e.literal = *std::move(value);
    e.bound.type = other;
    return absl::OkStatus();
  }
  if (other != DataType::kTimestamp || e.literal.null) return absl::OkStatus();
  std::optional<int64_t> nanos = TimestampTextInZone(e.literal.s, e.session_zone);
  if (!nanos) {
    return SqlError(sql, e.pos, StrCat("'", EchoInput(e.literal.s), "' is not a timestamp; write "
                                       "'2023-05-17 20:54:39' or '2023-05-17T20:54:39Z'"));
  }
  e.literal = Datum::Timestamp(*nanos);
  e.bound.type = DataType::kTimestamp;
  return absl::OkStatus();
}

namespace {

// Wraps a bound expression in CAST(... AS to): Presto's implicit coercions.
void ImplicitCast(ExprPtr& e, DataType to) {
  auto cast = std::make_unique<Expr>();
  cast->kind = ExprKind::kCast;
  cast->pos = e->pos;
  cast->name = "cast";
  cast->cast_type = to;
  cast->bound.type = to;
  cast->height = e->height + 1;
  cast->args.push_back(std::move(e));
  e = std::move(cast);
}

// A bound DATE as the TIMESTAMP of its midnight: in the session's zone when the statement has
// one (timestamp_in_zone: query/parse/session_zone.h), else in UTC.
void DateAsTimestamp(ExprPtr& e, const SessionZone& zone) {
  if (zone == nullptr) return ImplicitCast(e, DataType::kTimestamp);
  auto name = std::make_unique<Expr>();
  name->kind = ExprKind::kLiteral;
  name->pos = e->pos;
  name->literal = Datum::Varchar(*zone);
  name->bound.type = DataType::kVarchar;
  auto call = std::make_unique<Expr>();
  call->kind = ExprKind::kCall;
  call->pos = e->pos;
  call->name = "timestamp_in_zone";
  call->session_zone = zone;
  call->bound.function = FunctionRegistry::Get().FindScalar(call->name);
  call->bound.type = DataType::kTimestamp;
  call->height = e->height + 1;
  call->args.push_back(std::move(e));
  call->args.push_back(std::move(name));
  e = std::move(call);
}

// The session's zone of a node the parser made, or of one of its operands.
SessionZone ZoneOf(const std::vector<ExprPtr*>& operands) {
  for (const ExprPtr* e : operands) {
    if ((*e)->session_zone != nullptr) return (*e)->session_zone;
  }
  return nullptr;
}
SessionZone ZoneOf(std::initializer_list<const Expr*> nodes) {
  for (const Expr* e : nodes) {
    if (e->session_zone != nullptr) return e->session_zone;
  }
  return nullptr;
}

// `e`, a bound wall-clock TIMESTAMP of a statement under a session's zone, made
// from_wall_clock(e, zone) in its place. The wrapped node forgets the zone, so that binding
// the tree again does not wrap it twice.
void FromWallClockInPlace(Expr& e) {
  const SessionZone zone = e.session_zone;
  auto inner = std::make_unique<Expr>(std::move(e));
  inner->session_zone = nullptr;
  auto name = std::make_unique<Expr>();
  name->kind = ExprKind::kLiteral;
  name->pos = inner->pos;
  name->literal = Datum::Varchar(*zone);
  name->bound.type = DataType::kVarchar;
  e = Expr();
  e.kind = ExprKind::kCall;
  e.pos = inner->pos;
  e.name = "from_wall_clock";
  e.session_zone = zone;
  e.bound.function = FunctionRegistry::Get().FindScalar(e.name);
  e.bound.type = DataType::kTimestamp;
  e.height = inner->height + 1;
  e.args.push_back(std::move(inner));
  e.args.push_back(std::move(name));
}

// `days`, a bound BIGINT, as `days * INTERVAL '1' DAY`, bound.
void DaysToInterval(ExprPtr& days) {
  auto day = std::make_unique<Expr>();
  day->kind = ExprKind::kLiteral;
  day->pos = days->pos;
  day->literal = Datum::Interval(kNanosPerDay);
  day->bound.type = DataType::kInterval;
  auto times = std::make_unique<Expr>();
  times->kind = ExprKind::kBinary;
  times->pos = days->pos;
  times->name = "*";
  times->bound.type = DataType::kInterval;
  times->height = days->height + 1;
  times->args.push_back(std::move(days));
  times->args.push_back(std::move(day));
  days = std::move(times);
}

// A DATE compared with a TIMESTAMP is its midnight: CAST the DATE sides of
// `operands` when any of them is a TIMESTAMP.
void CoerceDatesToTimestamps(std::vector<ExprPtr*> operands) {
  const bool timestamps = std::any_of(operands.begin(), operands.end(), [](ExprPtr* e) {
    return (*e)->bound.type == DataType::kTimestamp;
  });
  if (!timestamps) return;
  const SessionZone zone = ZoneOf(operands);
  for (ExprPtr* e : operands) {
    if ((*e)->bound.type == DataType::kDate) DateAsTimestamp(*e, zone);
  }
}

// Casts Presto refuses: calendar values to and from numbers and booleans,
// and between the kinds of time that do not convert (a time of day to a
// date, an interval to anything but text).
bool CastAllowed(DataType from, DataType to) {
  if (from == to || from == DataType::kUnknown || to == DataType::kVarchar || IsText(from) ||
      to == DataType::kJson) {
    return true;
  }
  switch (to) {
    case DataType::kDate:
    case DataType::kTime: return from == DataType::kTimestamp;
    case DataType::kTimestamp: return from == DataType::kDate || from == DataType::kBigint;
    case DataType::kIntervalYearToMonth: return false;
    default: return !IsCalendarType(from);
  }
}

// NOT and unary minus.
absl::Status BindUnary(Expr& e, std::string_view sql) {
  auto arg_type = [&e](size_t i) { return e.args[i]->bound.type; };
  if (e.name == "NOT") {
    if (arg_type(0) != DataType::kBoolean && arg_type(0) != DataType::kUnknown) {
      return TypeError(sql, e, StrCat("NOT needs a boolean, not ", TypeName(arg_type(0))));
    }
    e.bound.type = DataType::kBoolean;
  } else {
    if (!IsNumeric(arg_type(0)) && arg_type(0) != DataType::kInterval &&
        arg_type(0) != DataType::kIntervalYearToMonth && arg_type(0) != DataType::kUnknown) {
      return TypeError(sql, e, StrCat("cannot negate a ", TypeName(arg_type(0))));
    }
    e.bound.type = arg_type(0);
  }
  return absl::OkStatus();
}

// AND/OR, comparisons, || and arithmetic.
// `a || b` where a side is an array becomes the call it is (true; the caller binds it):
// array_cat of two arrays of one depth (or of an array and NULL), array_append of an
// array and an element (an array of arrays and an array included), array_prepend of an
// element and an array. False for other operands.
bool ArrayConcatenation(Expr& e) {
  const DataType a = e.args[0]->bound.type, b = e.args[1]->bound.type;
  const bool a_array = KindOf(a) == TypeKind::kArray, b_array = KindOf(b) == TypeKind::kArray;
  if (!a_array && !b_array) return false;
  if (a_array && b_array) {
    e.name = ElementType(a) == b   ? "array_append"
             : ElementType(b) == a ? "array_prepend"
                                   : "array_cat";
  } else if (a_array) {
    e.name = b == DataType::kUnknown ? "array_cat" : "array_append";
  } else {
    e.name = a == DataType::kUnknown ? "array_cat" : "array_prepend";
  }
  e.kind = ExprKind::kCall;
  return true;
}

// PostgreSQL's jsonb operators over the JSON type, as calls of their functions
// (functions_jsonb_operators.cc): `a || b` when both are JSON (PostgreSQL's json has no ||)
// or one is and the other a text literal that is JSON; `a - x` with a JSON `a`; and `a @> b`
// (the parser's array_has_all, `<@` swapped) when either is JSON. False for anything else.
bool JsonOperator(Expr& e) {
  if (e.args.size() != 2) return false;
  auto json = [&e](size_t i) { return e.args[i]->bound.type == DataType::kJson; };
  auto json_literal = [&e](size_t i) {
    const Expr& a = *e.args[i];
    return a.kind == ExprKind::kLiteral && a.literal.type == DataType::kVarchar &&
           !a.literal.null && json::Check(a.literal.s).ok();
  };
  if (e.kind == ExprKind::kBinary && e.name == "||") {
    if (!(json(0) && (json(1) || json_literal(1))) && !(json(1) && json_literal(0))) return false;
    e.name = "jsonb_concat";
  } else if (e.kind == ExprKind::kBinary && e.name == "-") {
    if (!json(0)) return false;
    e.name = "jsonb_delete";
  } else if (e.kind == ExprKind::kCall && e.name == "array_has_all") {
    if (!json(0) && !json(1)) return false;
    e.name = "jsonb_contains";
  } else {
    return false;
  }
  e.kind = ExprKind::kCall;
  return true;
}

absl::Status BindBinary(Expr& e, std::string_view sql) {
  auto arg_type = [&e](size_t i) { return e.args[i]->bound.type; };
  const std::string& op = e.name;
  DataType a = arg_type(0), b = arg_type(1);
  if (op == "AND" || op == "OR") {
    for (DataType t : {a, b}) {
      if (t != DataType::kBoolean && t != DataType::kUnknown) {
        return TypeError(sql, e, StrCat(op, " needs booleans, not ", TypeName(t)));
      }
    }
    e.bound.type = DataType::kBoolean;
  } else if (op == "=" || op == "<>" || op == "<" || op == "<=" || op == ">" || op == ">=" ||
             op == "IS DISTINCT FROM" || op == "IS NOT DISTINCT FROM") {
    RETURN_IF_ERROR(CoerceTimestampLiteral(*e.args[0], b, sql));
    RETURN_IF_ERROR(CoerceTimestampLiteral(*e.args[1], a, sql));
    CoerceDatesToTimestamps({&e.args[0], &e.args[1]});
    a = arg_type(0);
    b = arg_type(1);
    if (!Comparable(a, b)) {
      std::string hint;
      if (a == DataType::kTimestamp && b == DataType::kVarchar) {
        hint = "; write a timestamp as TIMESTAMP '2023-05-17 20:54:39'";
      }
      return TypeError(sql, e, StrCat("cannot compare ", TypeName(a), " with ", TypeName(b), hint));
    }
    e.bound.type = DataType::kBoolean;
  } else if (op == "||") {
    // PostgreSQL's text || a value of another scalar type joins that value's text.
    const auto scalar = [](DataType t) {
      return !IsComposite(t) && t != DataType::kUnknown && t != DataType::kVarchar;
    };
    if (a == DataType::kVarchar && scalar(b)) ImplicitCast(e.args[1], DataType::kVarchar);
    if (b == DataType::kVarchar && scalar(a)) ImplicitCast(e.args[0], DataType::kVarchar);
    a = arg_type(0);
    b = arg_type(1);
    if ((a != DataType::kVarchar && a != DataType::kUnknown) ||
        (b != DataType::kVarchar && b != DataType::kUnknown)) {
      return TypeError(sql, e,
                       "|| joins text (a value of another type beside it as its text) or "
                       "arrays; CAST the values to varchar first");
    }
    e.bound.type = DataType::kVarchar;
  } else {
    const auto is_time = [](DataType t) {
      return t == DataType::kDate || t == DataType::kTimestamp;
    };
    // PostgreSQL's DATE ± integer moves the date by whole days: the integer becomes
    // n * INTERVAL '1' DAY (Presto refuses it; DATE + INTERVAL is what it takes).
    if ((op == "+" || op == "-") && a == DataType::kDate && b == DataType::kBigint) {
      DaysToInterval(e.args[1]);
      b = arg_type(1);
    } else if (op == "+" && a == DataType::kBigint && b == DataType::kDate) {
      DaysToInterval(e.args[0]);
      a = arg_type(0);
    }
    if (op == "-" && is_time(a) && is_time(b) && (a == DataType::kDate || b == DataType::kDate)) {
      // A DATE in a difference of times is its midnight: DATE - DATE is an interval of
      // whole days, as TIMESTAMP - TIMESTAMP is an interval.
      const SessionZone zone = ZoneOf({&e, e.args[0].get(), e.args[1].get()});
      for (ExprPtr* side : {&e.args[0], &e.args[1]}) {
        if ((*side)->bound.type == DataType::kDate) DateAsTimestamp(*side, zone);
      }
      a = arg_type(0);
      b = arg_type(1);
    }
    DataType t = ArithmeticType(op, a, b);
    if (t == DataType::kUnknown && !(a == DataType::kUnknown && b == DataType::kUnknown)) {
      return TypeError(sql, e, StrCat("cannot apply ", op, " to ", TypeName(a), " and ",
                                      TypeName(b)));
    }
    e.bound.type = t;
    if (t == DataType::kTimestamp && (a == DataType::kDate || b == DataType::kDate) &&
        e.session_zone != nullptr) {
      // DATE + INTERVAL, DATE + TIME: PostgreSQL's timestamp, a wall-clock time, which a
      // session's zone reads as its own (query/parse/session_zone.h).
      FromWallClockInPlace(e);
    }
  }
  return absl::OkStatus();
}

// A scalar function call (aggregates and lambda calls are bound elsewhere).
// pg_typeof's answer: PostgreSQL's name of a scalar type, of an array of scalars with "[]",
// "unknown" for a bare NULL, and Strata's name of other composite types.
std::string PostgresTypeOf(DataType type) {
  if (type == DataType::kUnknown) return "unknown";
  if (KindOf(type) == TypeKind::kArray && !IsComposite(ElementType(type)) &&
      ElementType(type) != DataType::kUnknown) {
    return StrCat(PostgresTypeName(ElementType(type)), "[]");
  }
  return std::string(IsComposite(type) ? TypeName(type) : PostgresTypeName(type));
}

// Whether a call below `e` was taken by the plan's aggregation or its windows.
bool HoldsAggregateOrWindow(const Expr& e) {
  return std::any_of(e.args.begin(), e.args.end(), [](const ExprPtr& a) {
    return a->bound.aggregate >= 0 || a->window != nullptr || a->bound.window >= 0 ||
           HoldsAggregateOrWindow(*a);
  });
}

}  // namespace

absl::Status NoSuchScalarFunction(const Expr& e, std::string_view sql) {
  if (FunctionRegistry::Get().FindScalar(e.name) != nullptr) return absl::OkStatus();
  if (FindRefusedFunction(e.name) != nullptr) {
    return SqlError(
        absl::StatusCode::kUnimplemented, sql, e.pos,
        StrCat("function ", e.name, "() is not supported: ", FindRefusedFunction(e.name)->reason));
  }
  if (e.name == "grouping") {
    // The planner answers it where it may stand (query/parse/grouping_sets.h).
    return SqlError(sql, e.pos,
                    "grouping() belongs in the select list, HAVING or ORDER BY of a GROUP BY");
  }
  return SqlError(sql, e.pos,
                  StrCat("function ", e.name, "() does not exist",
                         DidYouMean(e.name, FunctionRegistry::Get().Names())));
}

namespace {

absl::Status BindCall(Expr& e, std::string_view sql) {
  const ScalarFunction* f = FunctionRegistry::Get().FindScalar(e.name);
  if (e.name == "field" && e.args.size() == 2 && e.args[1]->kind == ExprKind::kLiteral &&
      e.args[1]->literal.type == DataType::kVarchar) {
    // (expr).name, as the parser writes it: the field's name becomes its index.
    const DataType row = e.args[0]->bound.type;
    const std::string name = e.args[1]->literal.s;
    if (KindOf(row) != TypeKind::kRow) {
      return SqlError(sql, e.pos,
                      StrCat(".", name, " reads a field of a row, not of ", TypeName(row)));
    }
    const std::vector<RowField>& fields = RowFields(row);
    std::vector<std::string_view> names;
    std::string listed;
    for (const RowField& field : fields) {
      names.push_back(field.name);
      listed += StrCat(listed.empty() ? "" : ", ", field.name);
    }
    const auto at = std::find(names.begin(), names.end(), name);
    if (at == names.end()) {
      return SqlError(sql, e.pos,
                      StrCat("the row has no field \"", name, "\"", DidYouMean(name, names),
                             " (its fields: ", listed, ")"));
    }
    e.args[1]->literal = Datum::Bigint(at - names.begin());
    e.args[1]->bound.type = DataType::kBigint;
  }
  if (e.name == "field" && e.args.size() == 2 && e.args[1]->kind == ExprKind::kLiteral) {
    // r.name, rewritten by BindColumn (and bound again here by a rebind).
    const std::vector<RowField>& fields = RowFields(e.args[0]->bound.type);
    const int64_t index = e.args[1]->literal.i;
    if (index >= 0 && index < static_cast<int64_t>(fields.size())) {
      e.bound.function = f;
      e.bound.type = fields[index].type;
      return absl::OkStatus();
    }
  }
  if (f == nullptr) return NoSuchScalarFunction(e, sql);
  if (e.distinct) return SqlError(sql, e.pos, "DISTINCT is only for aggregate functions");
  if (e.ordered_by) {
    return SqlError(sql, e.pos,
                    StrCat("ORDER BY inside a call is only for aggregate functions, "
                           "and ",
                           e.name, "() is not one"));
  }
  std::vector<DataType> types;
  for (const auto& a : e.args) types.push_back(a->bound.type);
  auto type = f->bind(types);
  // Binds again with the argument types `widen` changes, casting those arguments if that binds.
  const auto retry_widened = [&](auto widen) {
    std::vector<DataType> widened = types;
    for (DataType& t : widened) t = widen(t);
    if (widened == types) return;
    if (auto retried = f->bind(widened); retried.ok()) {
      for (ExprPtr& a : e.args) {
        const DataType to = widen(a->bound.type);
        if (to == DataType::kTimestamp && a->bound.type == DataType::kDate) {
          DateAsTimestamp(a, e.session_zone);
        } else if (to != a->bound.type) {
          ImplicitCast(a, to);
        }
      }
      type = retried;
    }
  };
  if (!type.ok()) {
    // A function of timestamps takes a DATE as its midnight.
    retry_widened([](DataType t) { return t == DataType::kDate ? DataType::kTimestamp : t; });
  }
  if (!type.ok()) {
    // A text literal that reads as a timestamp is one where the function takes no text there
    // (PostgreSQL's untyped literal: date_bin('20 minutes', time, '2024-03-01')).
    std::vector<DataType> widened = types;
    for (size_t i = 0; i < e.args.size(); ++i) {
      const Expr& a = *e.args[i];
      if (a.kind == ExprKind::kLiteral && a.literal.type == DataType::kVarchar && !a.literal.null &&
          ParseTimestamp(a.literal.s)) {
        widened[i] = DataType::kTimestamp;
      }
    }
    if (auto retried = widened == types ? type : f->bind(widened); retried.ok()) {
      for (size_t i = 0; i < e.args.size(); ++i) {
        if (widened[i] != types[i]) {
          RETURN_IF_ERROR(CoerceTimestampLiteral(*e.args[i], DataType::kTimestamp, sql));
        }
      }
      type = retried;
    }
  }
  if (!type.ok() && (e.name == "concat" || e.name == "concat_ws")) {
    // PostgreSQL's concat joins any values' texts, as || does (Timestream's takes texts only).
    retry_widened([](DataType t) {
      return IsComposite(t) || t == DataType::kUnknown ? t : DataType::kVarchar;
    });
  }
  if (!type.ok()) {
    return SqlError(sql, e.pos, StrCat(e.name, "(): ", type.status().message()));
  }
  e.bound.type = *type;
  e.bound.function = f;
  if (e.name == "typeof" || e.name == "pg_typeof") {
    // The argument's type is known before any row is read: the call is that constant, which
    // a rebind (and a cluster fragment's SQL text) keeps, and its argument is not evaluated.
    const DataType type = e.args[0]->bound.type;
    e.kind = ExprKind::kLiteral;
    e.literal =
        Datum::Varchar(e.name == "typeof" ? std::string(TypeName(type)) : PostgresTypeOf(type));
    // An aggregate or window call in the argument stays: the plan's aggregation (or window)
    // reads its arguments where they are, and freeing them crashed the server
    // (pg_typeof(array_agg(x)) over a table).
    if (!HoldsAggregateOrWindow(e)) e.args.clear();
    e.bound.function = nullptr;
  }
  return absl::OkStatus();
}

// CASE: a boolean per WHEN, and one type for every branch.
absl::Status BindCase(Expr& e, std::string_view sql) {
  size_t i = e.has_operand ? 1 : 0;
  size_t end = e.args.size() - (e.has_else ? 1 : 0);
  DataType result = DataType::kUnknown;
  auto merge = [&](const Expr& branch) -> absl::Status {
    DataType t = branch.bound.type;
    if (t == DataType::kUnknown) return absl::OkStatus();
    if (result == DataType::kUnknown || result == t) {
      result = t;
    } else if (IsNumeric(result) && IsNumeric(t)) {
      result = DataType::kDouble;
    } else {
      return TypeError(sql, branch, StrCat("CASE branches mix ", TypeName(result), " and ",
                                           TypeName(t)));
    }
    return absl::OkStatus();
  };
  for (; i + 1 < end; i += 2) {
    DataType cond = e.args[i]->bound.type;
    if (!e.has_operand && cond != DataType::kBoolean && cond != DataType::kUnknown) {
      return TypeError(sql, *e.args[i],
                       StrCat(e.filtered ? "FILTER (WHERE ...)" : "WHEN",
                              " needs a boolean condition, not ", TypeName(cond)));
    }
    RETURN_IF_ERROR(merge(*e.args[i + 1]));
  }
  if (e.has_else) RETURN_IF_ERROR(merge(*e.args.back()));
  e.bound.type = result;
  return absl::OkStatus();
}

absl::Status BindCast(Expr& e, std::string_view sql) {
  auto arg_type = [&e](size_t i) { return e.args[i]->bound.type; };
  const DataType from = arg_type(0), to = e.cast_type;
  // VARCHAR to an array or a map reads the text as JSON (FromJson), or to an array as
  // PostgreSQL's array text (FromPostgresArrayText).
  const bool from_json =
      IsText(from) && (KindOf(to) == TypeKind::kArray || KindOf(to) == TypeKind::kMap);
  if ((IsComposite(from) || IsComposite(to)) && from != DataType::kUnknown &&
      to != DataType::kVarchar && to != DataType::kJson && !from_json &&
      (KindOf(from) != KindOf(to) || RowFields(from).size() != RowFields(to).size())) {
    return TypeError(sql, e, StrCat("cannot cast ", TypeName(from), " to ", TypeName(to)));
  }
  if (!IsComposite(from) && !IsComposite(to) && !CastAllowed(from, to)) {
    return TypeError(sql, e, StrCat("cannot cast ", TypeName(from), " to ", TypeName(to)));
  }
  e.bound.type = to;
  return absl::OkStatus();
}

// True if two rows' keys are equal exactly when `=` says the rows are: each field a value of
// the same type in both, or numbers (whose keys are their values).
bool RowKeysCompare(DataType tested, DataType listed) {
  const std::vector<RowField>& x = RowFields(tested);
  const std::vector<RowField>& y = RowFields(listed);
  if (x.size() != y.size()) return false;
  for (size_t i = 0; i < x.size(); ++i) {
    const bool same = x[i].type == y[i].type && !IsComposite(x[i].type);
    if (!same && !(IsNumeric(x[i].type) && IsNumeric(y[i].type))) return false;
  }
  return true;
}

// A row none of whose fields is NULL or NaN: its key matches another's exactly when `=` holds.
bool KeyedRow(const Datum& row) {
  if (row.null || !row.nested) return false;
  return std::none_of(row.nested->values.begin(), row.nested->values.end(),
                      [](const Datum& f) { return f.null || IsNaN(f); });
}

// The keys of IN's constants, for a lookup in place of comparing them one by one; nullptr for
// rows whose keys would not compare as `=` does (RowKeysCompare).
std::shared_ptr<const InList> HashedInList(const std::vector<const Datum*>& constants,
                                           DataType tested, DataType listed) {
  const bool rows = KindOf(tested) == TypeKind::kRow;
  if (rows && !RowKeysCompare(tested, listed)) return nullptr;
  auto list = std::make_shared<InList>();
  list->tested = tested;
  list->rows = rows;
  list->keys.reserve(constants.size());
  for (const Datum* v : constants) {
    if (rows && !KeyedRow(*v)) {
      list->unkeyed.push_back(*v);
      continue;
    }
    if (v->null) {
      list->has_null = true;
      continue;
    }
    std::string key;
    AppendKey(*v, &key);
    list->keys.insert(std::move(key));
  }
  return list;
}

// x IN (the elements of an array literal), Expr::in_array: each element checked and coerced
// as the same value spelled out in the list would be (an untyped text to the tested type,
// text to a timestamp, a date beside timestamps to one), the literal rewritten so when that
// changes an element. Bound again (a plan binds its WHERE more than once), it keeps its keys.
absl::Status BindInArray(Expr& e, std::string_view sql) {
  Expr& list = *e.args[1];
  const DataType tested = e.args[0]->bound.type;
  if (e.bound.in_list != nullptr && e.bound.in_list->tested == tested) return absl::OkStatus();
  const std::vector<Datum>& items = list.literal.items();
  DataType type = ElementType(list.literal.type);
  // The elements as coerced; empty while each is as the literal holds it (the usual case:
  // a typed list, or text tested against text), which saves a copy of a long list.
  std::vector<Datum> coerced;
  auto differs_at = [&](size_t i) {
    if (coerced.empty()) coerced.assign(items.begin(), items.begin() + i);
  };
  Expr element;  // each element in turn, as a literal of a spelled-out list
  element.kind = ExprKind::kLiteral;
  element.pos = list.pos;
  element.untyped = list.untyped;
  for (size_t i = 0; i < items.size(); ++i) {
    element.literal = items[i];
    element.bound.type = items[i].type;
    RETURN_IF_ERROR(CoerceTimestampLiteral(element, tested, sql));
    if (!element.literal.null) type = element.literal.type;
    if (coerced.empty() && element.literal.type == items[i].type) continue;
    differs_at(i);
    coerced.push_back(std::move(element.literal));
  }
  if (tested == DataType::kDate && type == DataType::kTimestamp) {
    ImplicitCast(e.args[0], DataType::kTimestamp);
  } else if (tested == DataType::kTimestamp && type == DataType::kDate) {
    differs_at(items.size());
    for (Datum& v : coerced) {
      if (!v.null) v = Datum::Timestamp(MidnightOf(v.i));
    }
    type = DataType::kTimestamp;
  }
  if (!Comparable(e.args[0]->bound.type, type)) {
    return TypeError(
        sql, list,
        StrCat("IN list value is ", TypeName(type), " but the tested value is ", TypeName(tested)));
  }
  const std::vector<Datum>& values = coerced.empty() ? items : coerced;
  if (std::any_of(values.begin(), values.end(),
                  [type](const Datum& v) { return v.type != type; })) {
    differs_at(items.size());
    for (Datum& v : coerced) {
      if (v.null) v.type = type;
    }
  }
  if (!coerced.empty()) {
    const std::optional<DataType> array_type = ArrayOf(type);
    if (!array_type) return SqlError(sql, list.pos, TooManyTypesMessage());
    list.literal = Datum::Composite(*array_type, std::move(coerced));
    list.bound.type = *array_type;
  }
  list.untyped = false;
  e.bound.type = DataType::kBoolean;
  e.bound.in_list = HashedInList(*InListConstants(e), e.args[0]->bound.type, type);
  return absl::OkStatus();
}

// x IN (list): comparable values; a long literal list becomes a hash set.
absl::Status BindIn(Expr& e, std::string_view sql) {
  if (e.in_array) return BindInArray(e, sql);
  auto arg_type = [&e](size_t i) { return e.args[i]->bound.type; };
  std::vector<ExprPtr*> operands;
  for (ExprPtr& a : e.args) operands.push_back(&a);
  for (size_t i = 1; i < e.args.size(); ++i) {
    RETURN_IF_ERROR(CoerceTimestampLiteral(*e.args[i], arg_type(0), sql));
  }
  CoerceDatesToTimestamps(std::move(operands));
  for (size_t i = 1; i < e.args.size(); ++i) {
    if (!Comparable(arg_type(0), arg_type(i))) {
      return TypeError(sql, *e.args[i], StrCat("IN list value is ", TypeName(arg_type(i)),
                                               " but the tested value is ",
                                               TypeName(arg_type(0))));
    }
  }
  e.bound.type = DataType::kBoolean;
  std::optional<std::vector<const Datum*>> constants;
  if (e.args.size() > kInListHashThreshold) constants = InListConstants(e);
  if (constants) {
    // Rows are keyed when every one is of one type (a BIGINT beside a DOUBLE field, a NULL
    // row: compared field by field).
    const DataType listed = (*constants)[0]->type;
    const bool one_type = std::all_of(constants->begin(), constants->end(),
                                      [&](const Datum* v) { return v->type == listed; });
    if (KindOf(arg_type(0)) != TypeKind::kRow || one_type) {
      e.bound.in_list = HashedInList(*constants, arg_type(0), listed);
    }
  }
  return absl::OkStatus();
}

}  // namespace

void CastJsonToText(std::vector<ExprPtr>& args) {
  for (ExprPtr& a : args) {
    if (a->kind != ExprKind::kStar && a->bound.type == DataType::kJson) {
      ImplicitCast(a, DataType::kVarchar);
    }
  }
}

namespace {

// True if every one of `args` is JSON or a NULL of no type.
bool AllJsonOrNull(const std::vector<const Expr*>& args) {
  return std::all_of(args.begin(), args.end(), [](const Expr* a) {
    return a->bound.type == DataType::kJson || a->bound.type == DataType::kUnknown;
  });
}

// Whether `e` takes its JSON arguments as JSON: a cast, IS NULL, the functions that keep JSON
// (the constructors: ScalarFunction::keeps_json), and a coalesce or a CASE whose values are
// all JSON. Every other operator and function reads JSON as its VARCHAR text (PostgreSQL's
// json has no operators of its own beyond ->, which are functions of the text here).
bool KeepsJson(const Expr& e) {
  switch (e.kind) {
    case ExprKind::kCast:
    case ExprKind::kIsNull:
      return true;
    case ExprKind::kCall: {
      const ScalarFunction* f = FunctionRegistry::Get().FindScalar(e.name);
      if (f != nullptr && f->keeps_json) return true;
      if (e.name == "typeof" || e.name == "pg_typeof") return true;
      std::vector<const Expr*> args;
      for (const ExprPtr& a : e.args) args.push_back(a.get());
      return e.name == "coalesce" && AllJsonOrNull(args);
    }
    case ExprKind::kCase: {
      if (e.has_operand) return false;
      std::vector<const Expr*> values;  // each THEN, and the ELSE
      const size_t end = e.args.size() - (e.has_else ? 1 : 0);
      for (size_t i = 1; i < end; i += 2) values.push_back(e.args[i].get());
      if (e.has_else) values.push_back(e.args.back().get());
      return AllJsonOrNull(values);
    }
    default:
      return false;
  }
}

}  // namespace

absl::Status Bind(Expr& e, const Schema& schema, std::string_view sql) {
  // Pre-bound: a group key's column, a window function's slot.
  if (e.kind == ExprKind::kColumn && (e.bound.column >= 0 || e.bound.window >= 0)) {
    return absl::OkStatus();
  }
  if (e.kind == ExprKind::kCall && FunctionRegistry::Get().FindAggregate(e.name) != nullptr) {
    if (e.bound.aggregate >= 0) return absl::OkStatus();
    return SqlError(sql, e.pos, StrCat("aggregate ", e.name, "() is not allowed here"));
  }
  if (e.kind == ExprKind::kCall) {
    const ScalarFunction* f = FunctionRegistry::Get().FindScalar(e.name);
    if (f != nullptr && f->takes_lambdas) return BindLambdaCall(e, schema, sql);
  }
  if (e.kind == ExprKind::kLambda) {
    return SqlError(sql, e.pos, "a lambda (x -> ...) is only an argument of filter, transform, "
                                "reduce, any_match, all_match, none_match or zip_with");
  }
  for (auto& a : e.args) {
    if (a->kind != ExprKind::kStar) {
      RETURN_IF_ERROR(Bind(*a, schema, sql));
    } else if (e.kind == ExprKind::kCall &&
               FunctionRegistry::Get().FindAggregate(e.name) == nullptr) {
      // upper(*) was a call with no value: NULL on every row.
      return SqlError(sql, a->pos, "* is only allowed in count(*)");
    }
  }
  const bool json_argument = std::any_of(e.args.begin(), e.args.end(), [](const ExprPtr& a) {
    return a->bound.type == DataType::kJson;
  });
  if (json_argument) JsonOperator(e);
  if (json_argument && !KeepsJson(e)) CastJsonToText(e.args);
  auto arg_type = [&e](size_t i) { return e.args[i]->bound.type; };
  switch (e.kind) {
    case ExprKind::kLiteral:
      e.bound.type = e.literal.type;
      return absl::OkStatus();
    case ExprKind::kColumn:
      return BindColumn(e, schema, sql);
    case ExprKind::kStar:
      return SqlError(sql, e.pos, "* is only allowed in the select list and in count(*)");
    case ExprKind::kUnary: return BindUnary(e, sql);
    case ExprKind::kBinary:
      if (e.name == "||" && ArrayConcatenation(e)) return BindCall(e, sql);
      return BindBinary(e, sql);
    case ExprKind::kCall: return BindCall(e, sql);
    case ExprKind::kCase: return BindCase(e, sql);
    case ExprKind::kCast: return BindCast(e, sql);
    case ExprKind::kIn: return BindIn(e, sql);
    case ExprKind::kBetween:
      RETURN_IF_ERROR(CoerceTimestampLiteral(*e.args[1], arg_type(0), sql));
      RETURN_IF_ERROR(CoerceTimestampLiteral(*e.args[2], arg_type(0), sql));
      CoerceDatesToTimestamps({&e.args[0], &e.args[1], &e.args[2]});
      if (!Comparable(arg_type(0), arg_type(1)) || !Comparable(arg_type(0), arg_type(2))) {
        return TypeError(sql, e, "BETWEEN bounds must have the type of the tested value");
      }
      e.bound.type = DataType::kBoolean;
      return absl::OkStatus();
    case ExprKind::kLike:
      for (size_t i = 0; i < e.args.size(); ++i) {
        if (arg_type(i) != DataType::kVarchar && arg_type(i) != DataType::kUnknown) {
          return TypeError(sql, e, "LIKE compares varchar values (and its ESCAPE is one)");
        }
      }
      e.bound.type = DataType::kBoolean;
      return absl::OkStatus();
    case ExprKind::kIsNull:
      e.bound.type = DataType::kBoolean;
      return absl::OkStatus();
    case ExprKind::kSubquery:
    case ExprKind::kExists:
      // The planner answers every subquery before binding (ResolveSubqueries).
      return SqlError(sql, e.pos, "a subquery is not allowed here");
    case ExprKind::kLambda: break;  // refused above
    case ExprKind::kLookup:
      e.bound.type = e.bound.lookup->type;
      return absl::OkStatus();
  }
  return absl::OkStatus();
}

namespace {

// + and - of dates, times of day and timestamps with intervals, and of
// INTERVAL YEAR TO MONTH values (ArithmeticType's calendar cases). Months
// go through the civil calendar; a date moves by whole days only.
Datum CalendarArithmetic(char op, const Datum& a, const Datum& b, DataType type,
                         const EvalContext& context) {
  auto fail = [&](std::string message) {
    if (context.error.empty()) context.error = std::move(message);
    return Datum::Null(type);
  };
  auto out_of_range = [&] {
    return fail(StrCat(a.ToString(), " ", op, " ", b.ToString(), " is outside the range of ",
                       type == DataType::kDate ? "dates" : "timestamps",
                       " (1677-09-21 to 2262-04-11)"));
  };
  if (type == DataType::kTimestamp && (a.type == DataType::kTime || b.type == DataType::kTime)) {
    // A day and a time of day (ArithmeticType): that time on that day, or before it for -.
    const Datum& day = a.type == DataType::kDate ? a : b;
    const Datum& time = a.type == DataType::kTime ? a : b;
    const std::optional<int64_t> at = CheckedIntegerOp(op, MidnightOf(day.i), time.i);
    return at ? Datum::Timestamp(*at) : out_of_range();
  }
  if (type == DataType::kIntervalYearToMonth) {
    std::optional<int64_t> months = CheckedIntegerOp(op, a.i, b.i);
    if (!months || *months > kMaxCalendarMonths || *months < -kMaxCalendarMonths) {
      return fail(StrCat(a.ToString(), " ", op, " ", b.ToString(), " is more than ",
                         kMaxCalendarMonths / 12, " years"));
    }
    return Datum::Months(*months);
  }
  // The point in time (date, time or timestamp) and the signed interval.
  const bool point_first = a.type == type;
  const Datum& point = point_first ? a : b;
  const Datum& by = point_first ? b : a;
  const int64_t sign = op == '-' ? -1 : 1;
  if (type == DataType::kTime) {
    const int64_t step = by.i % kNanosPerDay * sign;
    return Datum::Time(((point.i + step) % kNanosPerDay + kNanosPerDay) % kNanosPerDay);
  }
  const int64_t start = type == DataType::kDate ? MidnightOf(point.i) : point.i;
  std::optional<int64_t> moved;
  if (by.type == DataType::kIntervalYearToMonth) {
    moved = AddMonths(start, by.i * sign);
  } else {
    if (type == DataType::kDate && by.i % kNanosPerDay != 0) {
      return fail(StrCat("cannot add ", by.ToString(), " to the date ", point.ToString(),
                         ": a date moves by whole days; CAST it to timestamp first"));
    }
    std::optional<int64_t> step = CheckedIntegerOp('*', by.i, sign);
    moved = step ? CheckedIntegerOp('+', start, *step) : std::nullopt;
  }
  if (!moved) return out_of_range();
  return type == DataType::kDate ? Datum::Date(DateOfTimestamp(*moved)) : Datum::Timestamp(*moved);
}

// A duration times or divided by a double (ArithmeticType), rounded to the nanosecond.
Datum ScaledInterval(char op, const Datum& a, const Datum& b, const EvalContext& context) {
  const Datum& duration = a.type == DataType::kInterval ? a : b;
  const double by = (a.type == DataType::kInterval ? b : a).AsDouble();
  const auto fail = [&](std::string message) {
    if (context.error.empty()) context.error = std::move(message);
    return Datum::Null(DataType::kInterval);
  };
  if (op == '/' && by == 0) return fail(std::string(kDivisionByZero));
  const double nanos = std::nearbyint(op == '/' ? static_cast<double>(duration.i) / by
                                                : static_cast<double>(duration.i) * by);
  // 2^63 is a double exactly; anything at or past it (or NaN) has no interval.
  if (!(std::fabs(nanos) < 9223372036854775808.0)) {
    return fail(
        StrCat(a.ToString(), " ", op, " ", b.ToString(), " is not an interval of under 292 years"));
  }
  return Datum::Interval(static_cast<int64_t>(nanos));
}

Datum Arithmetic(const std::string& op, const Datum& a, const Datum& b, DataType type,
                 const EvalContext& context) {
  if (a.null || b.null) return Datum::Null(type);
  if (IsCalendarType(type) || IsCalendarType(a.type) || IsCalendarType(b.type) ||
      (type == DataType::kTimestamp && (a.type == DataType::kIntervalYearToMonth ||
                                        b.type == DataType::kIntervalYearToMonth))) {
    return CalendarArithmetic(op[0], a, b, type, context);
  }
  switch (type) {
    case DataType::kDouble: {
      double x = a.AsDouble(), y = b.AsDouble();
      if (op == "+") return Datum::Double(x + y);
      if (op == "-") return Datum::Double(x - y);
      if (op == "*") return Datum::Double(x * y);
      if (op == "/") return Datum::Double(x / y);
      return Datum::Double(std::fmod(x, y));
    }
    case DataType::kBigint:
    case DataType::kInterval:
    case DataType::kTimestamp: {
      if (type == DataType::kInterval &&
          (a.type == DataType::kDouble || b.type == DataType::kDouble)) {
        return ScaledInterval(op[0], a, b, context);
      }
      const char o = op[0];  // + - * / %
      if ((o == '/' || o == '%') && b.i == 0) {
        if (context.error.empty()) context.error = kDivisionByZero;
        return Datum::Null(type);
      }
      std::optional<int64_t> r = CheckedIntegerOp(o, a.i, b.i);
      if (!r) {
        if (context.error.empty()) context.error = OverflowMessage(type, o, a.i, b.i);
        return Datum::Null(type);
      }
      Datum d = Datum::Bigint(*r);
      d.type = type;
      return d;
    }
    default:
      return Datum::Null(type);
  }
}

Datum CompareRows(const std::string& op, const std::vector<Datum>& x, const std::vector<Datum>& y);

Datum Compare(const std::string& op, const Datum& a, const Datum& b) {
  if (a.null || b.null) return Datum::Null(DataType::kBoolean);
  if (KindOf(a.type) == TypeKind::kRow && KindOf(b.type) == TypeKind::kRow &&
      a.items().size() == b.items().size()) {
    return CompareRows(op, a.items(), b.items());
  }
  if (Unordered(a, b)) return Datum::Bool(op == "<>");  // a NaN: only <> holds
  int c = query::Compare(a, b);
  if (op == "=") return Datum::Bool(c == 0);
  if (op == "<>") return Datum::Bool(c != 0);
  if (op == "<") return Datum::Bool(c < 0);
  if (op == "<=") return Datum::Bool(c <= 0);
  if (op == ">") return Datum::Bool(c > 0);
  return Datum::Bool(c >= 0);
}

// Rows field by field, with SQL's NULLs: (1, NULL) = (1, 2) is NULL, (1, NULL) = (2, 2) false;
// an order is decided by the first fields that differ, NULL if a NULL comes first.
Datum CompareRows(const std::string& op, const std::vector<Datum>& x, const std::vector<Datum>& y) {
  const bool equality = op == "=" || op == "<>";
  bool unknown = false;
  for (size_t i = 0; i < x.size(); ++i) {
    const Datum equal = Compare("=", x[i], y[i]);
    if (equal.null) {
      if (!equality) return Datum::Null(DataType::kBoolean);
      unknown = true;
      continue;
    }
    if (equal.i != 0) continue;
    if (equality) return Datum::Bool(op == "<>");
    return Compare(op, x[i], y[i]);
  }
  if (unknown) return Datum::Null(DataType::kBoolean);
  return Datum::Bool(op == "=" || op == "<=" || op == ">=");
}

// A checked JSON value as `to` (an array, a map of its members, or a scalar converted as
// Convert converts the JSON's string, number or boolean); nullopt when it has no such form,
// or an array or map would hold more than kMaxNestedValues.
std::optional<Datum> FromJson(std::string_view value, DataType to) {
  if (to == DataType::kJson) return Datum::Json(std::string(value));
  const json::Kind kind = json::KindOf(value);
  if (kind == json::Kind::kNull) return Datum::Null(to);
  if (KindOf(to) == TypeKind::kArray || KindOf(to) == TypeKind::kMap) {
    const bool array = KindOf(to) == TypeKind::kArray;
    if (kind != (array ? json::Kind::kArray : json::Kind::kObject)) return std::nullopt;
    std::vector<Datum> items;
    std::vector<std::pair<Datum, Datum>> entries;
    bool failed = false;
    if (array) {
      json::AnyElement(value, [&](std::string_view element) {
        std::optional<Datum> item = FromJson(element, ElementType(to));
        if (item) items.push_back(*std::move(item));
        return failed = !item || items.size() > kMaxNestedValues;
      });
      if (failed) return std::nullopt;
      return Datum::Composite(to, std::move(items));
    }
    json::AnyMember(value, [&](const std::string& name, std::string_view member) {
      std::optional<Datum> key = Convert(Datum::Varchar(name), MapKeyType(to));
      std::optional<Datum> item = FromJson(member, ElementType(to));
      if (key && item) entries.emplace_back(*std::move(key), *std::move(item));
      return failed = !key || !item || entries.size() > kMaxNestedValues;
    });
    std::string problem;  // a name written twice: the cast has no answer
    if (failed) return std::nullopt;
    return MakeMap(to, std::move(entries), &problem);
  }
  Datum scalar;
  switch (kind) {
    case json::Kind::kString:
      scalar = Datum::Varchar(*json::ScalarText(value));
      break;
    case json::Kind::kTrue:
    case json::Kind::kFalse:
      scalar = Datum::Bool(kind == json::Kind::kTrue);
      break;
    case json::Kind::kNumber: {
      int64_t whole = 0;
      const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), whole);
      scalar = ec == std::errc() && end == value.data() + value.size()
                   ? Datum::Bigint(whole)
                   : Datum::Double(std::strtod(std::string(value).c_str(), nullptr));
      break;
    }
    default:
      return std::nullopt;  // an array or an object where the type wants a scalar
  }
  return Convert(scalar, to);
}

// PostgreSQL's array text ('{a,"b c",NULL}') as the array type `to`, each element
// converted from its text; nullopt when the text is no such array or an element has no
// form of the element type.
std::optional<Datum> FromPostgresArrayText(std::string_view text, DataType to) {
  std::optional<std::vector<std::optional<std::string>>> elements = SplitPostgresArrayText(text);
  if (!elements) return std::nullopt;
  std::vector<Datum> items;
  items.reserve(elements->size());
  for (std::optional<std::string>& element : *elements) {
    std::optional<Datum> item = element
                                    ? Convert(Datum::Varchar(*std::move(element)), ElementType(to))
                                    : Datum::Null(ElementType(to));
    if (!item) return std::nullopt;
    items.push_back(*std::move(item));
  }
  return Datum::Composite(to, std::move(items));
}

// The text without the spaces, tabs and line ends around it: a number's text may have them,
// as PostgreSQL's and Presto's casts allow ('  12 '::bigint is 12).
std::string_view WithoutSpaceAround(std::string_view text) {
  constexpr std::string_view kSpace = " \t\n\r\f\v";
  const size_t first = text.find_first_not_of(kSpace);
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(kSpace) - first + 1);
}

// A whole number's text ([+-]digits); nullopt for any other text or one past 64 bits (it was
// clamped to the largest bigint: '99999999999999999999'::bigint answered 9223372036854775807).
std::optional<int64_t> BigintOfText(std::string_view text) {
  text = WithoutSpaceAround(text);
  if (text.size() > 1 && text.front() == '+' && text[1] != '-') text.remove_prefix(1);
  int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

// A number's text as a double; nullopt for other text or a finite number past a double's
// range ('1e400' was Infinity).
std::optional<double> DoubleOfText(const std::string& text) {
  const std::string_view number = WithoutSpaceAround(text);
  if (number.empty()) return std::nullopt;
  // strtod reads up to a NUL: a copy only for a text with spaces after the number.
  std::string copy;
  const char* start = number.data();
  if (number.data() + number.size() != text.data() + text.size()) {
    copy = std::string(number);
    start = copy.c_str();
  }
  char* end = nullptr;
  errno = 0;
  const double d = std::strtod(start, &end);
  if (end != start + number.size()) return std::nullopt;
  if (errno == ERANGE && std::isinf(d)) return std::nullopt;
  return d;
}

// Converts `v`; nullopt when the value has no `to` form ('x' as bigint).
std::optional<Datum> Convert(const Datum& v, DataType to) {
  if (v.null) return Datum::Null(to);
  if (v.type == to) return v;
  if (to == DataType::kJson) {
    // Text is JSON as written, checked (PostgreSQL's x::json); any other value as to_json
    // writes it.
    if (v.type != DataType::kVarchar) return Datum::Json(json::ValueText(v));
    if (!json::Check(v.s).ok()) return std::nullopt;
    return Datum::Json(v.s);
  }
  if (v.type == DataType::kJson) {
    // Its text (PostgreSQL's j::text), or what the JSON holds, as Presto casts its JSON.
    if (to == DataType::kVarchar) return Datum::Varchar(v.s);
    return FromJson(v.s, to);
  }
  if (v.type == DataType::kVarchar && KindOf(to) == TypeKind::kArray &&
      LooksLikePostgresArrayText(v.s)) {
    return FromPostgresArrayText(v.s, to);
  }
  if (v.type == DataType::kVarchar &&
      (KindOf(to) == TypeKind::kArray || KindOf(to) == TypeKind::kMap)) {
    // JSON text, as Presto casts its JSON type (Strata's JSON is VARCHAR text).
    if (!json::Check(v.s).ok()) return std::nullopt;
    return FromJson(v.s, to);
  }
  if (IsComposite(v.type) || IsComposite(to)) {
    if (to == DataType::kVarchar) return Datum::Varchar(v.ToString());
    const TypeKind kind = KindOf(to);
    if (KindOf(v.type) != kind) return std::nullopt;
    if (kind == TypeKind::kMap) {
      std::vector<std::pair<Datum, Datum>> entries;
      for (size_t i = 0; i < v.items().size(); ++i) {
        std::optional<Datum> key = Convert(v.nested->keys[i], MapKeyType(to));
        std::optional<Datum> value = Convert(v.items()[i], ElementType(to));
        if (!key || !value) return std::nullopt;
        entries.emplace_back(*std::move(key), *std::move(value));
      }
      std::string problem;  // keys that became equal: the cast has no answer
      return MakeMap(to, std::move(entries), &problem);
    }
    const std::vector<Datum>& items = v.items();
    const std::vector<RowField>& fields = RowFields(to);
    if (kind == TypeKind::kRow && fields.size() != items.size()) return std::nullopt;
    std::vector<Datum> converted;
    converted.reserve(items.size());
    for (size_t i = 0; i < items.size(); ++i) {
      std::optional<Datum> c =
          Convert(items[i], kind == TypeKind::kRow ? fields[i].type : ElementType(to));
      if (!c) return std::nullopt;
      converted.push_back(*std::move(c));
    }
    return Datum::Composite(to, std::move(converted), v.nested->times);
  }
  switch (to) {
    case DataType::kVarchar:
      return Datum::Varchar(v.ToString());
    case DataType::kDouble:
      if (v.type == DataType::kVarchar) {
        const std::optional<double> d = DoubleOfText(v.s);
        return d ? std::optional<Datum>(Datum::Double(*d)) : std::nullopt;
      }
      if (v.type == DataType::kBoolean) return Datum::Double(static_cast<double>(v.i));
      return Datum::Double(v.AsDouble());
    case DataType::kBigint:
      if (v.type == DataType::kVarchar) {
        const std::optional<int64_t> i = BigintOfText(v.s);
        return i ? std::optional<Datum>(Datum::Bigint(*i)) : std::nullopt;
      }
      if (v.type == DataType::kDouble) {
        // 2^63 and -2^63 are doubles: below the first (and from the second) llround fits; past
        // them it answered INT64_MIN for 1e20.
        if (!(v.d >= -9223372036854775808.0 && v.d < 9223372036854775808.0)) return std::nullopt;
        return Datum::Bigint(static_cast<int64_t>(std::llround(v.d)));
      }
      return Datum::Bigint(v.i);
    case DataType::kBoolean:
      if (v.type == DataType::kVarchar) {
        const std::optional<bool> b = ParseBooleanText(v.s);
        return b ? std::optional<Datum>(Datum::Bool(*b)) : std::nullopt;
      }
      return Datum::Bool(v.AsDouble() != 0);
    case DataType::kTimestamp:
      if (v.type == DataType::kBigint) return Datum::Timestamp(v.i);
      if (v.type == DataType::kDate) return Datum::Timestamp(MidnightOf(v.i));
      if (v.type == DataType::kVarchar) {
        auto nanos = ParseTimestamp(v.s);
        if (!nanos) return std::nullopt;
        return Datum::Timestamp(*nanos);
      }
      return std::nullopt;
    case DataType::kDate:
      if (v.type == DataType::kTimestamp) return Datum::Date(DateOfTimestamp(v.i));
      if (v.type == DataType::kVarchar) return ParseDate(v.s);
      return std::nullopt;
    case DataType::kTime:
      if (v.type == DataType::kTimestamp) return Datum::Time(v.i - MidnightOf(DateOfTimestamp(v.i)));
      if (v.type == DataType::kVarchar) return ParseTime(v.s);
      return std::nullopt;
    case DataType::kInterval:
    case DataType::kIntervalYearToMonth: {
      // PostgreSQL's interval text ('1 day 2 hours', '3 months'), of the cast's kind only.
      if (v.type != DataType::kVarchar) return std::nullopt;
      absl::StatusOr<IntervalText> text = ParseIntervalText(v.s);
      if (!text.ok()) return std::nullopt;
      if (to == DataType::kInterval) {
        if (text->months != 0) return std::nullopt;
        return Datum::Interval(text->nanos);
      }
      if (text->nanos != 0) return std::nullopt;
      return Datum::Months(text->months);
    }
    default:
      return std::nullopt;
  }
}

}  // namespace

Datum Eval(const Expr& e, const Row& row, const EvalContext& context) {
  switch (e.kind) {
    case ExprKind::kLiteral: return e.literal;
    case ExprKind::kColumn: return row[e.bound.column];
    case ExprKind::kStar: return Datum::Null();
    case ExprKind::kUnary: {
      Datum v = Eval(*e.args[0], row, context);
      if (v.null) return Datum::Null(e.bound.type);
      if (e.name == "NOT") return Datum::Bool(v.i == 0);
      if (v.type == DataType::kDouble) return Datum::Double(-v.d);
      std::optional<int64_t> negated = CheckedNegate(v.i);
      if (!negated) {
        if (context.error.empty()) context.error = NegationOverflowMessage(v.type, "-", v.i);
        return Datum::Null(e.bound.type);
      }
      v.i = *negated;
      return v;
    }
    case ExprKind::kBinary: {
      const std::string& op = e.name;
      if (op == "AND" || op == "OR") {  // three-valued logic
        Datum a = Eval(*e.args[0], row, context);
        bool is_and = op == "AND";
        if (!a.null && (a.i != 0) != is_and) return Datum::Bool(!is_and);
        Datum b = Eval(*e.args[1], row, context);
        if (!b.null && (b.i != 0) != is_and) return Datum::Bool(!is_and);
        if (a.null || b.null) return Datum::Null(DataType::kBoolean);
        return Datum::Bool(is_and);
      }
      Datum a = Eval(*e.args[0], row, context);
      Datum b = Eval(*e.args[1], row, context);
      if (op == "IS DISTINCT FROM" || op == "IS NOT DISTINCT FROM") {
        const bool distinct = a.null != b.null || (!a.null && query::Compare(a, b) != 0);
        return Datum::Bool(distinct == (op == "IS DISTINCT FROM"));
      }
      if (op == "||") {
        // After an error (this chain passed kMaxTextBytes) the answer is
        // decided: no more copying.
        if (a.null || b.null || !context.error.empty()) return Datum::Null(DataType::kVarchar);
        if (a.s.size() + b.s.size() > kMaxTextBytes) {
          if (context.error.empty()) context.error = TextTooLongMessage("||");
          return Datum::Null(DataType::kVarchar);
        }
        Datum joined = Datum::Varchar(a.s + b.s);
        if (!context.KeepGoingAfterText(joined.s.size())) return Datum::Null(DataType::kVarchar);
        return joined;
      }
      if (op == "=" || op == "<>" || op == "<" || op == "<=" || op == ">" || op == ">=") {
        return Compare(op, a, b);
      }
      return Arithmetic(op, a, b, e.bound.type, context);
    }
    case ExprKind::kCall: {
      if (e.bound.aggregate >= 0) return row[e.bound.column];
      if (e.bound.function->takes_lambdas) return EvalLambdaCall(e, row, context);
      if (e.bound.function->catches_errors) {
        // try(x): x's evaluation error (not a timeout or cancellation) is NULL.
        if (!context.error.empty()) return Datum::Null(e.bound.type);
        Datum v = Eval(*e.args[0], row, context);
        if (context.error.empty() || context.stopped) return v;
        context.error.clear();
        return Datum::Null(e.bound.type);
      }
      std::vector<Datum> args;
      args.reserve(e.args.size());
      for (const auto& a : e.args) {
        args.push_back(Eval(*a, row, context));
        if (e.bound.function->null_propagating && args.back().null) {
          return Datum::Null(e.bound.type);
        }
      }
      return CallScalar(*e.bound.function, args, e.bound.type, context);
    }
    case ExprKind::kCase: {
      size_t i = 0;
      Datum operand;
      if (e.has_operand) operand = Eval(*e.args[i++], row, context);
      size_t end = e.args.size() - (e.has_else ? 1 : 0);
      Datum out = Datum::Null(e.bound.type);
      bool matched = false;
      for (; i + 1 < end; i += 2) {
        Datum when = Eval(*e.args[i], row, context);
        bool hit = e.has_operand ? (!when.null && !operand.null && SqlEquals(operand, when))
                                 : when.truthy();
        if (hit) {
          out = Eval(*e.args[i + 1], row, context);
          matched = true;
          break;
        }
      }
      if (!matched && e.has_else) out = Eval(*e.args.back(), row, context);
      if (e.bound.type == DataType::kDouble && !out.null && out.type != DataType::kDouble) {
        out = Datum::Double(out.AsDouble());
      }
      return out;
    }
    case ExprKind::kCast: {
      Datum v = Eval(*e.args[0], row, context);
      if (auto converted = Convert(v, e.cast_type)) return *std::move(converted);
      if (e.name != "try_cast" && context.error.empty()) {
        const bool text = v.type == DataType::kVarchar;
        const bool composite = IsComposite(e.cast_type);
        context.error =
            StrCat("cannot cast ", text ? "'" : "", EchoInput(v.ToString()), text ? "'" : "",
                   " to ", TypeName(e.cast_type), " in ", e.ToString(),
                   text && composite
                       ? StrCat(" (the text of one, as JSON or PostgreSQL's '{...}', of at most ",
                                kMaxNestedValues, " elements, each of its type)")
                       : "",
                   "; use try_cast to get NULL for values that do not convert");
      }
      return Datum::Null(e.cast_type);
    }
    case ExprKind::kIn: {
      Datum v = Eval(*e.args[0], row, context);
      if (v.null) return Datum::Null(DataType::kBoolean);
      bool saw_null = false;
      // Compare's = is SQL's: a NaN equals nothing, (1, NULL) = (1, 2) is NULL.
      auto equals = [&](const Datum& candidate) {
        // A long list compared one by one (rows, rows with a NULL field) reads the clock as it
        // goes: past the deadline the query stops with its error, and this answer is not read.
        if (!context.KeepGoing()) return true;
        const Datum equal = Compare("=", v, candidate);
        saw_null = saw_null || equal.null;
        return !equal.null && equal.i != 0;
      };
      const InList* list = e.bound.in_list.get();
      if (list != nullptr && (!list->rows || KeyedRow(v))) {
        std::string key;
        AppendKey(v, &key);
        // A NaN equals nothing, though its key matches a NaN's in the list.
        if (!IsNaN(v) && list->keys.contains(key)) return Datum::Bool(!e.negated);
        for (const Datum& candidate : list->unkeyed) {
          if (equals(candidate)) return Datum::Bool(!e.negated);
        }
        return list->has_null || saw_null ? Datum::Null(DataType::kBoolean)
                                          : Datum::Bool(e.negated);
      }
      if (e.in_array) {
        for (const Datum& candidate : e.args[1]->literal.items()) {
          if (equals(candidate)) return Datum::Bool(!e.negated);
        }
      } else {
        for (size_t i = 1; i < e.args.size(); ++i) {
          if (equals(Eval(*e.args[i], row, context))) return Datum::Bool(!e.negated);
        }
      }
      return saw_null ? Datum::Null(DataType::kBoolean) : Datum::Bool(e.negated);
    }
    case ExprKind::kBetween: {
      Datum v = Eval(*e.args[0], row, context);
      Datum low = Eval(*e.args[1], row, context);
      Datum high = Eval(*e.args[2], row, context);
      if (v.null || low.null || high.null) return Datum::Null(DataType::kBoolean);
      bool in = !Unordered(v, low) && !Unordered(v, high) && query::Compare(v, low) >= 0 &&
                query::Compare(v, high) <= 0;
      return Datum::Bool(in != e.negated);
    }
    case ExprKind::kLike: {
      Datum v = Eval(*e.args[0], row, context);
      Datum p = Eval(*e.args[1], row, context);
      if (v.null || p.null) return Datum::Null(DataType::kBoolean);
      if (e.args.size() < 3) return Datum::Bool(LikeMatch(v.s, p.s) != e.negated);
      Datum escape = Eval(*e.args[2], row, context);
      if (escape.null) return Datum::Null(DataType::kBoolean);
      if (std::string error = LikePatternError(p.s, escape.s); !error.empty()) {
        if (context.error.empty()) context.error = std::move(error);
        return Datum::Null(DataType::kBoolean);
      }
      return Datum::Bool(LikeMatch(v.s, p.s, escape.s) != e.negated);
    }
    case ExprKind::kIsNull: {
      Datum v = Eval(*e.args[0], row, context);
      return Datum::Bool(v.null != e.negated);
    }
    case ExprKind::kSubquery:
    case ExprKind::kExists:
      break;  // answered by the planner before binding
    case ExprKind::kLambda:
      break;  // evaluated by the call it is an argument of (EvalLambdaCall)
    case ExprKind::kLookup: {
      std::string key;
      for (const ExprPtr& a : e.args) {
        Datum v = Eval(*a, row, context);
        if (v.null) return e.bound.lookup->otherwise;
        AppendKey(v, &key);
      }
      auto it = e.bound.lookup->values.find(key);
      return it == e.bound.lookup->values.end() ? e.bound.lookup->otherwise : it->second;
    }
  }
  return Datum::Null();
}

bool IsConstant(const Expr& e) {
  if (e.kind == ExprKind::kColumn || e.kind == ExprKind::kStar || e.bound.aggregate >= 0 ||
      (e.bound.function != nullptr && e.bound.function->volatile_value)) {
    return false;
  }
  for (const auto& a : e.args) {
    if (!IsConstant(*a)) return false;
  }
  return true;
}

std::optional<Datum> FoldConstant(const Expr& e, const EvalContext& context) {
  if (!IsConstant(e)) return std::nullopt;
  return Eval(e, Row{}, context);
}

int64_t InListBytes(const Datum& array) {
  if (array.null || !IsComposite(array.type)) return 0;
  constexpr int64_t kSlot = (sizeof(std::string) + 1) * 8 / 7;
  constexpr int64_t kInPlace = 15;  // a std::string's own buffer
  int64_t bytes = 0;
  for (const Datum& v : array.items()) {
    const int64_t key = static_cast<int64_t>(sizeof(int64_t)) + v.HeapBytes();
    bytes += kSlot + (key > kInPlace ? key + 1 : 0);
  }
  return bytes;
}

}  // namespace strata::query
