#include "query/expr/sql_text.h"

#include <charconv>
#include <cmath>

#include "absl/strings/str_cat.h"

namespace strata::query {
namespace {

bool PortableOperator(std::string_view op) {
  return op == "=" || op == "<>" || op == "!=" || op == "<" || op == "<=" || op == ">" ||
         op == ">=" || op == "AND" || op == "OR";
}

bool AppendLiteral(const Datum& d, std::string* out) {
  if (d.null) {
    out->append("NULL");
    return true;
  }
  switch (d.type) {
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

bool Append(const Expr& e, const Schema& schema, std::string* out) {
  auto arg = [&](size_t i) { return Append(*e.args[i], schema, out); };
  switch (e.kind) {
    case ExprKind::kColumn:
      if (e.bound.column < 0 || e.bound.column >= static_cast<int>(schema.size())) return false;
      out->append(QuoteIdentifier(schema[e.bound.column].name));
      return true;
    case ExprKind::kLiteral:
      return AppendLiteral(e.literal, out);
    case ExprKind::kUnary:
      if (e.name != "NOT") return false;
      out->append("(NOT ");
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
      out->append(e.negated ? " NOT IN (" : " IN (");
      for (size_t i = 1; i < e.args.size(); ++i) {
        if (i > 1) out->append(", ");
        if (!arg(i)) return false;
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
      if (e.args.size() != 2) return false;  // no ESCAPE clause
      out->push_back('(');
      if (!arg(0)) return false;
      out->append(e.negated ? " NOT LIKE " : " LIKE ");
      if (!arg(1)) return false;
      out->push_back(')');
      return true;
    case ExprKind::kIsNull:
      out->push_back('(');
      if (!arg(0)) return false;
      out->append(e.negated ? " IS NOT NULL)" : " IS NULL)");
      return true;
    default:
      return false;
  }
}

}  // namespace

bool AppendPortableSql(const Expr& e, const Schema& schema, std::string* out) {
  const size_t before = out->size();
  if (Append(e, schema, out)) return true;
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
