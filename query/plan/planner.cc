#include "query/plan/planner.h"

#include <algorithm>
#include <set>

#include "absl/container/flat_hash_set.h"
#include "common/clock.h"
#include "common/status.h"
#include "common/strings.h"
#include "common/suggest.h"
#include "fmt/ranges.h"
#include "query/exec/catalog_tables.h"
#include "query/exec/header_aggregation.h"
#include "query/exec/information_schema.h"
#include "query/exec/pg_catalog.h"
#include "query/exec/scan_batcher.h"
#include "query/exec/set_operation.h"
#include "query/exec/system_tables.h"
#include "query/exec/table_layout.h"
#include "query/exec/table_scan.h"
#include "query/exec/window.h"
#include "query/expr/block_bounds.h"
#include "query/expr/vector_eval.h"
#include "query/plan/planner_internal.h"
#include "storage/read/table_state.h"

namespace strata::query {
namespace {

void SplitConjuncts(const Expr* e, std::vector<const Expr*>* out) {
  if (e->kind == ExprKind::kBinary && e->name == "AND") {
    SplitConjuncts(e->args[0].get(), out);
    SplitConjuncts(e->args[1].get(), out);
  } else {
    out->push_back(e);
  }
}

std::string Interval(int64_t start, int64_t end) {
  auto fmt = [](int64_t t, bool low) {
    if (low && t <= 0) return std::string("-inf");
    if (!low && t == INT64_MAX) return std::string("+inf");
    return FormatTimestamp(t);
  };
  return StrCat("[", fmt(start, true), ", ", fmt(end, false), ")");
}

int64_t SaturatingNext(int64_t v) { return v == INT64_MAX ? v : v + 1; }

}  // namespace

bool NarrowTimeRange(const Expr& c, int time_column, const EvalContext& eval, int64_t* start,
                     int64_t* end) {
  if (!IsTimeBound(c, time_column, eval)) return false;
  auto value = [&](const Expr& e) { return FoldConstant(e, eval)->i; };
  if (c.kind == ExprKind::kBetween) {
    *start = std::max(*start, value(*c.args[1]));
    *end = std::min(*end, SaturatingNext(value(*c.args[2])));
    return true;
  }
  std::string op = c.name;
  const Expr* bound = c.args[1].get();
  if (!IsColumn(c.args[0].get(), time_column)) {  // constant <op> time: flip the operator
    bound = c.args[0].get();
    if (op == "<") op = ">";
    else if (op == ">") op = "<";
    else if (op == "<=") op = ">=";
    else if (op == ">=") op = "<=";
  }
  const int64_t v = value(*bound);
  if (op == ">=" || op == "=") *start = std::max(*start, v);
  if (op == ">") *start = std::max(*start, SaturatingNext(v));
  if (op == "<") *end = std::min(*end, v);
  if (op == "<=" || op == "=") *end = std::min(*end, SaturatingNext(v));
  return true;
}

// The columns of the window operator's input (`width` wide) that `exprs`
// (the select list, ORDER BY and the windows' own expressions) read, and
// those expressions renumbered to the narrowed row followed by the window
// slots. An aggregate's slot counts as a read of its column; its arguments
// belong to the aggregation's input, not to these rows.
std::vector<int> NarrowWindowInput(int width, const std::vector<Expr*>& exprs) {
  auto reads_slot = [](const Expr& e) {
    return (e.kind == ExprKind::kColumn && e.bound.window < 0) || e.bound.aggregate >= 0;
  };
  std::vector<bool> used(width, false);
  std::function<void(const Expr&)> mark = [&](const Expr& e) {
    if (reads_slot(e) && e.bound.column >= 0 && e.bound.column < width) used[e.bound.column] = true;
    if (e.bound.aggregate >= 0) return;
    for (const ExprPtr& a : e.args) mark(*a);
  };
  for (const Expr* e : exprs) mark(*e);
  std::vector<int> keep;
  std::vector<int> new_index(width, -1);
  for (int c = 0; c < width; ++c) {
    if (!used[c]) continue;
    new_index[c] = static_cast<int>(keep.size());
    keep.push_back(c);
  }
  std::function<void(Expr&)> renumber = [&](Expr& e) {
    if (e.kind == ExprKind::kColumn && e.bound.window >= 0) {
      e.bound.column = static_cast<int>(keep.size()) + e.bound.window;
    } else if (reads_slot(e) && e.bound.column >= 0 && e.bound.column < width) {
      e.bound.column = new_index[e.bound.column];
    }
    if (e.bound.aggregate >= 0) return;
    for (ExprPtr& a : e.args) renumber(*a);
  };
  for (Expr* e : exprs) renumber(*e);
  return keep;
}

bool DecideOnSeries(const Expr& conjunct, const Batch& series_batch, const EvalContext& eval,
                    std::vector<uint8_t>* keep) {
  if (!eval.error.empty()) return false;
  std::vector<uint32_t> kept;
  for (size_t i = 0; i < keep->size(); ++i) {
    if ((*keep)[i] != 0) kept.push_back(static_cast<uint32_t>(i));
  }
  ValuesInFlight in_flight(eval);
  const Vector matched = EvalBatch(conjunct, TakeRows(series_batch, kept), eval);
  if (!eval.error.empty()) {
    // A deadline, a cancel or the memory limit stops the query; a value's error is the rows'.
    if (!eval.stopped && !eval.too_many_value_bytes) eval.error.clear();
    return false;
  }
  for (size_t k = 0; k < kept.size(); ++k) {
    (*keep)[kept[k]] = !matched.null(k) && matched.ints[k] != 0;
  }
  return true;
}

bool IsColumn(const Expr* e, int column) {
  return e->kind == ExprKind::kColumn && e->bound.column == column;
}

// time, bin(time, c), date_trunc(c, time) or date_trunc(c, time, zone) (a session's zone: the
// start of the local hour or day, which moves on as time does, across the changes of summer
// time too): a key that never decreases as time grows.
bool NeverDecreasesWithTime(const Expr& e, int time_column, const EvalContext& eval) {
  if (IsColumn(&e, time_column)) return true;
  if (e.kind != ExprKind::kCall || e.args.size() < 2) return false;
  auto constant = [&](const Expr& a) { return FoldConstant(a, eval).has_value(); };
  if (e.name == "bin") {
    return e.args.size() == 2 && IsColumn(e.args[0].get(), time_column) && constant(*e.args[1]);
  }
  if (e.name == "date_trunc") {
    return constant(*e.args[0]) && IsColumn(e.args[1].get(), time_column) &&
           (e.args.size() == 2 || (e.args.size() == 3 && constant(*e.args[2])));
  }
  return false;
}

bool OnlySeriesColumns(const Expr& e, int series_columns) {
  if (e.kind == ExprKind::kColumn) return e.bound.column >= 0 && e.bound.column < series_columns;
  return std::all_of(e.args.begin(), e.args.end(),
                     [&](const ExprPtr& a) { return OnlySeriesColumns(*a, series_columns); });
}

// `time <op> constant` or `time BETWEEN constant AND constant`: a conjunct
// the scan's time range already applies exactly.
bool IsTimeBound(const Expr& c, int time_column, const EvalContext& eval) {
  auto timestamp = [&](const Expr& e) {
    auto v = FoldConstant(e, eval);
    return v && !v->null && v->type == DataType::kTimestamp;
  };
  if (c.kind == ExprKind::kBetween) {
    return !c.negated && IsColumn(c.args[0].get(), time_column) && timestamp(*c.args[1]) &&
           timestamp(*c.args[2]);
  }
  if (c.kind != ExprKind::kBinary || c.args.size() != 2) return false;
  static const std::set<std::string> kComparisons = {"<", "<=", ">", ">=", "="};
  if (!kComparisons.contains(c.name)) return false;
  return (IsColumn(c.args[0].get(), time_column) && timestamp(*c.args[1])) ||
         (IsColumn(c.args[1].get(), time_column) && timestamp(*c.args[0]));
}

// The last-point fast path: when every group is a set of whole series
// (grouped by dimensions or measure_name only), WHERE restricts only series
// and the time range, and every aggregate is max(time) or max_by(x, time),
// each group's answer comes from the newest row of its series. Reading only
// that row per series gives the same result as reading them all.
bool LastPointEligible(const std::vector<const Expr*>& keys,
                       const std::vector<AggregateSpec>& aggregates, const Expr* where,
                       int series_columns, int time_column, const EvalContext& eval) {
  if (aggregates.empty()) return false;
  for (const Expr* k : keys) {
    if (k->kind != ExprKind::kColumn || k->bound.column >= series_columns) return false;
  }
  for (const AggregateSpec& a : aggregates) {
    if (a.distinct || !a.order_keys.empty() || a.filter != nullptr) return false;
    const std::string& name = a.function->name;
    const bool max_time = name == "max" && a.args.size() == 1 && IsColumn(a.args[0], time_column);
    const bool max_by_time =
        name == "max_by" && a.args.size() == 2 && IsColumn(a.args[1], time_column);
    if (!max_time && !max_by_time) return false;
  }
  if (where == nullptr) return true;
  std::vector<const Expr*> conjuncts;
  SplitConjuncts(where, &conjuncts);
  return std::all_of(conjuncts.begin(), conjuncts.end(), [&](const Expr* c) {
    return OnlySeriesColumns(*c, series_columns) || IsTimeBound(*c, time_column, eval);
  });
}

// Whether whole magnetic blocks may add to the aggregation by their headers
// (header_aggregation.h): every key is fixed by the series or never
// decreases with time, and every aggregate is count(*) or a function with a
// stats_use over a measure column. The caller checks there is no residual
// WHERE.
bool HeaderAggregationEligible(const std::vector<const Expr*>& keys,
                               const std::vector<AggregateSpec>& aggregates,
                               int series_columns, int time_column, const EvalContext& eval) {
  for (const Expr* k : keys) {
    if (!OnlySeriesColumns(*k, series_columns) && !NeverDecreasesWithTime(*k, time_column, eval)) {
      return false;
    }
  }
  return std::all_of(aggregates.begin(), aggregates.end(), [&](const AggregateSpec& a) {
    if (a.distinct || !a.order_keys.empty() || a.filter != nullptr ||
        a.function->stats_use == StatsUse::kNone) {
      return false;
    }
    if (a.args.empty()) return a.function->name == "count";
    return a.args.size() == 1 && a.args[0]->kind == ExprKind::kColumn &&
           a.args[0]->bound.column > time_column;
  });
}


// Splits a tree of ANDs into its conjuncts, taking ownership of them.
std::vector<ExprPtr> TakeConjuncts(ExprPtr e) {
  std::vector<ExprPtr> out;
  if (e->kind == ExprKind::kBinary && e->name == "AND") {
    for (ExprPtr& side : e->args) {
      for (ExprPtr& c : TakeConjuncts(std::move(side))) out.push_back(std::move(c));
    }
  } else {
    out.push_back(std::move(e));
  }
  return out;
}

// The AND of `conjuncts` (bound, boolean); null when there are none.
ExprPtr JoinConjuncts(std::vector<ExprPtr> conjuncts) {
  ExprPtr out;
  for (ExprPtr& c : conjuncts) {
    if (!out) {
      out = std::move(c);
      continue;
    }
    auto both = std::make_unique<Expr>();
    both->kind = ExprKind::kBinary;
    both->name = "AND";
    both->pos = out->pos;
    both->bound.type = DataType::kBoolean;
    both->height = std::max(out->height, c->height) + 1;
    both->args.push_back(std::move(out));
    both->args.push_back(std::move(c));
    out = std::move(both);
  }
  return out;
}


absl::StatusOr<Planner::ResolvedTable> Planner::ResolveTable(const TableRef& ref) {
  // Before looking the table up: a caller without the grant learns nothing
  // of whether it exists.
  if (context_->access != nullptr) {
    if (absl::Status allowed = context_->access->CheckRead(ref.database, ref.table);
        !allowed.ok()) {
      return SqlError(sql_, ref.pos, allowed);
    }
  }
  auto found = storage_.catalog().FindTable(ref.database, ref.table);
  if (absl::IsNotFound(found.status()) && context_->catch_up_catalog != nullptr &&
      (*context_->catch_up_catalog)()) {
    found = storage_.catalog().FindTable(ref.database, ref.table);
  }
  if (!found.ok()) {
    absl::string_view original = found.status().message();
    std::string message(original.data(), original.size());
    // The seed workload's own text swaps database and table: say so.
    if (storage_.catalog().FindTable(ref.table, ref.database).ok()) {
      message += StrCat("; \"", ref.table, "\".\"", ref.database,
                        "\" exists: write the database first, then the table");
    }
    return SqlError(found.status().code(), sql_, ref.pos, message);
  }
  if (context_->local_leader_read != nullptr) context_->local_leader_read->TableResolved();
  ResolvedTable resolved;
  resolved.table = *found;
  ASSIGN_OR_RETURN(std::shared_ptr<TableState> state, storage_.TableStateOf(*resolved.table));
  // The table's columns: dimensions, measure_name, time, then the typed
  // measure_value columns and MULTI attributes the table has seen.
  resolved.layout = layouts_.Get(*resolved.table, state);
  resolved.schema = resolved.layout->schema;
  const std::string qualifier = ref.alias.empty() ? ref.table : ref.alias;
  for (ColumnInfo& c : resolved.schema) c.qualifier = qualifier;
  return resolved;
}

void Planner::QualifyTable(TableRef& ref) const {
  if (ref.subquery || !ref.database.empty() || IsWithQuery(ref.table)) return;
  if (IsPgCatalogTable(ref.table)) {
    ref.database = kPgCatalog;
  } else if (!context_->default_database.empty()) {
    ref.database = context_->default_database;  // USE db: `FROM cpu` is `FROM db.cpu`
  }
}

absl::StatusOr<std::optional<Planner::Source>> Planner::PlanSystemTable(const TableRef& ref) {
  const bool pg_catalog = ref.database == kPgCatalog;
  const bool information = ref.database == kInformationSchema || pg_catalog;
  if (!information && ref.database != kSystemDatabase) return std::nullopt;
  // Read off the catalog, they list every table made before the query, through any node of
  // a cluster (whose copy may be a moment behind), as SHOW TABLES does.
  if ((information || ref.table == kSystemTablesTable) && context_->catch_up_catalog != nullptr) {
    (*context_->catch_up_catalog)();
  }
  // information_schema's columns are every table's, of all their shards.
  if (information && context_->local_leader_read != nullptr) {
    context_->local_leader_read->ReadingEvery();
  }
  const ClusterColumns cluster{
      .reads = context_->shard_scope == nullptr ? context_->shard_reads : nullptr,
      .deadline = context_->deadline};
  // "system"."tables" comes from the catalog; the other system tables from
  // the server (QueryOptions::system_tables).
  absl::StatusOr<SystemTable> read =
      pg_catalog ? ReadPgCatalog(ref.table, storage_, layouts_, context_->access, cluster)
      : information
          ? ReadInformationSchema(ref.table, storage_, layouts_, context_->access, cluster)
      : ref.table == kSystemTablesTable ? ReadSystemTablesTable(storage_, context_->access)
      : context_->system_tables != nullptr
          ? context_->system_tables->Read(ref.table)
          : absl::NotFoundError(StrCat("there is no system table \"", ref.table, "\""));
  if (!read.ok()) {
    const absl::string_view why = read.status().message();
    std::vector<std::string> names;
    if (pg_catalog) {
      names = PgCatalogTables();
    } else if (information) {
      names = InformationSchemaTables();
    } else {
      if (context_->system_tables != nullptr) names = context_->system_tables->Names();
      names.emplace_back(kSystemTablesTable);
    }
    return SqlError(read.status().code(), sql_, ref.pos,
                    StrCat(std::string_view(why.data(), why.size()), "; the ", ref.database,
                           " tables are ", fmt::format("{}", fmt::join(names, ", "))));
  }
  auto table = std::make_shared<SystemTable>(*std::move(read));
  const std::string qualifier = ref.alias.empty() ? ref.table : ref.alias;
  Schema schema;
  for (const ResultColumn& c : table->columns) {
    schema.push_back({.name = c.name, .type = c.type, .qualifier = qualifier});
  }
  const size_t rows = table->rows.size();
  Source source;
  source.node = std::make_shared<RowsNode>(
      std::move(schema), std::shared_ptr<const std::vector<Row>>(table, &table->rows),
      StrCat("SystemTable ", ref.database, ".", ref.table, " rows=", rows));
  return source;
}

namespace {

// The VARCHAR literals `e` (over series columns only) requires series
// column *column to hold one of: `column = 'x'` ('x' = column) and `column
// IN ('x', 'y', ...)`; false for any other conjunct.
bool RequiredValues(const Expr& e, int* column, std::vector<std::string_view>* values) {
  auto varchar_literal = [](const Expr& x) {
    return x.kind == ExprKind::kLiteral && !x.literal.null &&
           x.literal.type == DataType::kVarchar;
  };
  auto varchar_column = [](const Expr& x) {
    return x.kind == ExprKind::kColumn && x.bound.column >= 0 &&
           x.bound.type == DataType::kVarchar;
  };
  if (e.kind == ExprKind::kBinary && e.name == "=" && e.args.size() == 2) {
    for (int side = 0; side < 2; ++side) {
      const Expr& col = *e.args[side];
      const Expr& lit = *e.args[1 - side];
      if (varchar_column(col) && varchar_literal(lit)) {
        *column = col.bound.column;
        values->assign({lit.literal.s});
        return true;
      }
    }
    return false;
  }
  if (e.kind == ExprKind::kIn && !e.negated && !e.args.empty() && varchar_column(*e.args[0])) {
    const std::optional<std::vector<const Datum*>> constants = InListConstants(e);
    if (!constants) return false;
    values->clear();
    for (const Datum* value : *constants) {
      if (value->null || value->type != DataType::kVarchar) return false;
      values->push_back(value->s);
    }
    *column = e.args[0]->bound.column;
    return true;
  }
  return false;
}

}  // namespace

std::optional<std::vector<uint32_t>> Planner::CandidateSeries(
    const std::vector<ExprPtr>& series_conjuncts, const TableLayout& layout) {
  // The conjunct that leaves the fewest series. Every series passing all
  // conjuncts is among its candidates (it holds one of the values).
  std::optional<std::vector<uint32_t>> best;
  int column = -1;
  std::vector<std::string_view> values;
  for (const ExprPtr& c : series_conjuncts) {
    if (!RequiredValues(*c, &column, &values)) continue;
    std::vector<uint32_t> rows;
    for (std::string_view value : values) {
      const std::vector<uint32_t> found = layout.postings.Find(layout.series_batch, column, value);
      rows.insert(rows.end(), found.begin(), found.end());
    }
    std::sort(rows.begin(), rows.end());
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());  // IN ('a', 'a')
    if (!best || rows.size() < best->size()) best = std::move(rows);
  }
  return best;
}

absl::StatusOr<Planner::Source> Planner::PlanTable(const TableRef& ref, SelectStmt& select) {
  ASSIGN_OR_RETURN(ResolvedTable resolved, ResolveTable(ref));
  std::shared_ptr<const TableInfo> table = resolved.table;
  std::shared_ptr<const TableLayout> layout = resolved.layout;
  Schema schema = std::move(resolved.schema);
  const int time_column = layout->time_column;

  // WHERE, bound here once against the table schema, splits into conjuncts
  // the scan answers exactly and a residual filter: time bounds become the
  // scan's time range; conjuncts over series columns only (dimensions,
  // measure_name) are decided once per series, which selects the series
  // (and so the partitions) to read.
  const int series_columns = layout->series_columns;
  int64_t start = INT64_MIN, end = INT64_MAX;
  std::vector<ExprPtr> series_conjuncts, residual;
  // Conjuncts over series columns that can fail (a regexp_like, a CAST): their places in
  // `residual`, until they are tried on the series (below).
  std::vector<size_t> fallible_series;
  // Residual conjuncts on measure values also rule out whole magnetic blocks
  // by their min/max.
  auto bounds = std::make_shared<std::vector<ValueBound>>();
  if (select.where) {
    RETURN_IF_ERROR(BindWhere(*select.where, schema));
    for (ExprPtr& c : TakeConjuncts(std::move(select.where))) {
      if (NarrowTimeRange(*c, time_column, context_->eval, &start, &end)) continue;
      if (OnlySeriesColumns(*c, series_columns) && !CanFail(*c)) {
        series_conjuncts.push_back(std::move(c));
      } else {
        if (OnlySeriesColumns(*c, series_columns)) fallible_series.push_back(residual.size());
        residual.push_back(std::move(c));
      }
    }
    std::vector<const Expr*> residual_view;
    for (const ExprPtr& c : residual) residual_view.push_back(c.get());
    *bounds = ExtractValueBounds(residual_view, time_column + 1, context_->eval);
  }

  // A small leader read on this node's replicas asks only the leaders of the shards read.
  if (LocalLeaderRead* local = context_->local_leader_read; local != nullptr) {
    local->Reading(
        ShardsPinned(series_conjuncts, schema, table->partition_key, local->shard_count()));
  }

  // Series conjuncts run once per series, over the layout's series batch;
  // or, when one names the values a dimension must hold, over the series
  // holding them only (found in the layout's postings).
  std::vector<uint8_t> keep;
  if (std::optional<std::vector<uint32_t>> candidates =
          CandidateSeries(series_conjuncts, *layout)) {
    keep.assign(layout->series.size(), 0);
    const Batch batch = TakeRows(layout->series_batch, *candidates);
    std::vector<uint8_t> passed(candidates->size(), 1);
    for (const ExprPtr& c : series_conjuncts) {
      ValuesInFlight in_flight(context_->eval);
      const Vector matched = EvalBatch(*c, batch, context_->eval);
      for (size_t k = 0; k < passed.size(); ++k) {
        passed[k] &= !matched.null(k) && matched.ints[k] != 0;
      }
    }
    for (size_t k = 0; k < passed.size(); ++k) keep[(*candidates)[k]] = passed[k];
  } else {
    keep.assign(layout->series.size(), 1);
    for (const ExprPtr& c : series_conjuncts) {
      ValuesInFlight in_flight(context_->eval);
      const Vector matched = EvalBatch(*c, layout->series_batch, context_->eval);
      for (size_t i = 0; i < keep.size(); ++i) {
        keep[i] &= !matched.null(i) && matched.ints[i] != 0;
      }
    }
  }
  // A conjunct that can fail is tried on the series chosen so far: where it fails on none, it
  // holds on every row of the series it keeps and is decided here like the others; where it
  // fails on one, it stays in the row filter, which fails only on a row that reaches it.
  for (size_t place : fallible_series) {
    if (DecideOnSeries(*residual[place], layout->series_batch, context_->eval, &keep)) {
      series_conjuncts.push_back(std::move(residual[place]));
    }
  }
  std::erase(residual, nullptr);
  select.where = JoinConjuncts(std::move(residual));
  // A fragment of a cluster's query reads the series of its shards only.
  const ShardScope* scope = context_->shard_scope;
  if (scope != nullptr) {
    for (size_t i = 0; i < keep.size(); ++i) {
      if (keep[i] != 0 && !scope->Reads(ShardOf(layout->series[i].routing, scope->count))) {
        keep[i] = 0;
      }
    }
  }
  auto targets = std::make_shared<std::vector<SeriesTarget>>();
  auto target_index = std::make_shared<std::vector<size_t>>();  // rows of the series batch
  absl::flat_hash_set<uint64_t> target_partitions;
  for (size_t i = 0; i < keep.size(); ++i) {
    if (keep[i] == 0) continue;
    targets->push_back(layout->series[i]);
    target_index->push_back(i);
    target_partitions.insert(layout->series[i].pk_hash);
  }
  const bool prune = !series_conjuncts.empty() || scope != nullptr;
  const int64_t total_series = static_cast<int64_t>(layout->series.size());
  const int64_t all_partitions = layout->partitions;
  stats_->series_scanned += prune ? static_cast<int64_t>(targets->size()) : total_series;
  stats_->series_pruned += prune ? total_series - static_cast<int64_t>(targets->size()) : 0;
  stats_->partitions_scanned +=
      prune ? static_cast<int64_t>(target_partitions.size()) : all_partitions;
  stats_->partitions_pruned +=
      prune ? all_partitions - static_cast<int64_t>(target_partitions.size()) : 0;

  ScanOptions options{.start_nanos = start, .end_nanos = end,
                      .series = prune ? targets.get() : nullptr,
                      .cancelled = context_->cancelled};
  int64_t estimated_rows;
  {
    // The selected series times the hours in range, at one point per 10 s
    // (the seed workloads' interval): only ever compared with another guess.
    const int64_t now = context_->eval.now_nanos;
    const int64_t from = std::max(start, table->RetentionStartNanos(now));
    const int64_t to = std::min(end, now + kNanosPerHour / 4);
    const int64_t hours = to > from ? (to - from) / kNanosPerHour + 1 : 1;
    estimated_rows = static_cast<int64_t>(targets->size()) * hours * 360;
  }
  std::string series_filter;
  for (const ExprPtr& c : series_conjuncts) {
    series_filter += (series_filter.empty() ? "" : " AND ") + c->ToString();
  }
  std::string block_filter;
  for (size_t i = 0; i < bounds->size(); ++i) {
    const std::string& text = (*bounds)[i].text;
    if (i > 0 && (*bounds)[i - 1].text == text) continue;  // a BETWEEN makes two in a row
    block_filter += (i == 0 ? " block-filter=" : " AND ") + text;
  }
  std::string description = StrCat(
      "Scan \"", table->database_name, "\".\"", table->name, "\" time=", Interval(start, end),
      prune ? StrCat(" series=", targets->size(), "/", total_series, " partitions=",
                     target_partitions.size(), "/", all_partitions, " where ",
                     series_filter)
            : StrCat(" series=all(", total_series, ")"),
      block_filter);
  auto scan = std::make_shared<TableScanNode>(
      std::move(schema), estimated_rows,
      TableScan::Spec{.storage = &storage_,
                      .table = table,
                      .layout = layout,
                      .options = options,
                      .targets = targets,
                      .target_index = target_index,
                      .bounds = bounds},
      stats_, std::move(description));
  Source source;
  source.scan = scan.get();
  source.node = std::move(scan);
  return source;
}

absl::StatusOr<Planner::Source> Planner::PlanSource(SelectStmt& select) {
  if (!select.from) return OneRowSource();
  TableRef& ref = *select.from;
  if (!ref.values.empty()) RETURN_IF_ERROR(ValuesAsUnnest(ref));
  PushConjunctsIntoSubquery(select);
  if (ref.join != JoinKind::kNone || !ref.unnest.empty()) return PlanJoin(select);
  QualifyTable(ref);
  if (!ref.subquery && !ref.database.empty()) {
    RETURN_IF_ERROR(RefuseTableColumnAliases(ref));
    // WHERE over a system table is applied after it, as over a subquery.
    ASSIGN_OR_RETURN(std::optional<Source> system, PlanSystemTable(ref));
    if (system) return *std::move(system);
    ASSIGN_OR_RETURN(std::optional<Source> sharded, PlanShardedTable(ref, &select));
    if (sharded) return *std::move(sharded);
    return PlanTable(ref, select);
  }
  return PlanInnerQuery(ref);
}

absl::StatusOr<Planner::Source> Planner::PlanInnerQuery(TableRef& ref) {
  Source source;
  std::shared_ptr<Plan> inner;
  bool kept = false;      // a WITH query read more than once
  bool own_plan = false;  // a FROM subquery's plan, read here alone
  std::string qualifier = ref.alias;
  if (ref.subquery) {
    ASSIGN_OR_RETURN(inner, PlanSelect(std::move(ref.subquery)));
    own_plan = true;
  } else if (auto working = working_tables_.find(ref.table); working != working_tables_.end()) {
    WorkingTableUse& use = *working->second;
    if (!use.rows) return SqlError(sql_, ref.pos, use.refusal);
    ++use.references;
    inner = use.rows;
    if (qualifier.empty()) qualifier = ref.table;
  } else {
    auto it = ctes_.find(ref.table);
    if (it == ctes_.end()) {
      std::vector<std::string_view> names;
      for (const auto& [name, plan] : ctes_) names.push_back(name);
      return SqlError(absl::StatusCode::kNotFound, sql_, ref.pos,
                      StrCat("\"", ref.table, "\" is not a WITH query", DidYouMean(ref.table, names),
                             "; name tables as \"database\".\"table\", or set a default database "
                             "(USE db in the shell, --database)"));
    }
    inner = it->second;
    if (qualifier.empty()) qualifier = ref.table;
    kept = kept_ctes_.contains(inner.get());
  }
  Schema schema = inner->output;
  for (ColumnInfo& c : schema) c.qualifier = qualifier;
  // A rewritten LATERAL subquery's keys (planner_lateral.cc), after its own columns.
  const size_t keys = static_cast<size_t>(ref.lateral_keys);
  for (size_t i = schema.size() - keys; i < schema.size(); ++i) schema[i].hidden = true;
  if (!ref.column_aliases.empty()) {
    if (ref.column_aliases.size() != schema.size() - keys) {
      return SqlError(
          sql_, ref.pos,
          StrCat("\"", qualifier, "\" names ", ref.column_aliases.size(),
                 ref.column_aliases.size() == 1 ? " column" : " columns", " but its query returns ",
                 schema.size() - keys, "; name each one once"));
    }
    for (size_t i = 0; i < schema.size() - keys; ++i) schema[i].name = ref.column_aliases[i];
  }
  if (kept) {
    source.node = std::make_shared<KeptRowsNode>(std::move(inner), std::move(schema), ref.table);
  } else {
    source.node = std::make_shared<SubqueryNode>(std::move(inner), std::move(schema), own_plan);
  }
  return source;
}

bool Planner::IsWithQuery(const std::string& name) const {
  return ctes_.contains(name) || working_tables_.contains(name);
}

absl::Status Planner::RefuseTableColumnAliases(const TableRef& ref) const {
  if (ref.column_aliases.empty()) return absl::OkStatus();
  return SqlError(
      sql_, ref.pos,
      StrCat("the columns of table \"", ref.table, "\" cannot be renamed in FROM (", ref.alias,
             "(...) names the columns of a subquery, a WITH query, VALUES "
             "or UNNEST); rename them in the select list, e.g. SELECT ",
             ref.alias, ".column AS name"));
}

absl::Status Planner::BindWhere(Expr& where, const Schema& schema) {
  if (ContainsAggregate(where)) {
    return SqlError(sql_, where.pos, "aggregates are not allowed in WHERE; use HAVING after GROUP BY");
  }
  RETURN_IF_ERROR(Bind(where, schema, sql_));
  // Only a boolean (or NULL) decides which rows pass: 'x', a number or a
  // varchar column is refused rather than read as truthy.
  if (where.bound.type != DataType::kBoolean && where.bound.type != DataType::kUnknown) {
    return SqlError(sql_, where.pos,
                    StrCat("WHERE needs a boolean condition, not ", TypeName(where.bound.type),
                           "; compare the value, e.g. WHERE x = 1"));
  }
  return absl::OkStatus();
}

}  // namespace strata::query
