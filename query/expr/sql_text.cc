#include "query/expr/sql_text.h"

#include <charconv>
#include <cmath>

#include "absl/strings/str_cat.h"

namespace strata::query {
namespace {

bool PortableOperator(std::string_view op) {
  return op == "=" || op == "<>" || op == "!=" || op == "<" || op == "<=" || op == ">" ||
         op == ">=" || op == "AND" || op == "OR" || op == "+" || op == "-" || op == "*" ||
         op == "/" || op == "%" || op == "||";
}

// Functions whose value is their arguments' alone on every node: no clock (now(), ago()),
// no randomness, no per-node state. Kept to those a time-series GROUP BY, filter or
// aggregate's argument uses.
bool PortableFunction(std::string_view name) {
  static constexpr std::string_view kNames[] = {"abs",
                                                "at_timezone",
                                                "bin",
                                                "ceil",
                                                "ceiling",
                                                "coalesce",
                                                "concat",
                                                "date_bin",
                                                "date_trunc",
                                                "day",
                                                "day_of_month",
                                                "day_of_week",
                                                "day_of_year",
                                                "exp",
                                                "floor",
                                                "from_milliseconds",
                                                "from_wall_clock",
                                                "from_nanoseconds",
                                                "greatest",
                                                "hour",
                                                "least",
                                                "length",
                                                "ln",
                                                "lower",
                                                "ltrim",
                                                "minute",
                                                "month",
                                                "nullif",
                                                "power",
                                                "regexp_like",
                                                "replace",
                                                "round",
                                                "rtrim",
                                                "second",
                                                "sign",
                                                "sqrt",
                                                "starts_with",
                                                "strpos",
                                                "substr",
                                                "substring",
                                                "time_bucket",
                                                "timestamp_in_zone",
                                                "to_milliseconds",
                                                "to_nanoseconds",
                                                "to_unixtime",
                                                "trim",
                                                "upper",
                                                "wall_clock",
                                                "week",
                                                "with_timezone",
                                                "year",
                                                "year_of_week"};
  for (std::string_view n : kNames) {
    if (n == name) return true;
  }
  return false;
}

bool AppendLiteral(const Datum& d, std::string* out) {
  if (d.null) {
    out->append("NULL");
    return true;
  }
  switch (d.type) {
    case DataType::kJson:
      out->append("JSON ");  // JSON 'text': the text, checked, kept as written
      [[fallthrough]];
    case DataType::kVarchar: {
      out->push_back('\'');
      for (char c : d.s) {
        if (c == '\'') out->push_back('\'');
        out->push_back(c);
      }
      out->push_back('\'');
      return true;
    }
    case DataType::kBigint:
      absl::StrAppend(out, d.i);
      return true;
    case DataType::kBoolean:
      out->append(d.i != 0 ? "TRUE" : "FALSE");
      return true;
    case DataType::kTimestamp:
      absl::StrAppend(out, "from_nanoseconds(", d.i, ")");
      return true;
    case DataType::kInterval: {
      Expr literal;  // "1m", "90s", "5ns": the parser's own interval literal text
      literal.literal = d;
      out->append(literal.ToString());
      return true;
    }
    case DataType::kDouble: {
      if (!std::isfinite(d.d)) return false;
      char buffer[64];
      // The shortest text that reads back as the same double.
      const auto [end, error] = std::to_chars(buffer, buffer + sizeof buffer, d.d);
      if (error != std::errc()) return false;
      std::string_view text(buffer, end - buffer);
      // A double literal needs a point or an exponent (1 alone is a BIGINT).
      const bool has_mark = text.find_first_of(".eE") != std::string_view::npos;
      out->push_back('(');
      out->append(text);
      if (!has_mark) out->append("e0");
      out->push_back(')');
      return true;
    }
    default:
      return false;
  }
}

// A type a CAST names as the parser reads it back.
bool PlainType(DataType type) {
  switch (type) {
    case DataType::kBoolean:
    case DataType::kBigint:
    case DataType::kDouble:
    case DataType::kVarchar:
    case DataType::kTimestamp:
      return true;
    default:
      return false;
  }
}

// Whether a list's values travel beside a statement (ListParameters): the scalar types a
// fragment's page carries.
bool SentBeside(DataType element) {
  return element == DataType::kBigint || element == DataType::kDouble ||
         element == DataType::kVarchar || element == DataType::kTimestamp ||
         element == DataType::kBoolean;
}

bool Append(const Expr& e, const Schema& schema, const std::vector<bool>* absent,
            std::optional<int64_t> now_nanos, ListParameters* lists, std::string* out) {
  auto arg = [&](size_t i) { return Append(*e.args[i], schema, absent, now_nanos, lists, out); };
  switch (e.kind) {
    case ExprKind::kColumn: {
      if (e.bound.column < 0 || e.bound.column >= static_cast<int>(schema.size())) return false;
      const ColumnInfo& column = schema[e.bound.column];
      if (absent != nullptr && static_cast<size_t>(e.bound.column) < absent->size() &&
          (*absent)[e.bound.column]) {
        if (!PlainType(column.type)) return false;
        absl::StrAppend(out, "CAST(NULL AS ", std::string(TypeName(column.type)), ")");
        return true;
      }
      out->append(QuoteIdentifier(column.name));
      return true;
    }
    case ExprKind::kLiteral:
      return AppendLiteral(e.literal, out);
    case ExprKind::kUnary:
      if (e.name != "NOT" && e.name != "-") return false;
      out->append(e.name == "NOT" ? "(NOT " : "(-");
      if (!arg(0)) return false;
      out->push_back(')');
      return true;
    case ExprKind::kBinary:
      if (!PortableOperator(e.name) || e.args.size() != 2) return false;
      out->push_back('(');
      if (!arg(0)) return false;
      absl::StrAppend(out, " ", e.name, " ");
      if (!arg(1)) return false;
      out->push_back(')');
      return true;
    case ExprKind::kIn:
      if (e.subquery != nullptr || e.args.size() < 2) return false;
      out->push_back('(');
      if (!arg(0)) return false;
      if (e.in_array && lists != nullptr &&
          e.args[1]->literal.items().size() > ListParameters::kWrittenOut &&
          SentBeside(ElementType(e.args[1]->literal.type))) {
        // IN is = ANY and NOT IN <> ALL, NULLs alike.
        const std::optional<std::string> name = lists->Name(e.args[1]->literal);
        if (!name) return false;
        absl::StrAppend(out, e.negated ? " <> ALL(" : " = ANY(", *name, "))");
        return true;
      }
      out->append(e.negated ? " NOT IN (" : " IN (");
      if (e.in_array) {
        const std::vector<Datum>& values = e.args[1]->literal.items();
        for (size_t i = 0; i < values.size(); ++i) {
          if (i > 0) out->append(", ");
          if (!AppendLiteral(values[i], out)) return false;
        }
      } else {
        for (size_t i = 1; i < e.args.size(); ++i) {
          if (i > 1) out->append(", ");
          if (!arg(i)) return false;
        }
      }
      out->append("))");
      return true;
    case ExprKind::kBetween:
      out->push_back('(');
      if (!arg(0)) return false;
      out->append(e.negated ? " NOT BETWEEN " : " BETWEEN ");
      if (!arg(1)) return false;
      out->append(" AND ");
      if (!arg(2)) return false;
      out->push_back(')');
      return true;
    case ExprKind::kLike:
      out->push_back('(');
      if (!arg(0)) return false;
      out->append(e.negated ? " NOT LIKE " : " LIKE ");
      if (!arg(1)) return false;
      if (e.args.size() > 2) {
        out->append(" ESCAPE ");
        if (!arg(2)) return false;
      }
      out->push_back(')');
      return true;
    case ExprKind::kIsNull:
      out->push_back('(');
      if (!arg(0)) return false;
      out->append(e.negated ? " IS NOT NULL)" : " IS NULL)");
      return true;
    case ExprKind::kCall:
      if (e.window || e.distinct || e.ordered_by || e.bound.aggregate >= 0) return false;
      // The query's clock, read once where it started: the same time on every node.
      if (now_nanos.has_value() && e.name == "now" && e.args.empty()) {
        absl::StrAppend(out, "from_nanoseconds(", *now_nanos, ")");
        return true;
      }
      if (now_nanos.has_value() && e.name == "ago" && e.args.size() == 1) {
        absl::StrAppend(out, "(from_nanoseconds(", *now_nanos, ") - ");
        if (!arg(0)) return false;
        out->push_back(')');
        return true;
      }
      if (!PortableFunction(e.name)) return false;
      absl::StrAppend(out, e.name, "(");
      for (size_t i = 0; i < e.args.size(); ++i) {
        if (i > 0) out->append(", ");
        if (!arg(i)) return false;
      }
      out->push_back(')');
      return true;
    case ExprKind::kCase: {  // args: [operand] (when, then)* [else]; if() is one too
      out->append("(CASE");
      size_t i = 0;
      if (e.has_operand) {
        out->push_back(' ');
        if (!arg(i++)) return false;
      }
      const size_t end = e.args.size() - (e.has_else ? 1 : 0);
      if (i + 2 > end) return false;
      for (; i + 1 < end; i += 2) {
        out->append(" WHEN ");
        if (!arg(i)) return false;
        out->append(" THEN ");
        if (!arg(i + 1)) return false;
      }
      if (e.has_else) {
        out->append(" ELSE ");
        if (!arg(end)) return false;
      }
      out->append(" END)");
      return true;
    }
    case ExprKind::kCast:
      if (!PlainType(e.cast_type)) return false;
      absl::StrAppend(out, e.name == "try_cast" ? "try_cast(" : "CAST(");
      if (!arg(0)) return false;
      absl::StrAppend(out, " AS ", std::string(TypeName(e.cast_type)), ")");
      return true;
    default:
      return false;
  }
}

}  // namespace

std::optional<std::string> ListParameters::Name(const Datum& array) {
  if (auto named = names_.find(&array.items()); named != names_.end()) return named->second;
  int64_t bytes = 0;  // as a page column holds them: a null byte each, then the value
  for (const Datum& v : array.items()) {
    bytes += 1 + (v.type == DataType::kVarchar ? static_cast<int64_t>(v.s.size()) + 4 : 8);
  }
  if (bytes_ + bytes > kMaxBytes) return std::nullopt;
  bytes_ += bytes;
  std::string name = absl::StrCat("list_", names_.size() + 1);
  values_[name] = array;
  return names_[&array.items()] = "@" + name;
}

bool AppendPortableSql(const Expr& e, const Schema& schema, std::string* out,
                       const std::vector<bool>* absent, std::optional<int64_t> now_nanos,
                       ListParameters* lists) {
  const size_t before = out->size();
  if (Append(e, schema, absent, now_nanos, lists, out)) return true;
  out->resize(before);
  return false;
}

std::string QuoteIdentifier(std::string_view name) {
  std::string out = "\"";
  for (char c : name) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  out.push_back('"');
  return out;
}

}  // namespace strata::query
