// Planner: VALUES. `VALUES (1, 'a'), (2.5, NULL)` is read as
// UNNEST(ARRAY[ROW(CAST(1 AS double), 'a'), ROW(2.5, NULL)]) AS unnest(_col0, _col1):
// one array of rows, each field of which is a column. A column's type comes from all its
// rows as a UNION's does (UnionColumnType), and a row of another type is cast to it; text
// literals in a column of times are read as times, as PostgreSQL reads them.
#include "common/status.h"
#include "common/strings.h"
#include "query/plan/planner.h"
#include "query/plan/planner_internal.h"

namespace strata::query {
namespace {

ExprPtr MakeExpr(ExprKind kind, Position pos, std::string name) {
  auto e = std::make_unique<Expr>();
  e->kind = kind;
  e->pos = pos;
  e->name = std::move(name);
  return e;
}

// A time written as its text, as PostgreSQL reads a string literal in a column of times.
bool IsTemporal(DataType type) {
  return type == DataType::kTimestamp || type == DataType::kDate || type == DataType::kTime;
}

bool IsTextLiteral(const Expr& e, DataType bound) {
  return e.kind == ExprKind::kLiteral && bound == DataType::kVarchar;
}

void AddArgument(Expr& parent, ExprPtr child) {
  parent.height = std::max(parent.height, child->height + 1);
  parent.args.push_back(std::move(child));
}

}  // namespace

absl::Status Planner::ValuesAsUnnest(TableRef& ref) {
  const size_t width = ref.values.front().size();
  // The rows' calls and casts made here, and the array of rows they become, beside the
  // syntax tree the query reserved already.
  RETURN_IF_ERROR(context_->Reserve(
      static_cast<int64_t>(ref.values.size() * (2 * width + 1) * sizeof(Expr)), "VALUES"));
  std::vector<DataType> types(width, DataType::kUnknown);
  // Whether a column's VARCHAR so far is only text literals, which a time in another row
  // takes as times: `VALUES (TIMESTAMP '...'), ('2024-03-10 11:00:00')`.
  std::vector<bool> text_literals(width, true);
  std::vector<std::vector<DataType>> row_types;
  for (size_t r = 0; r < ref.values.size(); ++r) {
    const std::vector<ExprPtr>& row = ref.values[r];
    if (row.size() != width) {
      return SqlError(sql_, row.front()->pos,
                      StrCat("VALUES row ", r + 1, " has ", row.size(),
                             row.size() == 1 ? " column" : " columns", " and row 1 has ", width,
                             "; every row needs the same number"));
    }
    std::vector<DataType>& bound_types = row_types.emplace_back();
    for (size_t c = 0; c < width; ++c) {
      const Expr& e = *row[c];
      if (ContainsAggregate(e) || ContainsWindow(e)) {
        return SqlError(sql_, e.pos,
                        "VALUES cannot use aggregates or window functions; "
                        "compute them in a query and join it");
      }
      ExprPtr bound = e.Clone();
      RETURN_IF_ERROR(Bind(*bound, Schema{}, sql_));
      const DataType type = bound->bound.type;
      const bool text_literal = IsTextLiteral(e, type);
      std::optional<DataType> common = UnionColumnType(types[c], type);
      if (!common && text_literal && IsTemporal(types[c])) common = types[c];
      if (!common && types[c] == DataType::kVarchar && text_literals[c] && IsTemporal(type)) {
        common = type;
      }
      if (type != DataType::kUnknown && !text_literal) text_literals[c] = false;
      if (!common) {
        return SqlError(
            sql_, e.pos,
            StrCat("VALUES column ", c + 1, " is ", TypeName(types[c]), " in the rows before row ",
                   r + 1, " and ", TypeName(type), " in it; CAST the values to one type"));
      }
      types[c] = *common;
      bound_types.push_back(type);
    }
  }
  ExprPtr array = MakeExpr(ExprKind::kCall, ref.pos, "array");
  for (size_t r = 0; r < ref.values.size(); ++r) {
    ExprPtr row = MakeExpr(ExprKind::kCall, ref.values[r].front()->pos, "row");
    for (size_t c = 0; c < width; ++c) {
      ExprPtr value = std::move(ref.values[r][c]);
      if (types[c] != DataType::kUnknown && row_types[r][c] != types[c]) {
        ExprPtr cast = MakeExpr(ExprKind::kCast, value->pos, "cast");
        cast->cast_type = types[c];
        AddArgument(*cast, std::move(value));
        value = std::move(cast);
      }
      AddArgument(*row, std::move(value));
    }
    AddArgument(*array, std::move(row));
  }
  ref.values.clear();
  ref.unnest.push_back(std::move(array));
  for (size_t c = 0; c < width; ++c) ref.column_aliases.push_back(StrCat("_col", c));
  return absl::OkStatus();
}

}  // namespace strata::query
