// A table on a cluster node that holds some of its shards only: read as fragments
// (query/exec/shard_fragments.h), each `SELECT * FROM table WHERE <pushed>` at one node over
// the shards it reads; WHERE then applies in full over their rows here, as over a subquery.
#include <optional>
#include <set>
#include <string>

#include "common/status.h"
#include "common/strings.h"
#include "query/exec/shard_fragments.h"
#include "query/expr/sql_text.h"
#include "query/plan/planner.h"
#include "query/plan/planner_internal.h"

namespace strata::query {
namespace {

// The conjuncts of `where` (bound against `schema`) a fragment can apply as it is written:
// the time range (as its bounds, so ago() and now() are read on this node's clock) and
// those AppendPortableSql writes.
std::string PushedConditions(ExprPtr where, const Schema& schema, const EvalContext& eval) {
  int time_column = -1;
  for (size_t c = 0; c < schema.size(); ++c) {
    if (schema[c].name == kTimeColumn) time_column = static_cast<int>(c);
  }
  int64_t start = INT64_MIN, end = INT64_MAX;
  std::string pushed;
  auto add = [&pushed](std::string_view condition) {
    pushed.append(pushed.empty() ? " WHERE " : " AND ").append(condition);
  };
  for (ExprPtr& c : TakeConjuncts(std::move(where))) {
    if (time_column >= 0 && NarrowTimeRange(*c, time_column, eval, &start, &end)) continue;
    std::string text;
    if (AppendPortableSql(*c, schema, &text)) add(text);
  }
  const std::string time = QuoteIdentifier(kTimeColumn);
  if (start != INT64_MIN) add(StrCat(time, " >= from_nanoseconds(", start, ")"));
  if (end != INT64_MAX) add(StrCat(time, " < from_nanoseconds(", end, ")"));
  return pushed;
}

bool HasSubquery(const Expr& e) {
  if (e.subquery != nullptr || e.kind == ExprKind::kSubquery || e.kind == ExprKind::kExists ||
      e.kind == ExprKind::kLookup) {
    return true;
  }
  for (const ExprPtr& a : e.args) {
    if (HasSubquery(*a)) return true;
  }
  return false;
}

// The names of the columns `select` reads from its one table; nullopt when it reads them
// all (SELECT *) or may read any (a subquery may name the outer table's columns).
std::optional<std::set<std::string>> ColumnsRead(const SelectStmt& select) {
  std::vector<const Expr*> exprs;
  for (const SelectItem& item : select.items) exprs.push_back(item.expr.get());
  for (const ExprPtr* e : {&select.where, &select.having}) {
    if (*e) exprs.push_back(e->get());
  }
  for (const ExprPtr& g : select.group_by) exprs.push_back(g.get());
  for (const OrderItem& o : select.order_by) exprs.push_back(o.expr.get());
  std::vector<std::pair<std::string, std::string>> named;
  bool star = false;
  for (const Expr* e : exprs) {
    if (HasSubquery(*e)) return std::nullopt;
    CollectColumnNames(*e, &named, &star);
  }
  if (star) return std::nullopt;
  std::set<std::string> names;
  for (auto& [qualifier, name] : named) names.insert(std::move(name));
  return names;
}

}  // namespace

absl::StatusOr<std::optional<Planner::Source>> Planner::PlanShardedTable(const TableRef& ref,
                                                                         const SelectStmt* select) {
  const Expr* where = select != nullptr ? select->where.get() : nullptr;
  ShardReads* reads = context_->shard_reads;
  // A fragment reads its own node's engine.
  if (reads == nullptr || context_->shard_scope != nullptr) return std::nullopt;
  ASSIGN_OR_RETURN(std::vector<FragmentSite> sites, reads->Sites());
  if (sites.empty()) return std::nullopt;
  // The grant and the table's existence, checked as for any table.
  ASSIGN_OR_RETURN(ResolvedTable resolved, ResolveTable(ref));
  const TableInfo& table = *resolved.table;
  const std::string name =
      StrCat(QuoteIdentifier(table.database_name), ".", QuoteIdentifier(table.name));
  const std::string select_all = StrCat("SELECT * FROM ", name);
  std::vector<std::vector<ResultColumn>> site_columns;
  for (const FragmentSite& site : sites) {
    ASSIGN_OR_RETURN(std::vector<ResultColumn> columns,
                     reads->Describe(site, select_all, context_->deadline));
    site_columns.push_back(std::move(columns));
  }
  const std::string qualifier = ref.alias.empty() ? ref.table : ref.alias;
  ASSIGN_OR_RETURN(Schema schema, MergeFragmentColumns(site_columns, qualifier));
  std::string pushed;
  if (where != nullptr) {
    // A copy bound here: the SELECT binds and applies its own WHERE over the fragments' rows.
    ExprPtr bound = where->Clone();
    if (BindWhere(*bound, schema).ok()) {
      pushed = PushedConditions(std::move(bound), schema, context_->eval);
    }
  }
  // What the fragments send: the columns the statement reads (at least one, so that rows
  // are counted), or all of them.
  std::string sent = "*";
  if (std::optional<std::set<std::string>> read =
          select != nullptr ? ColumnsRead(*select) : std::nullopt) {
    sent.clear();
    for (const ColumnInfo& c : schema) {
      if (!read->contains(c.name)) continue;
      sent += (sent.empty() ? "" : ", ") + QuoteIdentifier(c.name);
    }
    if (sent.empty()) sent = QuoteIdentifier(kTimeColumn);
  }
  Source source;
  source.node =
      std::make_shared<ShardFragmentsNode>(std::move(schema), reads, std::move(sites),
                                           StrCat("SELECT ", sent, " FROM ", name, pushed), name);
  return source;
}

}  // namespace strata::query
