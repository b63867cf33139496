// Planner: WHERE conditions moved into the subquery they filter. `SELECT * FROM (SELECT host,
// time, row_number() OVER (PARTITION BY host ORDER BY time DESC) AS rn FROM t) s WHERE host =
// 'h1' AND rn = 1` numbered every host's rows before keeping one host's; with `host = 'h1'` in
// the subquery's WHERE the scan reads that host's series alone (and rn = 1 stays outside).
//
// A condition moves when it means the same inside, written with the subquery's expressions
// in place of its output columns, and filtering earlier cannot change the rows that pass:
//   - it reads only the subquery's columns, each an item named by its alias or column, or a
//     column of the subquery's single FROM item through `*` (a name not among the named
//     items); nothing else (no subquery, aggregate, window, lambda or volatile function);
//   - the subquery has no LIMIT, OFFSET, DISTINCT ON or set operation, and is not LATERAL;
//   - in a join, the subquery is on a side WHERE may filter before it (either side of an
//     inner or cross join, the kept side of a LEFT or RIGHT join), and the condition names its
//     columns by the subquery's alias (s.host: a bare host might be another item's);
//   - over groups, every item it reads is one of the select list's non-aggregate items of a
//     GROUP BY query (a function of the keys; through `*`, a key; no grouping sets); over windows
//     (without groups), a PARTITION BY key of every window: a filter on whole partitions
//     or whole groups keeps the others' values as they were.
// Moved conditions follow the subquery's own WHERE, so a condition that can fail still runs
// after those that guard it there.
//
// A bound on a ranking window call of the subquery (`rn <= 3` over row_number(), rank() or
// dense_rank(), the whole item) cannot move, but under the same conditions it is noted on the
// call (Expr::kept_ranks): the window may then keep only the top rows of each partition before
// it numbers them (query/exec/partition_top_n.h says when it does).

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/strings.h"
#include "query/functions/functions.h"
#include "query/parse/parser.h"
#include "query/plan/planner_internal.h"

namespace strata::query {
namespace {

// What an outer column name stands for inside the subquery: a named item's expression, or
// (through `*`) a column of its FROM item.
struct InnerColumns {
  std::vector<std::pair<std::string, Expr*>> named;  // each named item, in order
  bool star = false;  // an unqualified * over a single table or subquery
};

std::optional<InnerColumns> ColumnsOf(SelectStmt& inner) {
  InnerColumns out;
  for (SelectItem& item : inner.items) {
    Expr& e = *item.expr;
    if (e.kind == ExprKind::kStar) {
      const bool single_source = inner.from && inner.from->join == JoinKind::kNone &&
                                 inner.from->unnest.empty() && inner.from->values.empty() &&
                                 inner.from->column_aliases.empty();
      if (!e.qualifier.empty() || !single_source || out.star) return std::nullopt;
      out.star = true;
    } else if (!item.alias.empty()) {
      out.named.emplace_back(item.alias, &e);
    } else if (e.kind == ExprKind::kColumn) {
      out.named.emplace_back(e.name, &e);
    } else {
      out.named.emplace_back("", &e);  // a computed name (_colN): no outer name reaches it
    }
  }
  return out;
}

// The window specs of the expression's window calls.
void CollectWindows(const Expr& e, std::vector<const WindowSpec*>* out) {
  if (e.window) out->push_back(e.window.get());
  for (const ExprPtr& a : e.args) CollectWindows(*a, out);
}

// Whether a conjunct may be read inside at all: no subquery, aggregate, window, lambda,
// lookup or volatile function.
bool Movable(const Expr& e) {
  if (e.kind == ExprKind::kSubquery || e.kind == ExprKind::kExists || e.kind == ExprKind::kLambda ||
      e.kind == ExprKind::kLookup || e.kind == ExprKind::kStar || e.subquery || e.window ||
      e.ordered_by || e.bound.lookup) {
    return false;
  }
  if (e.kind == ExprKind::kCall) {
    const FunctionRegistry& registry = FunctionRegistry::Get();
    if (registry.FindAggregate(e.name) != nullptr) return false;
    const ScalarFunction* f = registry.FindScalar(e.name);
    if (f != nullptr && f->volatile_value) return false;
  }
  for (const ExprPtr& a : e.args) {
    if (!Movable(*a)) return false;
  }
  return true;
}

class Mover {
 public:
  Mover(const SelectStmt& inner, const InnerColumns& columns, std::string alias,
        std::vector<std::string> column_aliases, bool qualified_only)
      : columns_(columns),
        alias_(std::move(alias)),
        renamed_(std::move(column_aliases)),
        qualified_only_(qualified_only) {
    bool aggregating = inner.grouped() || inner.having != nullptr;
    std::vector<const WindowSpec*> windows;
    for (const SelectItem& item : inner.items) {
      aggregating |= ContainsAggregate(*item.expr);
      CollectWindows(*item.expr, &windows);
    }
    grouping_sets_ = !inner.grouping_sets.empty();
    grouped_ = !inner.group_by.empty();
    aggregating_ = aggregating;
    windowed_ = !windows.empty();
    for (const ExprPtr& g : inner.group_by) {
      if (g->kind == ExprKind::kLiteral && g->literal.type == DataType::kBigint &&
          g->literal.i >= 1 && g->literal.i <= static_cast<int64_t>(inner.items.size())) {
        group_keys_.insert(inner.items[g->literal.i - 1].expr->ToString());
      } else {
        group_keys_.insert(g->ToString());
      }
    }
    for (size_t w = 0; w < windows.size(); ++w) {
      std::set<std::string> keys;
      for (const ExprPtr& p : windows[w]->partition_by) keys.insert(p->ToString());
      if (w == 0) {
        partition_keys_ = std::move(keys);
      } else {
        std::set<std::string> common;
        for (const std::string& k : keys) {
          if (partition_keys_.contains(k)) common.insert(k);
        }
        partition_keys_ = std::move(common);
      }
    }
  }

  // The conjunct written over the subquery's own columns, or null when it cannot move.
  ExprPtr Rewrite(const Expr& conjunct) const {
    if ((aggregating_ && (grouping_sets_ || windowed_)) || !Movable(conjunct)) return nullptr;
    ExprPtr out = Substitute(conjunct);
    if (out == nullptr || out->height > kMaxExpressionDepth) return nullptr;
    return out;
  }

  // The ranking window call (row_number(), rank() or dense_rank(), the whole item) an outer
  // column names, or null.
  Expr* RankingCall(const Expr& column) const {
    if (!Ours(column) || columns_.star) return nullptr;
    int matches = 0;
    Expr* found = Find(column, &matches);
    if (found == nullptr || matches != 1 || found->kind != ExprKind::kCall || !found->window ||
        !found->args.empty()) {
      return nullptr;
    }
    const std::string& f = found->name;
    return f == "row_number" || f == "rank" || f == "dense_rank" ? found : nullptr;
  }

 private:
  ExprPtr Substitute(const Expr& e) const {
    ExprPtr copy = e.Clone();
    return Replace(copy) ? std::move(copy) : nullptr;
  }

  // Each column of `node` replaced by its inner expression, the heights made again.
  bool Replace(ExprPtr& node) const {
    if (node->kind == ExprKind::kColumn) {
      node = Inner(*node);
      return node != nullptr;
    }
    node->height = 1;
    for (ExprPtr& a : node->args) {
      if (!Replace(a)) return false;
      node->height = std::max(node->height, a->height + 1);
    }
    return true;
  }

  // Whether an outer column is the subquery's for certain (not another alias's, nor
  // unqualified in a join).
  bool Ours(const Expr& column) const {
    return column.qualifier.empty() ? !qualified_only_ : column.qualifier == alias_;
  }

  // The named select item an outer column names (the last of them), and how many it names.
  // With column aliases, REQUIRES no `*` (positions past it are unknown).
  Expr* Find(const Expr& column, int* matches) const {
    Expr* found = nullptr;
    if (!renamed_.empty()) {
      for (size_t i = 0; i < renamed_.size() && i < columns_.named.size(); ++i) {
        if (renamed_[i] == column.name) found = columns_.named[i].second, ++*matches;
      }
    } else {
      for (const auto& [name, expr] : columns_.named) {
        if (name == column.name) found = expr, ++*matches;
      }
    }
    return found;
  }

  // The inner expression an outer column names; null when it names none for certain, or
  // the filter could not move past the groups or windows it reads.
  ExprPtr Inner(const Expr& column) const {
    if (!Ours(column) || (!renamed_.empty() && columns_.star)) return nullptr;
    int matches = 0;
    const Expr* found = Find(column, &matches);
    ExprPtr inner;
    if (matches == 1 && !columns_.star) {
      if (ContainsAggregate(*found) || ContainsWindow(*found) || !Movable(*found)) return nullptr;
      inner = found->Clone();
    } else if (matches == 0 && columns_.star && renamed_.empty()) {
      // A column of the single FROM item (were it none, the outer query would fail alike).
      inner = std::make_unique<Expr>();
      inner->kind = ExprKind::kColumn;
      inner->pos = column.pos;
      inner->name = column.name;
      inner->quoted = column.quoted;
    } else {
      return nullptr;  // ambiguous, or a name * might also give
    }
    const std::string text = inner->ToString();
    // A select item of a grouped query that is not an aggregate reads the group keys alone
    // (else the query is refused whatever moves), so a condition on it keeps or drops whole
    // groups: `upper(host) AS h ... GROUP BY host`, `host AS h ... GROUP BY h`. A column through
    // `*` must be a key itself.
    const bool item_over_keys = grouped_ && !columns_.star;
    if (aggregating_ && !item_over_keys && !group_keys_.contains(text)) return nullptr;
    if (windowed_ && !partition_keys_.contains(text)) return nullptr;
    return inner;
  }

  const InnerColumns& columns_;
  std::string alias_;
  std::vector<std::string> renamed_;
  bool qualified_only_;
  bool aggregating_ = false, windowed_ = false, grouping_sets_ = false, grouped_ = false;
  std::set<std::string> group_keys_, partition_keys_;
};

// The rank a conjunct keeps a column at or below: `rn <= 3`, `rn < 4`, `rn = 3`, `3 >= rn`,
// `rn BETWEEN 1 AND 3` give the column and 3.
std::optional<std::pair<const Expr*, int64_t>> RankBound(const Expr& c) {
  auto number = [](const Expr& e) {
    return e.kind == ExprKind::kLiteral && !e.literal.null && e.literal.type == DataType::kBigint;
  };
  if (c.kind == ExprKind::kBetween && !c.negated && c.args.size() == 3 &&
      c.args[0]->kind == ExprKind::kColumn && number(*c.args[2])) {
    return std::make_pair(c.args[0].get(), c.args[2]->literal.i);
  }
  if (c.kind != ExprKind::kBinary || c.args.size() != 2) return std::nullopt;
  const Expr& left = *c.args[0];
  const Expr& right = *c.args[1];
  std::string op = c.name;
  const Expr* column = &left;
  int64_t n = 0;
  if (left.kind == ExprKind::kColumn && number(right)) {
    n = right.literal.i;
  } else if (right.kind == ExprKind::kColumn && number(left)) {
    column = &right;
    n = left.literal.i;
    // Mirrored: 3 >= rn is rn <= 3, and 3 <= rn is rn >= 3 (no bound).
    op = op == ">=" ? "<=" : op == ">" ? "<" : op == "<=" ? ">=" : op == "<" ? ">" : op;
  } else {
    return std::nullopt;
  }
  if (op == "<=" || op == "=") return std::make_pair(column, n);
  if (op == "<" && n > 1) return std::make_pair(column, n - 1);
  return std::nullopt;
}

}  // namespace

namespace {

// Moves into `ref`'s subquery the conjuncts it can take (each left null). In a join only those
// naming the subquery's columns by its alias are read as its own (an unqualified name might
// be another item's).
void MoveInto(TableRef& ref, bool qualified_only, std::vector<ExprPtr>& conjuncts) {
  SelectStmt& inner = *ref.subquery;
  if (inner.set_operation != SetOperation::kNone || inner.limit || inner.offset ||
      !inner.distinct_on.empty() || (qualified_only && ref.alias.empty())) {
    return;
  }
  const std::optional<InnerColumns> columns = ColumnsOf(inner);
  if (!columns) return;
  const Mover mover(inner, *columns, ref.alias, ref.column_aliases, qualified_only);
  std::vector<ExprPtr> moved;
  for (ExprPtr& conjunct : conjuncts) {
    if (conjunct == nullptr) continue;
    if (ExprPtr inside = mover.Rewrite(*conjunct)) {
      moved.push_back(std::move(inside));
      conjunct = nullptr;
      continue;
    }
    // A bound on a ranking window call stays outside, and tells the window how many rows of
    // each partition it may keep.
    const auto bound = RankBound(*conjunct);
    if (!bound || bound->second < 1) continue;
    if (Expr* call = mover.RankingCall(*bound->first)) {
      call->kept_ranks =
          call->kept_ranks == 0 ? bound->second : std::min(call->kept_ranks, bound->second);
    }
  }
  if (moved.empty()) return;
  std::vector<ExprPtr> where;
  if (inner.where) where = TakeConjuncts(std::move(inner.where));
  for (ExprPtr& m : moved) where.push_back(std::move(m));
  inner.where = JoinConjuncts(std::move(where));
}

// The FROM subqueries whose rows a WHERE condition may filter before the joins: both sides of
// an inner or cross join, the kept side of a LEFT or RIGHT join (filtering the other side
// would turn its rows' misses into NULL-filled rows the condition never saw), neither of FULL.
void FilterableSubqueries(TableRef& ref, std::vector<TableRef*>* out) {
  if (ref.join == JoinKind::kNone) {
    if (ref.subquery && !ref.lateral) out->push_back(&ref);
    return;
  }
  if (ref.join == JoinKind::kInner || ref.join == JoinKind::kCross || ref.join == JoinKind::kLeft) {
    FilterableSubqueries(*ref.left, out);
  }
  if (ref.join == JoinKind::kInner || ref.join == JoinKind::kCross ||
      ref.join == JoinKind::kRight) {
    FilterableSubqueries(*ref.right, out);
  }
}

}  // namespace

void PushConjunctsIntoSubquery(SelectStmt& outer) {
  if (!outer.where || !outer.from) return;
  std::vector<TableRef*> items;
  FilterableSubqueries(*outer.from, &items);
  if (items.empty()) return;
  std::vector<ExprPtr> conjuncts = TakeConjuncts(std::move(outer.where));
  const bool join = outer.from->join != JoinKind::kNone;
  for (TableRef* item : items) MoveInto(*item, join, conjuncts);
  std::vector<ExprPtr> kept;
  for (ExprPtr& c : conjuncts) {
    if (c != nullptr) kept.push_back(std::move(c));
  }
  outer.where = JoinConjuncts(std::move(kept));
}

}  // namespace strata::query
