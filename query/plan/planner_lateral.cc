// Planner: LATERAL subqueries. `FROM d, LATERAL (SELECT * FROM t WHERE t.k = d.k ORDER BY
// time DESC LIMIT 1) AS c` reads, for each row of d, the subquery's rows for that row. Run
// once per outer row, it would cost the product of both sides and could hold a worker for
// hours; instead the subquery is rewritten to run once, for every outer key at once:
//
//   SELECT *, t.k AS key, row_number() OVER (PARTITION BY t.k ORDER BY time DESC) AS rn
//   FROM t WHERE <its other conditions>        -- kept where rn <= 1
//
// and joined to d ON c.key = d.k (the equalities of its WHERE that read the items before it
// become the join's keys), so the hash join, its memory limit and the scans' pushdown serve
// it as any join. A GROUP BY subquery groups by the keys too. What cannot be written so is
// refused, saying how to write it: the outer items read elsewhere than in such equalities,
// and an aggregate without GROUP BY (one row for every outer row, matched or not: a
// correlated scalar subquery in the select list gives it).

#include <limits>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"
#include "common/strings.h"
#include "query/plan/planner.h"
#include "query/plan/planner_internal.h"

namespace strata::query {
namespace {

ExprPtr LateralNode(ExprKind kind, Position pos, std::string name = "") {
  auto e = std::make_unique<Expr>();
  e->kind = kind;
  e->pos = pos;
  e->name = std::move(name);
  return e;
}

void LateralAdopt(Expr& parent, ExprPtr child) {
  parent.height = std::max(parent.height, child->height + 1);
  parent.args.push_back(std::move(child));
}

ExprPtr LateralColumn(Position pos, const std::string& qualifier, const std::string& name) {
  ExprPtr column = LateralNode(ExprKind::kColumn, pos, name);
  column->qualifier = qualifier;
  return column;
}

ExprPtr LateralCompare(Position pos, const std::string& op, ExprPtr left, ExprPtr right) {
  ExprPtr e = LateralNode(ExprKind::kBinary, pos, op);
  LateralAdopt(*e, std::move(left));
  LateralAdopt(*e, std::move(right));
  return e;
}

ExprPtr LateralNumber(Position pos, int64_t n) {
  ExprPtr e = LateralNode(ExprKind::kLiteral, pos);
  e->literal = Datum::Bigint(n);
  return e;
}

std::string LateralKeyName(size_t i) { return StrCat(kLateralKeyPrefix, i); }

// True if any of the statement's expressions but WHERE reads the outer items.
bool ReadsOuterOutsideWhere(const SelectStmt& query, const std::set<std::string>& outer,
                            const std::set<std::string>& inner) {
  const auto reads = [&](const ExprPtr& e) { return e && ReadsOuter(*e, outer, inner); };
  for (const SelectItem& item : query.items) {
    if (reads(item.expr)) return true;
  }
  for (const OrderItem& o : query.order_by) {
    if (reads(o.expr)) return true;
  }
  for (const ExprPtr& g : query.group_by) {
    if (reads(g)) return true;
  }
  for (const ExprPtr& d : query.distinct_on) {
    if (reads(d)) return true;
  }
  return reads(query.having);
}

}  // namespace

absl::Status Planner::RewriteLateralJoin(TableRef& join) {
  TableRef& right = *join.right;
  right.lateral = false;
  SelectStmt& query = *right.subquery;
  std::set<std::string> outer;
  FromNames(*join.left, &outer);
  std::set<std::string> inner;
  if (query.from) FromNames(*query.from, &inner);
  const bool in_where = query.where && ReadsOuter(*query.where, outer, inner);
  const bool elsewhere = ReadsOuterOutsideWhere(query, outer, inner);
  if (!in_where && !elsewhere) return absl::OkStatus();  // an ordinary subquery

  const auto refuse = [&](std::string_view why) {
    return SqlError(sql_, right.pos,
                    StrCat("a LATERAL subquery ", why,
                           " (supported: the items before it read in equalities ANDed in its "
                           "WHERE, `inner = outer.column`, with ORDER BY and LIMIT for the first "
                           "rows of each, or GROUP BY)"));
  };
  if (join.join == JoinKind::kRight || join.join == JoinKind::kFull) {
    return refuse("joins with JOIN, LEFT JOIN, CROSS JOIN or a comma");
  }
  if (join.natural || !join.using_columns.empty()) return refuse("joins ON a condition");
  if (query.set_operation != SetOperation::kNone || !query.from) {
    return refuse("is one SELECT ... FROM");
  }
  if (elsewhere) return refuse("reads the items before it only in its WHERE");
  if (!query.grouping_sets.empty() || !query.distinct_on.empty()) {
    return refuse("cannot have grouping sets or DISTINCT ON");
  }
  bool aggregating = query.having != nullptr;
  for (const SelectItem& item : query.items) aggregating |= ContainsAggregate(*item.expr);
  if (aggregating && !query.grouped()) {
    return refuse(
        "over an aggregate needs GROUP BY (without, it has a row for every outer row, matched "
        "or not: write it as a subquery in the select list, `(SELECT count(*) FROM t WHERE t.k = "
        "d.k)`)");
  }
  const bool limited = query.limit.has_value() || query.offset.has_value();
  if (limited && (aggregating || query.distinct)) {
    return refuse("cannot have LIMIT or OFFSET with DISTINCT or GROUP BY");
  }

  // WHERE: the equalities with an outer column become the join's keys.
  std::optional<CorrelationKeys> split = SplitCorrelation(std::move(query.where), outer, inner);
  if (!split) return refuse("reads the items before it outside an equality");
  std::vector<ExprPtr>& inner_keys = split->inner;
  std::vector<ExprPtr>& outer_keys = split->outer;
  query.where = JoinConjuncts(std::move(split->rest));

  const Position pos = right.pos;
  // ORDER BY as the row numbers' order: a position or an output name means its item.
  std::vector<OrderItem> order;
  for (OrderItem& o : query.order_by) {
    const Expr* item = nullptr;
    if (o.expr->kind == ExprKind::kLiteral && o.expr->literal.type == DataType::kBigint &&
        o.expr->literal.i >= 1 && o.expr->literal.i <= static_cast<int64_t>(query.items.size())) {
      item = query.items[o.expr->literal.i - 1].expr.get();
    } else if (o.expr->kind == ExprKind::kColumn && o.expr->qualifier.empty()) {
      for (const SelectItem& i : query.items) {
        if (i.alias == o.expr->name) item = i.expr.get();
      }
    }
    if (item != nullptr && item->kind == ExprKind::kStar) {
      return refuse("orders by a column of * by its name, not its position");
    }
    order.push_back({item ? item->Clone() : std::move(o.expr), o.descending, o.nulls_first});
  }
  query.order_by.clear();
  for (size_t k = 0; k < inner_keys.size(); ++k) {
    query.items.push_back({inner_keys[k]->Clone(), LateralKeyName(k)});
    if (aggregating) query.group_by.push_back(inner_keys[k]->Clone());
  }
  right.lateral_keys = static_cast<int>(inner_keys.size());
  if (limited) {
    // The first rows of each key: row_number() over the keys in ORDER BY's order, kept from
    // OFFSET + 1 to OFFSET + LIMIT.
    ExprPtr row_number = LateralNode(ExprKind::kCall, pos, "row_number");
    row_number->window = std::make_shared<WindowSpec>();
    for (const ExprPtr& k : inner_keys) row_number->window->partition_by.push_back(k->Clone());
    row_number->window->order_by = std::move(order);
    // WITH TIES: the last kept are those whose rank() is within OFFSET + LIMIT.
    ExprPtr rank;
    if (query.limit_with_ties) {
      rank = LateralNode(ExprKind::kCall, pos, "rank");
      rank->window = row_number->window->Clone();
    }
    const std::string rn = LateralKeyName(inner_keys.size());
    query.items.push_back({std::move(row_number), rn});
    ++right.lateral_keys;
    const std::string last_column = rank ? LateralKeyName(inner_keys.size() + 1) : rn;
    if (rank) {
      query.items.push_back({std::move(rank), last_column});
      ++right.lateral_keys;
    }
    const int64_t skip = query.offset.value_or(0);
    const int64_t last = query.limit && *query.limit <= std::numeric_limits<int64_t>::max() - skip
                             ? skip + *query.limit
                             : std::numeric_limits<int64_t>::max();
    query.limit.reset();
    query.limit_with_ties = false;
    query.offset.reset();
    std::unique_ptr<SelectStmt> first_rows = SelectAllFrom(pos);
    first_rows->from->subquery = std::move(right.subquery);
    first_rows->from->alias = "lateral";
    std::vector<ExprPtr> kept;
    kept.push_back(
        LateralCompare(pos, ">", LateralColumn(pos, "lateral", rn), LateralNumber(pos, skip)));
    kept.push_back(LateralCompare(pos, "<=", LateralColumn(pos, "lateral", last_column),
                                  LateralNumber(pos, last)));
    first_rows->where = JoinConjuncts(std::move(kept));
    right.subquery = std::move(first_rows);
  }

  // The join: ON its own condition and the keys.
  if (right.alias.empty()) right.alias = "lateral";
  std::vector<ExprPtr> on;
  if (join.on) on.push_back(std::move(join.on));
  for (size_t k = 0; k < outer_keys.size(); ++k) {
    on.push_back(LateralCompare(pos, "=", LateralColumn(pos, right.alias, LateralKeyName(k)),
                                std::move(outer_keys[k])));
  }
  join.on = JoinConjuncts(std::move(on));
  if (join.join == JoinKind::kCross) join.join = JoinKind::kInner;
  return absl::OkStatus();
}

}  // namespace strata::query
