// Planner: subqueries in expressions. Each is uncorrelated (it cannot name
// the outer query's columns), so it runs once, while the outer query is
// planned, and its answer takes its place: a scalar subquery becomes its
// value, x IN (SELECT ...) an IN list, EXISTS a boolean. The rows are held
// in memory (charged to the query) only while they are turned into literals.
#include "common/status.h"
#include "common/strings.h"
#include "query/planner.h"

namespace strata::query {
namespace {

// IN lists longer than this would be compared row by row with every value.
constexpr size_t kMaxInSubqueryRows = 100'000;

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
  if (ref.left) VisitFrom(*ref.left, found);
  if (ref.right) VisitFrom(*ref.right, found);
}

}  // namespace

absl::Status Planner::ResolveSubqueries(SelectStmt& select) {
  std::vector<Expr*> found;
  for (SelectItem& item : select.items) Visit(item.expr, &found);
  if (select.where) Visit(select.where, &found);
  for (ExprPtr& g : select.group_by) Visit(g, &found);
  if (select.having) Visit(select.having, &found);
  for (OrderItem& o : select.order_by) Visit(o.expr, &found);
  if (select.from) VisitFrom(*select.from, &found);
  for (Expr* e : found) RETURN_IF_ERROR(ResolveSubqueries(*e));
  return absl::OkStatus();
}

absl::Status Planner::ResolveSubqueries(Expr& e) {
  std::shared_ptr<SelectStmt> query = std::move(e.subquery);
  auto owned = std::make_unique<SelectStmt>(std::move(*query));
  absl::StatusOr<std::shared_ptr<Plan>> planned = PlanSelect(std::move(owned));
  if (!planned.ok()) {
    if (planned.status().message().find("does not exist") == absl::string_view::npos) {
      return planned.status();
    }
    return absl::Status(planned.status().code(),
                        StrCat(planned.status().message(),
                               "; a subquery cannot use the outer query's columns (correlated "
                               "subqueries are not supported): join the tables instead"));
  }
  std::shared_ptr<Plan> plan = *planned;
  if (e.kind != ExprKind::kExists && plan->output.size() != 1) {
    return SqlError(sql_, e.pos, StrCat("the subquery returns ", plan->output.size(),
                                        " columns; it must return one"));
  }
  CollectSink rows(context_);
  RETURN_IF_ERROR(plan->run(&rows));
  const DataType type = plan->output.empty() ? DataType::kUnknown : plan->output[0].type;
  if (e.kind == ExprKind::kSubquery) {
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
    for (Row& row : rows.rows()) {
      auto value = std::make_unique<Expr>();
      value->kind = ExprKind::kLiteral;
      value->pos = e.pos;
      value->literal = std::move(row[0]);
      if (value->literal.null) value->literal.type = type;
      e.args.push_back(std::move(value));
    }
  }
  return absl::OkStatus();
}

}  // namespace strata::query
