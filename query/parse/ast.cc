#include "query/parse/ast.h"

#include "common/strings.h"

namespace strata::query {

std::unique_ptr<Expr> Expr::Clone() const {
  auto copy = std::make_unique<Expr>();
  copy->kind = kind;
  copy->pos = pos;
  copy->literal = literal;
  copy->name = name;
  copy->qualifier = qualifier;
  for (const auto& a : args) copy->args.push_back(a->Clone());
  copy->distinct = distinct;
  copy->negated = negated;
  copy->has_operand = has_operand;
  copy->has_else = has_else;
  copy->quoted = quoted;
  copy->untyped = untyped;
  copy->written_as_list = written_as_list;
  copy->in_array = in_array;
  copy->filtered = filtered;
  copy->cast_type = cast_type;
  copy->lambda_params = lambda_params;
  if (window) copy->window = window->Clone();
  if (ordered_by) copy->ordered_by = ordered_by->Clone();
  if (subquery) copy->subquery = subquery->Clone();  // each copy resolves its own
  copy->session_zone = session_zone;
  copy->height = height;
  copy->bound = bound;
  return copy;
}

namespace {

// An interval as the literal a user writes: in the largest unit that divides
// it (1h, 90m, 15s, 250ms), not in nanoseconds.
std::string IntervalLiteralText(int64_t nanos) {
  static constexpr std::pair<int64_t, const char*> kUnits[] = {
      {86'400'000'000'000, "d"}, {3'600'000'000'000, "h"}, {60'000'000'000, "m"},
      {1'000'000'000, "s"},      {1'000'000, "ms"},        {1'000, "us"}};
  if (nanos != 0) {
    for (const auto& [length, unit] : kUnits) {
      if (nanos % length == 0) return StrCat(nanos / length, unit);
    }
  }
  return StrCat(nanos, "ns");
}

// A literal as the statement would spell it.
std::string LiteralText(const Datum& literal) {
  if (literal.null) return "NULL";
  if (literal.type == DataType::kVarchar) return StrCat("'", literal.s, "'");
  if (literal.type == DataType::kJson) return StrCat("JSON '", literal.s, "'");
  if (literal.type == DataType::kTimestamp) return StrCat("TIMESTAMP '", literal.ToString(), "'");
  if (literal.type == DataType::kInterval) return IntervalLiteralText(literal.i);
  if (literal.type == DataType::kDate) return StrCat("DATE '", literal.ToString(), "'");
  if (literal.type == DataType::kTime) return StrCat("TIME '", literal.ToString(), "'");
  if (literal.type == DataType::kIntervalYearToMonth) {
    return StrCat("INTERVAL '", literal.i, "' MONTH");
  }
  return literal.ToString();
}

}  // namespace

std::string Expr::ToString() const {
  auto arg = [this](size_t i) { return args[i]->ToString(); };
  switch (kind) {
    case ExprKind::kLiteral:
      return LiteralText(literal);
    case ExprKind::kColumn: return qualifier.empty() ? name : StrCat(qualifier, ".", name);
    case ExprKind::kStar:
      return qualifier.empty() ? "*" : qualifier + ".*";
    case ExprKind::kUnary: return name == "-" ? StrCat("-", arg(0)) : StrCat("NOT ", arg(0));
    case ExprKind::kBinary: return StrCat("(", arg(0), " ", name, " ", arg(1), ")");
    case ExprKind::kCall: {
      if (name == "subscript" && args.size() == 2) return StrCat(arg(0), "[", arg(1), "]");
      if (name == "array" && !window) {
        std::string out = "ARRAY[";
        for (size_t i = 0; i < args.size(); ++i) out += (i ? ", " : "") + arg(i);
        return out + "]";
      }
      std::string out = StrCat(name, "(", distinct ? "DISTINCT " : "");
      const size_t values = args.size() - (filtered ? 1 : 0);
      for (size_t i = 0; i < values; ++i) out += (i ? ", " : "") + arg(i);
      if (ordered_by) out += StrCat(" ", ordered_by->ToString());
      out += ")";
      if (filtered) out += StrCat(" FILTER (WHERE ", arg(values), ")");
      if (window) {
        out += StrCat(window->ignore_nulls ? " IGNORE NULLS" : "", " OVER (", window->ToString(), ")");
      }
      return out;
    }
    case ExprKind::kSubquery:
      return name == "array" ? "ARRAY(SELECT ...)" : "(SELECT ...)";
    case ExprKind::kLookup:
      return StrCat("(", name.empty() ? "correlated subquery" : name, ")");
    case ExprKind::kLambda: {
      std::string params;
      for (const std::string& p : lambda_params) params += (params.empty() ? "" : ", ") + p;
      return StrCat(lambda_params.size() == 1 ? params : StrCat("(", params, ")"), " -> ", arg(0));
    }
    case ExprKind::kExists: return negated ? "NOT EXISTS (SELECT ...)" : "EXISTS (SELECT ...)";
    case ExprKind::kCase: {
      // Whole: the text is also a key's identity (a select item is matched to its GROUP BY
      // key by it), so two CASEs must not print alike.
      std::string out = "CASE";
      size_t i = 0;
      if (has_operand) out += " " + arg(i++);
      const size_t whens_end = args.size() - (has_else ? 1 : 0);
      for (; i < whens_end; i += 2) {
        out += StrCat(" WHEN ", arg(i), " THEN ", arg(i + 1));
      }
      if (has_else) out += StrCat(" ELSE ", arg(args.size() - 1));
      return out + " END";
    }
    case ExprKind::kCast: return StrCat(name, "(", arg(0), " AS ", TypeName(cast_type), ")");
    case ExprKind::kIn: {
      std::string out = StrCat(arg(0), negated ? " NOT IN (" : " IN (");
      if (subquery) return out + "SELECT ...)";
      if (in_array) {
        const std::vector<Datum>& values = args[1]->literal.items();
        for (size_t i = 0; i < values.size(); ++i) {
          out += (i > 0 ? ", " : "") + LiteralText(values[i]);
        }
        return out + ")";
      }
      for (size_t i = 1; i < args.size(); ++i) out += (i > 1 ? ", " : "") + arg(i);
      return out + ")";
    }
    case ExprKind::kBetween:
      return StrCat(arg(0), negated ? " NOT" : "", " BETWEEN ", arg(1), " AND ", arg(2));
    case ExprKind::kLike:
      return StrCat(arg(0), negated ? " NOT" : "", " LIKE ", arg(1),
                    args.size() > 2 ? StrCat(" ESCAPE ", arg(2)) : "");
    case ExprKind::kIsNull: return StrCat(arg(0), negated ? " IS NOT NULL" : " IS NULL");
  }
  return "?";
}

std::optional<std::vector<const Datum*>> InListConstants(const Expr& in) {
  if (in.kind != ExprKind::kIn || in.subquery != nullptr || in.args.size() < 2) return std::nullopt;
  std::vector<const Datum*> constants;
  if (in.in_array) {
    for (const Datum& value : in.args[1]->literal.items()) constants.push_back(&value);
    return constants;
  }
  for (size_t i = 1; i < in.args.size(); ++i) {
    if (in.args[i]->kind != ExprKind::kLiteral) return std::nullopt;
    constants.push_back(&in.args[i]->literal);
  }
  return constants;
}

std::shared_ptr<WindowSpec> WindowSpec::Clone() const {
  auto copy = std::make_shared<WindowSpec>();
  for (const ExprPtr& p : partition_by) copy->partition_by.push_back(p->Clone());
  for (const OrderItem& o : order_by) {
    copy->order_by.push_back({o.expr->Clone(), o.descending, o.nulls_first});
  }
  copy->frame = frame;
  copy->ignore_nulls = ignore_nulls;
  return copy;
}

std::string WindowSpec::ToString() const {
  std::string out;
  for (size_t i = 0; i < partition_by.size(); ++i) {
    out += StrCat(i ? ", " : "PARTITION BY ", partition_by[i]->ToString());
  }
  for (size_t i = 0; i < order_by.size(); ++i) {
    const std::optional<bool>& nulls_first = order_by[i].nulls_first;
    out += StrCat(i ? ", " : (out.empty() ? "ORDER BY " : " ORDER BY "),
                  order_by[i].expr->ToString(), order_by[i].descending ? " DESC" : "",
                  !nulls_first   ? ""
                  : *nulls_first ? " NULLS FIRST"
                                 : " NULLS LAST");
  }
  if (frame) {
    auto bound = [](const FrameBound& b) -> std::string {
      switch (b.kind) {
        case FrameBound::Kind::kUnboundedPreceding: return "UNBOUNDED PRECEDING";
        case FrameBound::Kind::kPreceding: return StrCat(b.value.ToString(), " PRECEDING");
        case FrameBound::Kind::kCurrentRow: return "CURRENT ROW";
        case FrameBound::Kind::kFollowing: return StrCat(b.value.ToString(), " FOLLOWING");
        case FrameBound::Kind::kUnboundedFollowing: return "UNBOUNDED FOLLOWING";
      }
      return "?";
    };
    out += StrCat(out.empty() ? "" : " ", frame->unit == WindowFrame::Unit::kRows     ? "ROWS"
                                      : frame->unit == WindowFrame::Unit::kGroups ? "GROUPS"
                                                                                  : "RANGE", " BETWEEN ",
                  bound(frame->start), " AND ", bound(frame->end));
    switch (frame->exclude) {
      case WindowFrame::Exclude::kNoOthers:
        break;
      case WindowFrame::Exclude::kCurrentRow:
        out += " EXCLUDE CURRENT ROW";
        break;
      case WindowFrame::Exclude::kGroup:
        out += " EXCLUDE GROUP";
        break;
      case WindowFrame::Exclude::kTies:
        out += " EXCLUDE TIES";
        break;
    }
  }
  return out;
}

TableRef TableRef::Clone() const {
  TableRef copy;
  copy.pos = pos;
  copy.database = database;
  copy.table = table;
  if (subquery) copy.subquery = subquery->Clone();
  copy.alias = alias;
  copy.join = join;
  if (left) copy.left = std::make_unique<TableRef>(left->Clone());
  if (right) copy.right = std::make_unique<TableRef>(right->Clone());
  if (on) copy.on = on->Clone();
  copy.using_columns = using_columns;
  copy.natural = natural;
  for (const ExprPtr& e : unnest) copy.unnest.push_back(e->Clone());
  copy.with_ordinality = with_ordinality;
  copy.column_aliases = column_aliases;
  copy.lateral = lateral;
  copy.lateral_keys = lateral_keys;
  for (const std::vector<ExprPtr>& row : values) {
    std::vector<ExprPtr>& copied = copy.values.emplace_back();
    for (const ExprPtr& e : row) copied.push_back(e->Clone());
  }
  return copy;
}

std::unique_ptr<SelectStmt> SelectStmt::Clone() const {
  auto copy = std::make_unique<SelectStmt>();
  for (const WithQuery& w : with) {
    copy->with.push_back({w.pos, w.name, w.columns, w.query->Clone(), w.materialize});
  }
  copy->with_recursive = with_recursive;
  copy->set_operation = set_operation;
  copy->set_all = set_all;
  if (set_left) copy->set_left = set_left->Clone();
  if (set_right) copy->set_right = set_right->Clone();
  copy->distinct = distinct;
  for (const ExprPtr& k : distinct_on) copy->distinct_on.push_back(k->Clone());
  for (const SelectItem& item : items) copy->items.push_back({item.expr->Clone(), item.alias});
  if (from) copy->from = from->Clone();
  if (where) copy->where = where->Clone();
  for (const ExprPtr& g : group_by) copy->group_by.push_back(g->Clone());
  if (having) copy->having = having->Clone();
  for (const OrderItem& o : order_by) {
    copy->order_by.push_back({o.expr->Clone(), o.descending, o.nulls_first});
  }
  copy->limit = limit;
  copy->limit_with_ties = limit_with_ties;
  copy->offset = offset;
  copy->grouping_sets = grouping_sets;
  return copy;
}

std::unique_ptr<SelectStmt> SelectAllFrom(Position pos) {
  auto select = std::make_unique<SelectStmt>();
  auto all = std::make_unique<Expr>();
  all->kind = ExprKind::kStar;
  all->pos = pos;
  select->items.push_back({std::move(all), ""});
  select->from.emplace().pos = pos;
  return select;
}

}  // namespace strata::query
