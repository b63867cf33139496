// A table on a cluster node that holds some of its shards only: read as fragments
// (query/exec/shard_fragments.h), each `SELECT <columns read> FROM table WHERE <pushed>` at
// one node over the shards it reads; WHERE then applies in full over their rows here, as over
// a subquery, unless the fragments applied every conjunct of it (FragmentedTable::where_whole). An
// aggregation over the table runs in the fragments when it can (AggregateInFragments): they send
// their groups' partial states, merged here.
#include <algorithm>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <thread>

#include "common/start_thread.h"
#include "common/status.h"
#include "common/strings.h"
#include "query/exec/shard_fragments.h"
#include "query/expr/sql_text.h"
#include "query/functions/functions.h"
#include "query/plan/planner.h"
#include "query/plan/planner_internal.h"
#include "storage/read/table_state.h"

namespace strata::query {
namespace {

// The time column's index in a table's schema, or -1; the series' columns (dimensions,
// measure_name) come before it.
int TimeColumnOf(const Schema& schema) {
  for (size_t c = 0; c < schema.size(); ++c) {
    if (schema[c].name == kTimeColumn) return static_cast<int>(c);
  }
  return -1;
}

// The most text of conditions a fragment's statement carries: it must stay within a
// statement's limit (kMaxQueryBytes) on the node that runs it, and a list parameter or an IN
// subquery's answers can write far more (a million values). What does not fit is applied by
// the coordinator, to the rows the fragments send.
constexpr size_t kMaxPushedConditionBytes = kMaxQueryBytes / 4;

// Takes the conjuncts of `where` (bound against `table->schema`) a fragment can apply as
// they are written into `table`: the time range (as its bounds, so ago() and now() are read
// on this node's clock) and those AppendPortableSql writes, up to kMaxPushedConditionBytes.
void PushConditions(ExprPtr where, const EvalContext& eval, FragmentedTable* table) {
  const Schema& schema = table->schema;
  const int time_column = TimeColumnOf(schema);
  int64_t start = INT64_MIN, end = INT64_MAX;
  size_t pushed_bytes = 0;
  for (ExprPtr& c : TakeConjuncts(std::move(where))) {
    if (time_column >= 0 && NarrowTimeRange(*c, time_column, eval, &start, &end)) continue;
    std::string text;
    if (AppendPortableSql(*c, schema, &text, nullptr, eval.now_nanos, table->lists.get()) &&
        pushed_bytes + text.size() <= kMaxPushedConditionBytes) {
      pushed_bytes += text.size();
      table->pushed.push_back(std::move(c));
    } else {
      table->where_whole = false;
    }
  }
  const std::string time = QuoteIdentifier(kTimeColumn);
  if (start != INT64_MIN) {
    table->time_range.push_back(StrCat(time, " >= from_nanoseconds(", start, ")"));
  }
  if (end != INT64_MAX) table->time_range.push_back(StrCat(time, " < from_nanoseconds(", end, ")"));
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

// The names of the columns `select` reads from its one table once its WHERE is applied
// (`where_in_fragments`: every conjunct of it, by the fragments, so that its columns need not
// be sent); nullopt when it reads them all (SELECT *) or may read any (a subquery may name
// the outer table's columns).
std::optional<std::set<std::string>> ColumnsRead(const SelectStmt& select,
                                                 bool where_in_fragments) {
  if (select.where && HasSubquery(*select.where)) return std::nullopt;
  std::vector<const Expr*> exprs;
  for (const SelectItem& item : select.items) exprs.push_back(item.expr.get());
  if (select.where && !where_in_fragments) exprs.push_back(select.where.get());
  if (select.having) exprs.push_back(select.having.get());
  for (const ExprPtr& g : select.group_by) exprs.push_back(g.get());
  for (const OrderItem& o : select.order_by) exprs.push_back(o.expr.get());
  for (const ExprPtr& k : select.distinct_on) exprs.push_back(k.get());
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

// ORDER BY ... LIMIT n of a SELECT over the table's rows alone (no aggregate, window or
// DISTINCT, WHERE pushed whole), as each fragment can apply it: " ORDER BY <keys> LIMIT
// n + offset" per site, so that each sends its first rows only and this node orders their
// union and takes n; empty otherwise. A key naming a select item (its alias or ordinal) is
// that item's expression.
std::vector<std::string> TopRowsInFragments(const SelectStmt& select, const FragmentedTable& table,
                                            std::string_view sql) {
  if (!select.limit.has_value() || select.limit_with_ties || select.order_by.empty() ||
      !table.where_whole || select.distinct || !select.distinct_on.empty() || select.grouped() ||
      select.having != nullptr) {
    return {};
  }
  for (const SelectItem& item : select.items) {
    if (ContainsAggregate(*item.expr) || ContainsWindow(*item.expr)) return {};
  }
  const int64_t rows = *select.limit + select.offset.value_or(0);
  if (rows < *select.limit) return {};  // overflow
  std::vector<std::string> clauses(table.sites.size());
  for (const OrderItem& o : select.order_by) {
    if (ContainsAggregate(*o.expr) || ContainsWindow(*o.expr)) return {};
    const Expr* key = o.expr.get();
    if (key->kind == ExprKind::kLiteral && key->literal.type == DataType::kBigint) {
      const int64_t k = key->literal.i;
      if (k < 1 || k > static_cast<int64_t>(select.items.size())) return {};
      key = select.items[k - 1].expr.get();
    } else if (key->kind == ExprKind::kColumn && key->qualifier.empty()) {
      for (const SelectItem& item : select.items) {
        if (item.alias == key->name) key = item.expr.get();
      }
    }
    ExprPtr bound = key->Clone();
    if (HasSubquery(*bound) || !Bind(*bound, table.schema, sql).ok()) return {};
    // A constant orders nothing, and written as it is (`SELECT 27 ... ORDER BY 1`) a
    // fragment would read an integer as an ordinal.
    if (IsConstant(*bound)) continue;
    for (size_t site = 0; site < clauses.size(); ++site) {
      std::string text;
      if (!table.AppendSql(*bound, site, &text)) return {};
      clauses[site] +=
          StrCat(clauses[site].empty() ? " ORDER BY " : ", ", text, o.descending ? " DESC" : " ASC",
                 o.NullsFirst() ? " NULLS FIRST" : " NULLS LAST");
    }
  }
  for (std::string& clause : clauses) clause += StrCat(" LIMIT ", rows);
  return clauses;
}

// Keeps of `table`'s sites the shards in `pinned`, and the sites left with any (at least
// one, with none: its fragment reads nothing but still gives the columns). Returns how many
// shards it dropped.
size_t KeepPinnedShards(const std::set<uint32_t>& pinned, FragmentedTable* table) {
  size_t dropped = 0;
  std::vector<FragmentSite> sites;
  std::vector<std::vector<bool>> absent;
  for (size_t i = 0; i < table->sites.size(); ++i) {
    FragmentSite& site = table->sites[i];
    const size_t before = site.shards.size();
    std::erase_if(site.shards, [&pinned](uint32_t s) { return !pinned.contains(s); });
    dropped += before - site.shards.size();
    const bool last_chance = sites.empty() && i + 1 == table->sites.size();
    if (site.shards.empty() && !last_chance) continue;
    sites.push_back(std::move(site));
    absent.push_back(std::move(table->absent[i]));
  }
  table->sites = std::move(sites);
  table->absent = std::move(absent);
  return dropped;
}

// How many of the table's series this node holds, by shard (of `shards`): what the
// fragments' scans weigh, as far as this node knows.
std::vector<uint64_t> SeriesByShard(const TableLayout& layout, uint32_t shards) {
  std::vector<uint64_t> series(shards, 0);
  if (shards == 0) return series;
  for (const SeriesTarget& s : layout.series) ++series[ShardOf(s.routing, shards)];
  return series;
}

// What this node's own part of a fanned-out read costs, as a share of the whole read's scan:
// this node scans that much less than an even share (ShardReads::BalanceSites). Measured on
// 3 nodes, 200 hosts x 12 h (docs/benchmarks.md): merging the fragments' groups of
// double-groupby-all took the coordinator a fifth of what one node takes for the query;
// passing high-cpu-all's rows on (84,000 of 864,000: decoding the fragments' pages, the
// client's pages) about a third; relaying them, when the client's pages are made where the
// rows are (query/base/relayed_pages.h), a quarter of it once this node's own fragment no
// longer waited for the others' first pages (session 75: at 0.15 n0 spent 20 ms of CPU a
// high-cpu-all and n1, n2 17-19; at 0.25 16-17 against 19, the query 52-55 -> 44-51 ms;
// 0.2 moved the same shard; docs/benchmarks.md).
double MergeShare(const SelectStmt* select, bool relays_pages) {
  constexpr double kMergeGroups = 0.2, kPassRows = 0.3, kRelayRows = 0.25;
  if (select == nullptr) return kMergeGroups;
  bool aggregating = select->grouped() || select->having != nullptr;
  for (const SelectItem& item : select->items) aggregating |= ContainsAggregate(*item.expr);
  if (aggregating || select->limit.has_value()) return kMergeGroups;
  // Likely relayed (PassThroughFragments decides once planned): rows of one table as they are.
  const bool relayed = relays_pages && select->order_by.empty() && !select->distinct &&
                       select->distinct_on.empty() && select->from.has_value() &&
                       select->from->join == JoinKind::kNone && !select->from->subquery &&
                       select->from->unnest.empty();
  return relayed ? kRelayRows : kPassRows;
}

}  // namespace

std::optional<std::set<uint32_t>> ShardsPinned(const std::vector<ExprPtr>& pushed,
                                               const Schema& schema, const PartitionKey& key,
                                               uint32_t count) {
  if (key.type != PartitionKeyType::kDimension) return std::nullopt;
  std::optional<std::set<uint32_t>> pinned;
  for (const ExprPtr& c : pushed) {
    const Expr* column = nullptr;
    std::vector<const Datum*> values;
    if (c->kind == ExprKind::kBinary && c->name == "=" && c->args.size() == 2) {
      const bool left = c->args[0]->kind == ExprKind::kColumn;
      column = c->args[left ? 0 : 1].get();
      const Expr& value = *c->args[left ? 1 : 0];
      if (value.kind != ExprKind::kLiteral) continue;
      values.push_back(&value.literal);
    } else if (c->kind == ExprKind::kIn && !c->negated) {
      std::optional<std::vector<const Datum*>> constants = InListConstants(*c);
      if (!constants) continue;
      column = c->args[0].get();
      values = *std::move(constants);
    }
    if (column == nullptr || column->kind != ExprKind::kColumn || column->bound.column < 0 ||
        schema[column->bound.column].name != key.name) {
      continue;
    }
    std::set<uint32_t> shards;
    const bool texts = std::all_of(values.begin(), values.end(),
                                   [](const Datum* v) { return v->type == DataType::kVarchar; });
    if (!texts) continue;
    for (const Datum* v : values) shards.insert(ShardOf(PartitionHash("", v->s, key), count));
    if (pinned.has_value()) {
      std::erase_if(*pinned, [&shards](uint32_t s) { return !shards.contains(s); });
    } else {
      pinned = std::move(shards);
    }
  }
  return pinned;
}

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
  // Each site's columns: those another node answers asked of all at once, the others (this
  // node's, remembered ones) meanwhile.
  std::vector<absl::StatusOr<std::vector<ResultColumn>>> described(sites.size());
  {
    auto describe = [&](size_t i) {
      described[i] = reads->Describe(sites[i], select_all, context_->deadline);
    };
    std::vector<bool> at_once(sites.size());
    std::vector<std::thread> others;
    for (size_t i = 0; i < sites.size(); ++i) {
      at_once[i] = reads->DescribesAtOnce(sites[i], select_all);
      if (at_once[i]) continue;
      // Past the process's threads it is asked after the others, from this one.
      absl::StatusOr<std::thread> asking =
          StartThread("a query's describe", [&describe, i] { describe(i); });
      if (asking.ok()) {
        others.push_back(*std::move(asking));
      } else {
        at_once[i] = true;
      }
    }
    for (size_t i = 0; i < sites.size(); ++i) {
      if (at_once[i]) describe(i);
    }
    for (std::thread& t : others) t.join();
  }
  std::vector<std::vector<ResultColumn>> site_columns;
  for (absl::StatusOr<std::vector<ResultColumn>>& columns : described) {
    RETURN_IF_ERROR(columns.status());
    site_columns.push_back(*std::move(columns));
  }
  const std::string qualifier = ref.alias.empty() ? ref.table : ref.alias;
  ASSIGN_OR_RETURN(Schema schema, MergeFragmentColumns(site_columns, qualifier));
  auto table_read = std::make_shared<FragmentedTable>();
  table_read->reads = reads;
  table_read->sites = sites;
  table_read->name = name;
  table_read->schema = schema;
  table_read->now_nanos = context_->eval.now_nanos;
  for (const std::vector<ResultColumn>& columns : site_columns) {
    // A column some sites lack (a measure type only other shards hold) reads as NULL there.
    std::vector<bool>& absent = table_read->absent.emplace_back(schema.size(), true);
    for (size_t c = 0; c < schema.size(); ++c) {
      for (const ResultColumn& has : columns) {
        if (has.name == schema[c].name) absent[c] = false;
      }
    }
  }
  if (where != nullptr) {
    // A copy bound here: the SELECT binds and applies its own WHERE over the fragments' rows.
    ExprPtr bound = where->Clone();
    if (BindWhere(*bound, schema).ok()) {
      PushConditions(std::move(bound), context_->eval, table_read.get());
    } else {
      table_read->where_whole = false;
    }
  }
  // A condition pinning the partition key leaves out the nodes holding none of its shards.
  table_read->stats = stats_;
  table_read->partition_key = table.partition_key;
  uint32_t shard_count = 0;  // the sites read every shard once
  for (const FragmentSite& site : sites) shard_count += static_cast<uint32_t>(site.shards.size());
  if (!table_read->pushed.empty()) {
    if (std::optional<std::set<uint32_t>> pinned =
            ShardsPinned(table_read->pushed, schema, table.partition_key, shard_count)) {
      table_read->shards_pruned = KeepPinnedShards(*pinned, table_read.get());
    }
  }
  reads->BalanceSites(
      &table_read->sites, [&] { return SeriesByShard(*resolved.layout, shard_count); },
      MergeShare(select, context_->relays_pages));
  sites = table_read->sites;
  // What the fragments send: the columns the statement reads (at least one, so that rows
  // are counted) that each site has, or all of them. A WHERE the fragments apply whole is not
  // applied here again (Planner::SelectPhases::Build), so the columns only it reads stay there.
  std::optional<std::set<std::string>> read =
      select != nullptr ? ColumnsRead(*select, table_read->where_whole) : std::nullopt;
  const std::vector<std::string> top_rows = select != nullptr
                                                ? TopRowsInFragments(*select, *table_read, sql_)
                                                : std::vector<std::string>();
  std::vector<std::string> sql;
  for (size_t site = 0; site < sites.size(); ++site) {
    std::string sent;
    for (size_t c = 0; c < schema.size() && read.has_value(); ++c) {
      if (!read->contains(schema[c].name) || table_read->absent[site][c]) continue;
      sent += (sent.empty() ? "" : ", ") + QuoteIdentifier(schema[c].name);
    }
    if (!read.has_value()) {
      sent = "*";
    } else if (sent.empty()) {
      sent = QuoteIdentifier(kTimeColumn);
    }
    sql.push_back(StrCat("SELECT ", sent, " FROM ", name, FragmentWhere(*table_read, site),
                         top_rows.empty() ? "" : top_rows[site]));
  }
  Source source;
  source.node = std::make_shared<ShardFragmentsNode>(std::move(schema), reads, std::move(sites),
                                                     std::move(sql), table_read->lists, name,
                                                     table_read->shards_pruned, stats_);
  table_read->rows = source.node.get();
  source.fragments = std::move(table_read);
  return source;
}

bool FragmentedTable::AppendSql(const Expr& e, size_t site, std::string* out) const {
  return AppendPortableSql(e, schema, out, &absent[site], now_nanos, lists.get());
}

std::string FragmentWhere(const FragmentedTable& table, size_t site) {
  std::string where;
  auto add = [&where](std::string_view condition) {
    where.append(where.empty() ? " WHERE " : " AND ").append(condition);
  };
  for (const ExprPtr& c : table.pushed) {
    std::string text;
    table.AppendSql(*c, site, &text);
    add(text);
  }
  for (const std::string& bound : table.time_range) add(bound);
  return where;
}

namespace {

// Column `index` of the fragments' rows.
ExprPtr RowColumn(const ColumnInfo& column, int index) {
  auto e = std::make_unique<Expr>();
  e->kind = ExprKind::kColumn;
  e->name = column.name;
  e->bound.column = index;
  e->bound.type = column.type;
  return e;
}

// An aggregate that needs its argument's distinct values (each with its count for a
// percentile): f(DISTINCT x), approx_distinct(x[, e]), approx_percentile(x, p[, accuracy]),
// the arguments after x constant. Its fragments group by x too.
bool NeedsDistinctValues(const AggregateSpec& a) {
  const std::string& f = a.function->name;
  if (f == "approx_percentile" && a.arg_types.size() >= 3 && a.arg_types[1] == DataType::kBigint) {
    return false;  // weighted: the weights are not known to be whole rows
  }
  if (f != "approx_percentile" && f != "approx_distinct" && !(a.distinct && a.args.size() == 1)) {
    return false;
  }
  return std::all_of(a.args.begin() + 1, a.args.end(),
                     [](const Expr* e) { return IsConstant(*e) && !HasSubquery(*e); });
}

// Whether `keys` hold the table's DIMENSION partition key as a bare column: then the rows of
// a group share its value, hence its partition hash, hence one shard (storage/read/
// table_state.h RoutingHash; rows without the dimension all hash as ""), read by one
// fragment.
bool GroupsStayInShards(const FragmentedTable& table, const std::vector<const Expr*>& keys) {
  if (table.partition_key.type != PartitionKeyType::kDimension) return false;
  return std::any_of(keys.begin(), keys.end(), [&](const Expr* key) {
    return key->kind == ExprKind::kColumn && key->bound.column >= 0 &&
           static_cast<size_t>(key->bound.column) < table.schema.size() &&
           table.schema[key->bound.column].name == table.partition_key.name;
  });
}

// ` GROUP BY 1, ..., n` over the first `keys` columns, and the fragments' first groups when
// `top` says so (an empty string for no keys).
std::string FragmentGroupBy(size_t keys, const std::optional<TopGroups>& top) {
  std::string group_by;
  for (size_t k = 0; k < keys; ++k) group_by += StrCat(k ? ", " : " GROUP BY ", k + 1);
  if (top.has_value()) {
    for (size_t i = 0; i < top->order.size(); ++i) {
      const TopGroups::Key& key = top->order[i];
      group_by += StrCat(i ? ", " : " ORDER BY ", key.key + 1, key.descending ? " DESC" : " ASC",
                         key.nulls_first ? " NULLS FIRST" : " NULLS LAST");
    }
    group_by += StrCat(" LIMIT ", top->rows);
  }
  return group_by;
}

// The aggregation whole in each fragment (GroupsStayInShards): `SELECT <keys>, <the
// aggregates as written> ... GROUP BY <keys>`; nullopt when a key or aggregate does not read
// alike on every node, or has a value no fragment page carries (an array, a map).
std::optional<FragmentAggregation> AggregateWholeInFragments(
    const FragmentedTable& table, const std::vector<const Expr*>& keys,
    const std::vector<AggregateSpec>& aggregates, const std::optional<TopGroups>& top) {
  Schema output;
  std::vector<std::string> select(table.sites.size());
  // `write(site, out)` appends the column's SQL at `site`; false when it cannot.
  auto add = [&](DataType type, const std::function<bool(size_t, std::string*)>& write) {
    if (IsComposite(type) || type == DataType::kUnknown) return false;
    output.push_back({StrCat("_p", output.size()), type, ""});
    for (size_t site = 0; site < select.size(); ++site) {
      std::string text;
      if (!write(site, &text)) return false;
      select[site] += StrCat(select[site].empty() ? "" : ", ", text, " AS ",
                             QuoteIdentifier(output.back().name));
    }
    return true;
  };
  auto portable = [&](const Expr& e, size_t site, std::string* out) {
    return table.AppendSql(e, site, out);
  };
  for (const Expr* key : keys) {
    if (!add(key->bound.type,
             [&](size_t site, std::string* out) { return portable(*key, site, out); })) {
      return std::nullopt;
    }
  }
  for (const AggregateSpec& a : aggregates) {
    absl::StatusOr<DataType> type = a.function->bind(a.arg_types);
    if (!type.ok()) return std::nullopt;
    if (!add(*type, [&](size_t site, std::string* out) {
          *out = StrCat(a.function->name, "(", a.distinct ? "DISTINCT " : "",
                        a.args.empty() ? "*" : "");
          for (size_t i = 0; i < a.args.size(); ++i) {
            if (i > 0) *out += ", ";
            if (!portable(*a.args[i], site, out)) return false;
          }
          for (size_t k = 0; k < a.order_keys.size(); ++k) {
            *out += k > 0 ? ", " : " ORDER BY ";
            if (!portable(*a.order_keys[k], site, out)) return false;
            *out += StrCat(a.descending[k] ? " DESC" : "",
                           a.nulls_first[k] ? " NULLS FIRST" : " NULLS LAST");
          }
          *out += ")";
          return true;
        })) {
      return std::nullopt;
    }
  }
  const std::string group_by = FragmentGroupBy(keys.size(), top);
  std::vector<std::string> sql_by_site;
  for (size_t site = 0; site < select.size(); ++site) {
    sql_by_site.push_back(StrCat("SELECT ", select[site], " FROM ", table.name,
                                 FragmentWhere(table, site), group_by));
  }
  FragmentAggregation out;
  out.whole = true;
  out.node = std::make_shared<ShardFragmentsNode>(std::move(output), table.reads, table.sites,
                                                  std::move(sql_by_site), table.lists, table.name,
                                                  table.shards_pruned, table.stats);
  return out;
}

}  // namespace

std::optional<FragmentAggregation> AggregateInFragments(
    const FragmentedTable& table, const std::vector<const Expr*>& keys,
    const std::vector<AggregateSpec>& aggregates, const std::optional<TopGroups>& top,
    bool whole_groups) {
  if (!table.where_whole) return std::nullopt;
  // FILTER of its own is only for the aggregates that keep NULLs (Expr::filtered), whose
  // arrays and JSON no fragment page carries: their rows travel.
  for (const AggregateSpec& a : aggregates) {
    if (a.filter != nullptr) return std::nullopt;
  }
  for (const Expr* key : keys) {
    if (key->bound.type == DataType::kUnknown) return std::nullopt;
  }
  if (whole_groups && GroupsStayInShards(table, keys)) {
    if (std::optional<FragmentAggregation> whole =
            AggregateWholeInFragments(table, keys, aggregates, top)) {
      return whole;
    }
  }
  // agg(x ORDER BY k) reads its rows in an order no partial state keeps: unless each group
  // is whole in one fragment (above), its rows travel.
  for (const AggregateSpec& a : aggregates) {
    if (!a.order_keys.empty()) return std::nullopt;
  }
  // Partial states: a first-groups cut by the keys alone.
  const std::optional<TopGroups> top_by_keys =
      top.has_value() && !top->whole_groups_only ? top : std::nullopt;
  FragmentAggregation out;
  // The fragments' rows: the keys, then each aggregate's partial states; each a text per site.
  Schema partial;
  std::vector<std::string> select(table.sites.size());
  auto add_column = [&](const std::vector<std::string>& texts, DataType type) {
    const int index = static_cast<int>(partial.size());
    partial.push_back({StrCat("_p", index), type, ""});
    for (size_t site = 0; site < select.size(); ++site) {
      select[site] += StrCat(select[site].empty() ? "" : ", ", texts[site], " AS ",
                             QuoteIdentifier(partial.back().name));
    }
    return index;
  };
  // `e` at each site, or nullopt if it does not read alike everywhere.
  auto sql = [&](const Expr& e) -> std::optional<std::vector<std::string>> {
    std::vector<std::string> texts(table.sites.size());
    for (size_t site = 0; site < texts.size(); ++site) {
      if (!table.AppendSql(e, site, &texts[site])) {
        return std::nullopt;
      }
    }
    return texts;
  };
  for (const Expr* key : keys) {
    const std::optional<std::vector<std::string>> texts = sql(*key);
    if (!texts) return std::nullopt;
    const int c = add_column(*texts, key->bound.type);
    out.keys.push_back(RowColumn(partial[c], c));
  }
  // The argument whose distinct values some aggregates need, a group key of the fragments
  // after the query's own (one such argument at most): every other aggregate's partial states
  // merge over these finer groups as over the rows. Only an argument fixed by the series (a
  // dimension, an expression of dimensions) has few values: over a measure the finer groups
  // would be about as many as the rows (measured: 200 hosts' percentiles 8× slower than
  // sending the rows, docs/cluster.md), so its rows travel.
  const int series_columns = std::max(TimeColumnOf(table.schema), 0);
  std::optional<std::vector<std::string>> values;
  const Expr* values_of = nullptr;
  for (const AggregateSpec& a : aggregates) {
    if (!NeedsDistinctValues(a)) {
      if (a.distinct) return std::nullopt;
      continue;
    }
    if (!OnlySeriesColumns(*a.args[0], series_columns)) return std::nullopt;
    std::optional<std::vector<std::string>> texts = sql(*a.args[0]);
    if (!texts || (values.has_value() && *texts != *values)) return std::nullopt;
    if (!values.has_value()) {
      values = std::move(texts);
      values_of = a.args[0];
    }
  }
  int values_column = -1;
  if (values.has_value()) {
    if (values_of->bound.type == DataType::kUnknown) return std::nullopt;
    values_column = add_column(*values, values_of->bound.type);
    out.values = RowColumn(partial[values_column], values_column);
  }
  for (const AggregateSpec& a : aggregates) {
    if (NeedsDistinctValues(a)) {
      // Over the distinct values, as the fragments send them (once per fragment and group).
      AggregateSpec merge = a;
      merge.args[0] = out.values.get();
      if (a.function->name == "approx_percentile" && !a.distinct) {
        // Each value weighted by how many rows held it: approx_percentile(x, w, p[, accuracy]).
        std::vector<std::string> counts;
        for (const std::string& x : *values) counts.push_back(StrCat("count(", x, ")"));
        const int c = add_column(counts, DataType::kBigint);
        out.arguments.push_back(RowColumn(partial[c], c));
        merge.args.insert(merge.args.begin() + 1, out.arguments.back().get());
        merge.arg_types.insert(merge.arg_types.begin() + 1, DataType::kBigint);
      }
      out.merges.push_back(std::move(merge));
      continue;
    }
    std::vector<std::vector<std::string>> args;  // by argument, by site
    for (const Expr* e : a.args) {
      std::optional<std::vector<std::string>> texts = sql(*e);
      if (!texts) return std::nullopt;
      args.push_back(*std::move(texts));
    }
    AggregateSpec merge;
    // A partial state the fragments compute, `call(site)` at each, and the merge's argument
    // that reads it.
    auto state = [&](const std::function<std::string(size_t site)>& call, DataType type) {
      std::vector<std::string> texts;
      for (size_t site = 0; site < select.size(); ++site) texts.push_back(call(site));
      const int c = add_column(texts, type);
      out.arguments.push_back(RowColumn(partial[c], c));
      merge.args.push_back(out.arguments.back().get());
      merge.arg_types.push_back(type);
    };
    const std::string& f = a.function->name;
    if (f == "count" || f == "count_if") {
      state([&](size_t s) { return StrCat(f, "(", args.empty() ? "*" : args[0][s], ")"); },
            DataType::kBigint);
      merge.function = &CountOfPartials();
    } else if (f == "sum" || ((f == "min" || f == "max") && a.args.size() == 1)) {
      absl::StatusOr<DataType> type = a.function->bind(a.arg_types);
      if (!type.ok()) return std::nullopt;
      state([&](size_t s) { return StrCat(f, "(", args[0][s], ")"); }, *type);
      merge.function = a.function;
    } else if (f == "avg" && a.arg_types[0] == DataType::kBigint) {
      // A BIGINT's sum exact, as one node's avg keeps it in 128 bits (a DOUBLE sum of the
      // fragments' would depend on their order): in two BIGINT parts that fit whatever the
      // values, x / 2^24 and x % 2^24 (their sums overflow, as an error, only past a total of
      // 2^87 or 2^39 rows in a fragment's group).
      for (const char* part : {" / ", " % "}) {
        state([&](size_t s) { return StrCat("sum((", args[0][s], ")", part, kAvgPartBase, ")"); },
              DataType::kBigint);
      }
      state([&](size_t s) { return StrCat("count(", args[0][s], ")"); }, DataType::kBigint);
      merge.function = &AverageOfPartials();
    } else if (f == "avg") {
      // A DOUBLE's sum as it is (the scan's block-header sums answer it); others as DOUBLE.
      const bool is_double = a.arg_types[0] == DataType::kDouble;
      state(
          [&](size_t s) {
            return is_double ? StrCat("sum(", args[0][s], ")")
                             : StrCat("sum(CAST(", args[0][s], " AS double))");
          },
          DataType::kDouble);
      state([&](size_t s) { return StrCat("count(", args[0][s], ")"); }, DataType::kBigint);
      merge.function = &AverageOfPartials();
    } else if ((f == "max_by" || f == "min_by") && a.args.size() == 2) {
      // The value at the extreme key, and the key: the merge picks among the fragments'.
      state([&](size_t s) { return StrCat(f, "(", args[0][s], ", ", args[1][s], ")"); },
            a.arg_types[0]);
      state([&](size_t s) { return StrCat(f == "max_by" ? "max(" : "min(", args[1][s], ")"); },
            a.arg_types[1]);
      merge.function = a.function;
    } else {
      return std::nullopt;  // no merge of its partial states (yet): the rows travel
    }
    out.merges.push_back(std::move(merge));
  }
  // A fragment's first groups are by the keys: not by keys and value.
  std::string group_by =
      FragmentGroupBy(keys.size(), values_column >= 0 ? std::nullopt : top_by_keys);
  if (values_column >= 0) {
    group_by += StrCat(keys.empty() ? " GROUP BY " : ", ", values_column + 1);
  }
  std::vector<std::string> sql_by_site;
  for (size_t site = 0; site < select.size(); ++site) {
    sql_by_site.push_back(StrCat("SELECT ", select[site], " FROM ", table.name,
                                 FragmentWhere(table, site), group_by));
  }
  out.node = std::make_shared<ShardFragmentsNode>(std::move(partial), table.reads, table.sites,
                                                  std::move(sql_by_site), table.lists, table.name,
                                                  table.shards_pruned, table.stats);
  return out;
}

}  // namespace strata::query
