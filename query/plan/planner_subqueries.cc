// Planner: subqueries in expressions. Each runs once, while the outer query
// is planned, and its answer takes its place: a scalar subquery becomes its
// value, x IN (SELECT ...) an IN list, EXISTS a boolean. The rows are held
// in memory (charged to the query) only while they are turned into literals.
//
// A correlated subquery (one whose WHERE equates its own values with the
// outer query's columns, `WHERE t2.host = t1.host`) runs once too, grouped
// by its side of those equalities; its answers become a lookup table that
// the outer row's values index (ExprKind::kLookup).
#include <algorithm>
#include <set>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "common/status.h"
#include "common/strings.h"
#include "query/plan/planner.h"
#include "query/plan/planner_internal.h"

namespace strata::query {
namespace {

// The most answers an IN (SELECT ...) takes: one array's (its answers become one).
constexpr size_t kMaxInSubqueryRows = kMaxNestedValues;

// Innermost first: answering `x IN (SELECT ...)` may replace its
// arguments, and with them a subquery inside x.
void Visit(ExprPtr& e, std::vector<Expr*>* found) {
  for (ExprPtr& a : e->args) Visit(a, found);
  if (e->window) {
    for (ExprPtr& p : e->window->partition_by) Visit(p, found);
    for (OrderItem& o : e->window->order_by) Visit(o.expr, found);
  }
  if (e->subquery) found->push_back(e.get());
}

void VisitFrom(TableRef& ref, std::vector<Expr*>* found) {
  if (ref.on) Visit(ref.on, found);
  for (std::vector<ExprPtr>& row : ref.values) {
    for (ExprPtr& e : row) Visit(e, found);
  }
  if (ref.left) VisitFrom(*ref.left, found);
  if (ref.right) VisitFrom(*ref.right, found);
}

// A subquery's rows' one column of `type` as an array (moved out of `rows`); nullopt when no
// array of `type` can be made (TooManyTypesMessage).
std::optional<Datum> FirstColumnAsArray(std::vector<Row>& rows, DataType type) {
  const std::optional<DataType> array_type = ArrayOf(type);
  if (!array_type) return std::nullopt;
  std::vector<Datum> values;
  values.reserve(rows.size());
  for (Row& row : rows) {
    values.push_back(std::move(row[0]));
    if (values.back().null) values.back().type = type;
  }
  return Datum::Composite(*array_type, std::move(values));
}

// A subquery of `columns` columns where one (or, for `(a, b) IN`, as many as the row's) is
// needed.
std::string ColumnCountMessage(const Expr& e, size_t columns) {
  const Expr* tested = e.kind == ExprKind::kIn && !e.args.empty() ? e.args[0].get() : nullptr;
  const bool row = tested && tested->kind == ExprKind::kCall && tested->name == "row";
  return StrCat("the subquery returns ", columns, " columns; ",
                row ? StrCat("the row it is tested against has ", tested->args.size())
                    : "it must return one");
}

// `(a, b) IN (SELECT x, y ...)`: a row constructor tested against a subquery of as many
// `columns`: their number (0 when `e` is no such test).
size_t RowInWidth(const Expr& e, size_t columns) {
  if (e.kind != ExprKind::kIn || e.args.empty()) return 0;
  const Expr& tested = *e.args[0];
  const bool row = tested.kind == ExprKind::kCall && tested.name == "row" && !tested.window;
  return row && columns > 1 && tested.args.size() == columns ? columns : 0;
}

// A subquery's rows as an array of rows (fields field0, field1, ... as row(...) names them),
// moved out of `rows`; nullopt when no such type can be made (TooManyTypesMessage).
std::optional<Datum> RowsAsArray(std::vector<Row>& rows, const Schema& columns) {
  std::vector<RowField> fields;
  for (const ColumnInfo& c : columns) {
    fields.push_back({.name = StrCat("field", fields.size()), .type = c.type});
  }
  const std::optional<DataType> row_type = RowOf(std::move(fields));
  if (!row_type) return std::nullopt;
  std::vector<Row> one_column;
  one_column.reserve(rows.size());
  for (Row& row : rows) {
    for (size_t i = 0; i < columns.size(); ++i) {
      if (row[i].null) row[i].type = columns[i].type;
    }
    one_column.push_back({Datum::Composite(*row_type, std::move(row))});
  }
  return FirstColumnAsArray(one_column, *row_type);
}

}  // namespace

void FromNames(const TableRef& ref, std::set<std::string>* out) {
  if (ref.left) FromNames(*ref.left, out);
  if (ref.right) FromNames(*ref.right, out);
  if (ref.join == JoinKind::kNone) out->insert(ref.alias.empty() ? ref.table : ref.alias);
}

bool ReadsOuter(const Expr& e, const std::set<std::string>& outer,
                const std::set<std::string>& inner) {
  if (e.kind == ExprKind::kColumn && !e.qualifier.empty() && outer.contains(e.qualifier) &&
      !inner.contains(e.qualifier)) {
    return true;
  }
  for (const ExprPtr& a : e.args) {
    if (ReadsOuter(*a, outer, inner)) return true;
  }
  return false;
}

// Whether `e` reads the outer query's columns only (and at least one): an expression the outer
// row makes a lookup key of (b.v = a.v * 2). An unqualified column may be the subquery's own.
bool OnlyOuter(const Expr& e, const std::set<std::string>& outer,
               const std::set<std::string>& inner) {
  if (e.kind == ExprKind::kColumn) {
    return !e.qualifier.empty() && outer.contains(e.qualifier) && !inner.contains(e.qualifier);
  }
  if (e.kind == ExprKind::kSubquery || e.kind == ExprKind::kExists || e.subquery ||
      e.kind == ExprKind::kStar || e.window || e.kind == ExprKind::kLambda) {
    return false;
  }
  return std::all_of(e.args.begin(), e.args.end(),
                     [&](const ExprPtr& a) {
                       return a->kind == ExprKind::kLiteral || OnlyOuter(*a, outer, inner);
                     }) &&
         ReadsOuter(e, outer, inner);
}

std::optional<CorrelationKeys> SplitCorrelation(ExprPtr where, const std::set<std::string>& outer,
                                                const std::set<std::string>& inner) {
  CorrelationKeys keys;
  for (ExprPtr& c : TakeConjuncts(std::move(where))) {
    if (!ReadsOuter(*c, outer, inner)) {
      keys.rest.push_back(std::move(c));
      continue;
    }
    const bool equality = c->kind == ExprKind::kBinary && c->name == "=";
    int outer_side = -1;
    for (int side = 0; equality && side < 2; ++side) {
      const Expr& a = *c->args[side];
      if (OnlyOuter(a, outer, inner) && !ReadsOuter(*c->args[1 - side], outer, inner)) {
        outer_side = side;
      }
    }
    if (outer_side < 0) return std::nullopt;
    keys.outer.push_back(std::move(c->args[outer_side]));
    keys.inner.push_back(std::move(c->args[1 - outer_side]));
  }
  return keys;
}

absl::StatusOr<bool> Planner::Decorrelate(Expr& e, SelectStmt& query,
                                          const std::set<std::string>& outer) {
  if (!query.from || query.set_operation != SetOperation::kNone) return false;
  std::set<std::string> inner;
  FromNames(*query.from, &inner);
  bool correlated = query.where && ReadsOuter(*query.where, outer, inner);
  for (const SelectItem& item : query.items) correlated |= ReadsOuter(*item.expr, outer, inner);
  if (!correlated) return false;
  const auto refuse = [&](std::string_view why) {
    return SqlError(sql_, e.pos,
                    StrCat("a correlated subquery ", why,
                           " (supported: equalities of the outer query's columns, "
                           "or of expressions of them, ANDed in the subquery's "
                           "WHERE; write others as a join or a window function)"));
  };
  for (const SelectItem& item : query.items) {
    if (ReadsOuter(*item.expr, outer, inner)) return refuse("cannot use outer columns in SELECT");
  }
  if (query.grouped() || query.having || query.limit || query.offset) {
    return refuse("cannot have GROUP BY, HAVING, LIMIT or OFFSET");
  }
  if (e.kind == ExprKind::kIn && e.negated) return refuse("cannot be NOT IN");
  // Split WHERE: inner = outer equalities become the lookup's keys.
  std::optional<CorrelationKeys> split = SplitCorrelation(std::move(query.where), outer, inner);
  if (!split) return refuse("uses an outer column outside an equality");
  std::vector<ExprPtr> rest = std::move(split->rest), inner_keys = std::move(split->inner),
                       outer_keys = std::move(split->outer);
  const bool exists = e.kind == ExprKind::kExists || e.kind == ExprKind::kIn;
  const size_t row_width = RowInWidth(e, query.items.size());
  if (e.kind != ExprKind::kExists && query.items.size() != 1 && row_width == 0) {
    return SqlError(sql_, e.pos, ColumnCountMessage(e, query.items.size()));
  }
  const size_t correlation_keys = inner_keys.size();
  const bool aggregating = std::any_of(query.items.begin(), query.items.end(),
                                       [](const SelectItem& i) { return ContainsAggregate(*i.expr); });
  if (e.kind == ExprKind::kExists && aggregating) {
    return refuse("cannot be EXISTS over an aggregate (it is always true)");
  }
  if (row_width > 0) {  // (x1, x2) IN (SELECT y1, y2 ...): EXISTS (... AND y1 = x1 AND y2 = x2)
    for (size_t i = 0; i < row_width; ++i) {
      inner_keys.push_back(query.items[i].expr->Clone());
      outer_keys.push_back(std::move(e.args[0]->args[i]));
    }
  } else if (e.kind == ExprKind::kIn) {  // x IN (SELECT y ... ): EXISTS (... AND y = x)
    inner_keys.push_back(query.items[0].expr->Clone());
    outer_keys.push_back(std::move(e.args[0]));
  }

  // Q: the keys (and the value), once for all outer rows.
  std::unique_ptr<SelectStmt> answers = query.Clone();
  answers->where = JoinConjuncts(std::move(rest));
  std::unique_ptr<SelectStmt> empty;  // the value over no rows, where no key matches
  if (aggregating && !exists) {
    empty = answers->Clone();
    auto never = std::make_unique<Expr>();
    never->literal = Datum::Bool(false);
    never->pos = e.pos;
    empty->where = std::move(never);
    empty->order_by.clear();
  }
  std::vector<SelectItem> items;
  for (const ExprPtr& k : inner_keys) items.push_back({k->Clone(), ""});
  if (!exists) items.push_back({std::move(answers->items[0].expr), ""});
  answers->items = std::move(items);
  answers->order_by.clear();
  answers->distinct = exists && !aggregating;
  if (aggregating) {
    for (size_t k = 0; k < correlation_keys; ++k) {
      answers->group_by.push_back(inner_keys[k]->Clone());
    }
  }

  auto table = std::make_shared<LookupTable>();
  ASSIGN_OR_RETURN(std::shared_ptr<Plan> plan, PlanSelect(std::move(answers)));
  CollectSink rows(context_);
  RETURN_IF_ERROR(plan->Run(context_, &rows));
  if (rows.rows().size() > kMaxInSubqueryRows) {
    return refuse(StrCat("returned answers for ", rows.rows().size(), " keys; at most ",
                         kMaxInSubqueryRows, " are supported: join the tables instead"));
  }
  const size_t n = inner_keys.size();
  table->type = exists ? DataType::kBoolean : plan->output[n].type;
  table->otherwise = exists ? Datum::Bool(e.negated) : Datum::Null(table->type);
  if (empty) {
    ASSIGN_OR_RETURN(std::shared_ptr<Plan> none, PlanSelect(std::move(empty)));
    CollectSink row(context_);
    RETURN_IF_ERROR(none->Run(context_, &row));
    if (!row.rows().empty()) table->otherwise = row.rows()[0][0];
  }
  for (Row& row : rows.rows()) {
    std::string key;
    bool null = false;
    for (size_t k = 0; k < n; ++k) {
      null |= row[k].null || IsNaN(row[k]);
      AppendKey(row[k], &key);
    }
    if (null) continue;  // `= NULL`, and `= NaN`, match no outer row
    Datum value = exists ? Datum::Bool(!e.negated) : std::move(row[n]);
    if (!table->values.emplace(std::move(key), std::move(value)).second && !exists) {
      return SqlError(sql_, e.pos, "the correlated scalar subquery returned more than one row "
                                   "for one outer row; use an aggregate (max, arbitrary, ...)");
    }
  }
  e.kind = ExprKind::kLookup;
  // Its text is its identity (a select item is matched to a GROUP BY key by its text): where
  // it was written tells two correlated subqueries apart, and a clone (GROUP BY 1) keeps it.
  e.name = StrCat("correlated subquery at offset ", e.pos.offset);
  e.subquery = nullptr;
  e.negated = false;
  e.args = std::move(outer_keys);
  e.bound.lookup = std::move(table);
  return true;
}

absl::Status Planner::ResolveSubqueries(SelectStmt& select) {
  std::vector<Expr*> found;
  for (SelectItem& item : select.items) Visit(item.expr, &found);
  if (select.where) Visit(select.where, &found);
  for (ExprPtr& g : select.group_by) Visit(g, &found);
  if (select.having) Visit(select.having, &found);
  for (OrderItem& o : select.order_by) Visit(o.expr, &found);
  if (select.from) VisitFrom(*select.from, &found);
  std::set<std::string> outer;
  if (select.from) FromNames(*select.from, &outer);
  for (Expr* e : found) RETURN_IF_ERROR(ResolveSubqueries(*e, outer));
  return absl::OkStatus();
}

absl::Status Planner::ResolveSubqueries(Expr& e, const std::set<std::string>& outer) {
  // ARRAY(SELECT ...) is whole: a lookup of one value per outer row does not make it.
  const bool array = e.kind == ExprKind::kSubquery && e.name == "array";
  if (!array) {
    ASSIGN_OR_RETURN(bool decorrelated, Decorrelate(e, *e.subquery, outer));
    if (decorrelated) return absl::OkStatus();
  }
  std::shared_ptr<SelectStmt> query = std::move(e.subquery);
  auto owned = std::make_unique<SelectStmt>(std::move(*query));
  absl::StatusOr<std::shared_ptr<Plan>> planned = PlanSelect(std::move(owned));
  if (!planned.ok()) {
    // A column the subquery does not have may be the outer query's, named where it
    // cannot be read: say where it can, before the statement's line and caret.
    const absl::string_view message = planned.status().message();
    if (!absl::StartsWith(message, "column ") ||
        message.find("does not exist") == absl::string_view::npos) {
      return planned.status();
    }
    const size_t line = std::min(message.find("\nLINE "), message.size());
    return absl::Status(planned.status().code(),
                        StrCat(message.substr(0, line),
                               array ? "; ARRAY(SELECT ...) cannot use the outer query's columns "
                                       "(nor can `x > ALL (SELECT ...)`): join and use "
                                       "array_agg, min or max instead"
                                     : "; a subquery uses the outer query's columns only as "
                                       "`inner = outer.column` in its WHERE, naming the outer "
                                       "table",
                               message.substr(line)));
  }
  std::shared_ptr<Plan> plan = *planned;
  const size_t row_width = RowInWidth(e, plan->output.size());
  if (e.kind != ExprKind::kExists && plan->output.size() != 1 && plan->output.size() != row_width) {
    return SqlError(sql_, e.pos, ColumnCountMessage(e, plan->output.size()));
  }
  CollectSink rows(context_);
  RETURN_IF_ERROR(plan->Run(context_, &rows));
  const DataType type = plan->output.empty() ? DataType::kUnknown : plan->output[0].type;
  if (array) {
    std::optional<Datum> values = FirstColumnAsArray(rows.rows(), type);
    if (!values) return SqlError(sql_, e.pos, TooManyTypesMessage());
    e.kind = ExprKind::kLiteral;
    e.name.clear();
    e.literal = *std::move(values);
  } else if (e.kind == ExprKind::kSubquery) {
    if (rows.rows().size() > 1) {
      return SqlError(sql_, e.pos, StrCat("the scalar subquery returned ", rows.rows().size(),
                                          " rows; it must return at most one (add LIMIT 1 or "
                                          "an aggregate)"));
    }
    e.kind = ExprKind::kLiteral;
    e.literal = rows.rows().empty() ? Datum::Null(type) : std::move(rows.rows()[0][0]);
    if (e.literal.null) e.literal.type = type;
  } else if (e.kind == ExprKind::kExists) {
    e.kind = ExprKind::kLiteral;
    e.literal = Datum::Bool(rows.rows().empty() == e.negated);
    e.negated = false;
  } else {  // x IN (SELECT ...)
    if (rows.rows().size() > kMaxInSubqueryRows) {
      return SqlError(sql_, e.pos, StrCat("IN (SELECT ...) returned ", rows.rows().size(),
                                          " rows; at most ", kMaxInSubqueryRows,
                                          " are supported: join the tables instead"));
    }
    if (rows.rows().empty()) {
      // Nothing is IN an empty set, not even NULL.
      e.kind = ExprKind::kLiteral;
      e.literal = Datum::Bool(e.negated);
      e.args.clear();
      e.negated = false;
      return absl::OkStatus();
    }
    // One array literal of the answers (Expr::in_array), not a node per answer.
    std::optional<Datum> values = row_width > 0 ? RowsAsArray(rows.rows(), plan->output)
                                                : FirstColumnAsArray(rows.rows(), type);
    if (!values) return SqlError(sql_, e.pos, TooManyTypesMessage());
    auto list = std::make_unique<Expr>();
    list->kind = ExprKind::kLiteral;
    list->pos = e.pos;
    list->literal = *std::move(values);
    RETURN_IF_ERROR(context_->Reserve(InListBytes(list->literal), "IN (SELECT ...)'s answers"));
    e.args.push_back(std::move(list));
    e.in_array = true;
  }
  return absl::OkStatus();
}

}  // namespace strata::query
