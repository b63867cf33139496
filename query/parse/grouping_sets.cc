#include "query/parse/grouping_sets.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_join.h"
#include "common/status.h"
#include "common/strings.h"
#include "query/functions/functions.h"

namespace strata::query {
namespace {

GroupingSet CloneSet(const GroupingSet& set) {
  GroupingSet copy;
  for (const ExprPtr& k : set) copy.push_back(k->Clone());
  return copy;
}

bool IsGroupingCall(const Expr& e) { return e.kind == ExprKind::kCall && e.name == "grouping"; }

bool IsAggregateCall(const Expr& e) {
  return e.kind == ExprKind::kCall && !e.window && FunctionRegistry::Get().FindAggregate(e.name);
}

// True if `e` calls grouping() or an aggregate (`what`), outside subqueries.
bool Contains(const Expr& e, bool (*what)(const Expr&)) {
  if (what(e)) return true;
  if (e.kind == ExprKind::kSubquery || e.kind == ExprKind::kExists) return false;
  for (const ExprPtr& a : e.args) {
    if (Contains(*a, what)) return true;
  }
  return false;
}

bool SelectContains(const SelectStmt& select, bool (*what)(const Expr&)) {
  for (const SelectItem& item : select.items) {
    if (Contains(*item.expr, what)) return true;
  }
  return select.having && Contains(*select.having, what);
}

ExprPtr LiteralAt(Position pos, Datum value) {
  auto e = std::make_unique<Expr>();
  e->kind = ExprKind::kLiteral;
  e->pos = pos;
  e->literal = std::move(value);
  return e;
}

// Rewrites one copy's expressions for the set whose keys' texts are `grouped`, of GROUP BY's
// keys `keys`.
class SetRewriter {
 public:
  SetRewriter(const absl::flat_hash_set<std::string>& keys,
              const absl::flat_hash_set<std::string>& grouped, std::string_view sql)
      : keys_(keys), grouped_(grouped), sql_(sql) {}

  absl::Status Rewrite(ExprPtr& e) {
    if (IsGroupingCall(*e) && !e->window) {
      if (e->args.empty() || e->args.size() > 62) {
        return SqlError(sql_, e->pos, "grouping() takes 1 to 62 of GROUP BY's keys");
      }
      int64_t bits = 0;
      for (const ExprPtr& a : e->args) {
        const std::string text = a->ToString();
        if (!keys_.contains(text)) {
          return SqlError(sql_, a->pos,
                          StrCat("grouping() takes GROUP BY's keys; ", text, " is not one"));
        }
        bits = bits << 1 | (grouped_.contains(text) ? 0 : 1);
      }
      e = LiteralAt(e->pos, Datum::Bigint(bits));
      return absl::OkStatus();
    }
    // An aggregate reads the rows, where every key has its value; a subquery's or a lambda's
    // names are its own.
    if (IsAggregateCall(*e) || e->kind == ExprKind::kSubquery || e->kind == ExprKind::kExists ||
        e->kind == ExprKind::kLambda) {
      return absl::OkStatus();
    }
    if (e->kind != ExprKind::kLiteral) {
      const std::string text = e->ToString();
      if (keys_.contains(text) && !grouped_.contains(text)) {
        e = LiteralAt(e->pos, Datum::Null());
        return absl::OkStatus();
      }
    }
    for (ExprPtr& a : e->args) RETURN_IF_ERROR(Rewrite(a));
    if (e->window) {
      // A window over the groups partitions and orders by keys: its own copy, rewritten.
      e->window = e->window->Clone();
      for (ExprPtr& p : e->window->partition_by) RETURN_IF_ERROR(Rewrite(p));
      for (OrderItem& o : e->window->order_by) RETURN_IF_ERROR(Rewrite(o.expr));
    }
    return absl::OkStatus();
  }

 private:
  const absl::flat_hash_set<std::string>& keys_;
  const absl::flat_hash_set<std::string>& grouped_;
  std::string_view sql_;
};

}  // namespace

std::vector<GroupingSet> RollupSets(const std::vector<ExprPtr>& keys) {
  std::vector<GroupingSet> sets;
  for (size_t n = keys.size() + 1; n-- > 0;) {
    GroupingSet set;
    for (size_t k = 0; k < n; ++k) set.push_back(keys[k]->Clone());
    sets.push_back(std::move(set));
  }
  return sets;
}

std::optional<std::vector<GroupingSet>> CubeSets(const std::vector<ExprPtr>& keys) {
  if (keys.size() >= 64 || (size_t{1} << keys.size()) > kMaxGroupingSets) return std::nullopt;
  std::vector<GroupingSet> sets;
  const size_t n = keys.size();
  for (uint64_t mask = (uint64_t{1} << n); mask-- > 0;) {
    GroupingSet set;
    // Bit n-1-k stands for key k, so the masks counting down give Presto's order.
    for (size_t k = 0; k < n; ++k) {
      if (mask >> (n - 1 - k) & 1) set.push_back(keys[k]->Clone());
    }
    sets.push_back(std::move(set));
  }
  return sets;
}

absl::StatusOr<std::vector<GroupingSet>> CrossGroupingSets(
    std::vector<std::vector<GroupingSet>> elements, bool distinct, Position pos,
    std::string_view sql) {
  std::vector<GroupingSet> sets(1);
  for (const std::vector<GroupingSet>& element : elements) {
    if (sets.size() * element.size() > kMaxGroupingSets) {
      return SqlError(sql, pos,
                      StrCat("GROUP BY makes more than ", kMaxGroupingSets,
                             " grouping sets; group by fewer keys or name the sets you need with "
                             "GROUPING SETS"));
    }
    std::vector<GroupingSet> crossed;
    for (const GroupingSet& set : sets) {
      for (const GroupingSet& more : element) {
        GroupingSet both = CloneSet(set);
        for (const ExprPtr& k : more) both.push_back(k->Clone());
        crossed.push_back(std::move(both));
      }
    }
    sets = std::move(crossed);
  }
  // A key named twice in a set groups once; with DISTINCT, a set named twice counts once.
  absl::flat_hash_set<std::string> seen_sets;
  std::vector<GroupingSet> out;
  for (GroupingSet& set : sets) {
    absl::flat_hash_set<std::string> seen_keys;
    GroupingSet keys;
    std::vector<std::string> texts;
    for (ExprPtr& k : set) {
      std::string text = k->ToString();
      if (seen_keys.insert(text).second) {
        texts.push_back(std::move(text));
        keys.push_back(std::move(k));
      }
    }
    std::sort(texts.begin(), texts.end());
    if (distinct && !seen_sets.insert(absl::StrJoin(texts, "\x1f")).second) continue;
    out.push_back(std::move(keys));
  }
  return out;
}

bool CallsGrouping(const SelectStmt& select) { return SelectContains(select, IsGroupingCall); }

absl::StatusOr<std::unique_ptr<SelectStmt>> ExpandGroupingSets(std::unique_ptr<SelectStmt> select,
                                                               std::vector<GroupingSet> sets,
                                                               std::string_view sql) {
  // A key given by its position in the select list is that item's expression.
  for (GroupingSet& set : sets) {
    for (ExprPtr& k : set) {
      if (k->kind == ExprKind::kLiteral && !k->literal.null &&
          k->literal.type == DataType::kBigint && k->literal.i >= 1 &&
          k->literal.i <= static_cast<int64_t>(select->items.size())) {
        k = select->items[static_cast<size_t>(k->literal.i - 1)].expr->Clone();
      }
    }
  }
  absl::flat_hash_set<std::string> keys;
  for (const GroupingSet& set : sets) {
    for (const ExprPtr& k : set) keys.insert(k->ToString());
  }
  const bool aggregates = SelectContains(*select, IsAggregateCall);
  std::unique_ptr<SelectStmt> out;
  for (GroupingSet& set : sets) {
    std::unique_ptr<SelectStmt> copy = select->Clone();
    absl::flat_hash_set<std::string> grouped;
    for (const ExprPtr& k : set) grouped.insert(k->ToString());
    SetRewriter rewriter(keys, grouped, sql);
    for (SelectItem& item : copy->items) {
      // A key's column keeps its name where it is NULL.
      const std::string name =
          item.alias.empty() && item.expr->kind == ExprKind::kColumn ? item.expr->name : item.alias;
      RETURN_IF_ERROR(rewriter.Rewrite(item.expr));
      item.alias = name;
    }
    if (copy->having) RETURN_IF_ERROR(rewriter.Rewrite(copy->having));
    copy->group_by = std::move(set);
    if (copy->group_by.empty() && !aggregates) {
      // The grand total of a select without aggregates is still one row (of a non-empty
      // input): grouped by a constant.
      copy->group_by.push_back(LiteralAt(select->items.front().expr->pos, Datum::Bool(true)));
    }
    if (!out) {
      out = std::move(copy);
      continue;
    }
    auto both = std::make_unique<SelectStmt>();
    both->set_operation = SetOperation::kUnion;
    both->set_all = true;
    both->set_left = std::move(out);
    both->set_right = std::move(copy);
    out = std::move(both);
  }
  for (const SelectItem& item : select->items) out->grouping_items.push_back(item.expr->ToString());
  return out;
}

void OrderGroupingSetsByPosition(SelectStmt& select) {
  for (OrderItem& o : select.order_by) {
    if (o.expr->kind == ExprKind::kLiteral) continue;
    const std::string text = o.expr->ToString();
    for (size_t i = 0; i < select.grouping_items.size(); ++i) {
      if (select.grouping_items[i] == text) {
        o.expr = LiteralAt(o.expr->pos, Datum::Bigint(static_cast<int64_t>(i) + 1));
        break;
      }
    }
  }
}

}  // namespace strata::query
