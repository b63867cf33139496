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
//   - over groups, every column it reads is a GROUP BY key (no grouping sets); over windows
//     (without groups), a PARTITION BY key of every window: a filter on whole partitions
//     or whole groups keeps the others' values as they were.
// Moved conditions follow the subquery's own WHERE, so a condition that can fail still runs
// after those that guard it there.

#include <algorithm>
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
  std::vector<std::pair<std::string, const Expr*>> named;  // each named item, in order
  bool star = false;  // an unqualified * over a single table or subquery
};

std::optional<InnerColumns> ColumnsOf(const SelectStmt& inner) {
  InnerColumns out;
  for (const SelectItem& item : inner.items) {
    const Expr& e = *item.expr;
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
        std::vector<std::string> column_aliases)
      : columns_(columns), alias_(std::move(alias)), renamed_(std::move(column_aliases)) {
    bool aggregating = inner.grouped() || inner.having != nullptr;
    std::vector<const WindowSpec*> windows;
    for (const SelectItem& item : inner.items) {
      aggregating |= ContainsAggregate(*item.expr);
      CollectWindows(*item.expr, &windows);
    }
    grouping_sets_ = !inner.grouping_sets.empty();
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

  // The inner expression an outer column names; null when it names none for certain, or
  // the filter could not move past the groups or windows it reads.
  ExprPtr Inner(const Expr& column) const {
    if (!column.qualifier.empty() && column.qualifier != alias_) return nullptr;
    const Expr* found = nullptr;
    int matches = 0;
    if (!renamed_.empty()) {
      if (columns_.star) return nullptr;  // positions unknown past *
      for (size_t i = 0; i < renamed_.size() && i < columns_.named.size(); ++i) {
        if (renamed_[i] == column.name) found = columns_.named[i].second, ++matches;
      }
    } else {
      for (const auto& [name, expr] : columns_.named) {
        if (name == column.name) found = expr, ++matches;
      }
    }
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
    if (aggregating_ && !group_keys_.contains(text)) return nullptr;
    if (windowed_ && !partition_keys_.contains(text)) return nullptr;
    return inner;
  }

  const InnerColumns& columns_;
  std::string alias_;
  std::vector<std::string> renamed_;
  bool aggregating_ = false, windowed_ = false, grouping_sets_ = false;
  std::set<std::string> group_keys_, partition_keys_;
};

}  // namespace

void PushConjunctsIntoSubquery(SelectStmt& outer) {
  if (!outer.where || !outer.from || !outer.from->subquery || outer.from->lateral) return;
  TableRef& ref = *outer.from;
  SelectStmt& inner = *ref.subquery;
  if (inner.set_operation != SetOperation::kNone || inner.limit || inner.offset ||
      !inner.distinct_on.empty()) {
    return;
  }
  const std::optional<InnerColumns> columns = ColumnsOf(inner);
  if (!columns) return;
  const Mover mover(inner, *columns, ref.alias, ref.column_aliases);
  std::vector<ExprPtr> kept, moved;
  if (inner.where) moved = TakeConjuncts(std::move(inner.where));
  for (ExprPtr& conjunct : TakeConjuncts(std::move(outer.where))) {
    if (ExprPtr inside = mover.Rewrite(*conjunct)) {
      moved.push_back(std::move(inside));
    } else {
      kept.push_back(std::move(conjunct));
    }
  }
  inner.where = JoinConjuncts(std::move(moved));
  outer.where = JoinConjuncts(std::move(kept));
}

}  // namespace strata::query
