#include "query/planner.h"

#include <algorithm>
#include <set>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "common/status.h"
#include "common/strings.h"
#include "common/suggest.h"
#include "storage/table_state.h"

namespace strata::query {
namespace {

constexpr std::string_view kTime = "time";
constexpr std::string_view kMeasureName = "measure_name";

std::string_view ScalarColumnName(ValueType type) {
  switch (type) {
    case ValueType::kDouble: return "measure_value::double";
    case ValueType::kBigint: return "measure_value::bigint";
    case ValueType::kVarchar: return "measure_value::varchar";
    case ValueType::kBoolean: return "measure_value::boolean";
    case ValueType::kTimestamp: return "measure_value::timestamp";
  }
  return "measure_value";
}

DataType ToDataType(ValueType type) {
  switch (type) {
    case ValueType::kDouble: return DataType::kDouble;
    case ValueType::kBigint: return DataType::kBigint;
    case ValueType::kVarchar: return DataType::kVarchar;
    case ValueType::kBoolean: return DataType::kBoolean;
    case ValueType::kTimestamp: return DataType::kTimestamp;
  }
  return DataType::kUnknown;
}

Datum ToDatum(const Value& v) {
  switch (v.type) {
    case ValueType::kDouble: return Datum::Double(v.real);
    case ValueType::kBigint: return Datum::Bigint(v.number);
    case ValueType::kVarchar: return Datum::Varchar(v.text);
    case ValueType::kBoolean: return Datum::Bool(v.number != 0);
    case ValueType::kTimestamp: return Datum::Timestamp(v.number);
  }
  return Datum::Null();
}

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

bool IsColumn(const Expr* e, int column) {
  return e->kind == ExprKind::kColumn && e->bound.column == column;
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
    if (a.distinct) return false;
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

// Predicates the scan can use: a time range, and allowed values of
// measure_name and of dimensions.
struct Pushdown {
  int64_t start = INT64_MIN;
  int64_t end = INT64_MAX;
  // Allowed values per column (measure_name or a dimension); ANDed
  // predicates intersect, so contradictory ones leave an empty set.
  std::map<std::string, std::set<std::string>> allowed;

  void Restrict(const std::string& column, const std::set<std::string>& values) {
    auto [it, inserted] = allowed.try_emplace(column, values);
    if (inserted) return;
    std::set<std::string> both;
    std::set_intersection(it->second.begin(), it->second.end(), values.begin(), values.end(),
                          std::inserter(both, both.end()));
    it->second = std::move(both);
  }
};

}  // namespace

struct Planner::Source {
  Schema schema;
  std::function<absl::Status(RowSink* sink)> run;
  std::vector<std::string> explain;
  // Table scans only: set before running to read just the newest row of each
  // series (the last-point fast path, see LastPointEligible).
  std::shared_ptr<bool> last_point_only;
  int series_columns = 0;  // the leading columns a series fixes (dimensions, measure_name)
  int time_column = -1;
};

absl::StatusOr<Planner::Source> Planner::PlanTable(const TableRef& ref, SelectStmt& select) {
  auto found = storage_.catalog().FindTable(ref.database, ref.table);
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
  std::shared_ptr<const TableInfo> table = *found;
  ASSIGN_OR_RETURN(TableState * state, storage_.TableStateOf(*table));

  // The table's columns: dimensions, measure_name, time, then the typed
  // measure_value columns and MULTI attributes the table has seen.
  std::vector<SeriesInfo> all_series = state->AllSeries();
  std::set<std::string> dimension_names;
  for (const SeriesInfo& s : all_series) {
    for (const auto& [name, value] : s.dimensions) dimension_names.insert(name);
  }
  std::set<ValueType> scalar_types;
  std::map<std::string, ValueType> attributes;
  for (const auto& [name, schema] : state->Measures()) {
    if (schema.kind == MeasureKind::kMulti) {
      for (const auto& [attribute, type] : schema.attributes) attributes.emplace(attribute, type);
    } else {
      scalar_types.insert(static_cast<ValueType>(schema.kind));
    }
  }
  const std::string qualifier = ref.alias.empty() ? ref.table : ref.alias;
  Schema schema;
  absl::flat_hash_map<std::string, int> dimension_column;
  for (const std::string& d : dimension_names) {
    dimension_column[d] = static_cast<int>(schema.size());
    schema.push_back({d, DataType::kVarchar, qualifier});
  }
  const int measure_name_column = static_cast<int>(schema.size());
  schema.push_back({std::string(kMeasureName), DataType::kVarchar, qualifier});
  const int time_column = static_cast<int>(schema.size());
  schema.push_back({std::string(kTime), DataType::kTimestamp, qualifier});
  std::map<ValueType, int> scalar_column;
  for (ValueType t : scalar_types) {
    scalar_column[t] = static_cast<int>(schema.size());
    schema.push_back({std::string(ScalarColumnName(t)), ToDataType(t), qualifier});
  }
  absl::flat_hash_map<std::string, int> attribute_column;
  for (const auto& [name, type] : attributes) {
    if (attribute_column.contains(name)) continue;
    attribute_column[name] = static_cast<int>(schema.size());
    schema.push_back({name, ToDataType(type), qualifier});
  }

  // Push predicates down: bind WHERE here, once, against the table schema.
  Pushdown push;
  if (select.where) {
    RETURN_IF_ERROR(Bind(*select.where, schema, sql_));
    std::vector<const Expr*> conjuncts;
    SplitConjuncts(select.where.get(), &conjuncts);
    for (const Expr* c : conjuncts) {
      auto constant = [this](const Expr* e) { return FoldConstant(*e, context_->eval); };
      if (c->kind == ExprKind::kBinary && c->args.size() == 2) {
        const Expr* l = c->args[0].get();
        const Expr* r = c->args[1].get();
        std::string op = c->name;
        if (!IsColumn(l, time_column) && !IsColumn(l, measure_name_column) &&
            l->kind != ExprKind::kColumn) {
          std::swap(l, r);  // constant op column -> column op' constant
          if (op == "<") op = ">";
          else if (op == ">") op = "<";
          else if (op == "<=") op = ">=";
          else if (op == ">=") op = "<=";
        }
        if (IsColumn(l, time_column)) {
          if (auto v = constant(r); v && !v->null && v->type == DataType::kTimestamp) {
            if (op == ">=") push.start = std::max(push.start, v->i);
            if (op == ">") push.start = std::max(push.start, v->i + 1);
            if (op == "<") push.end = std::min(push.end, v->i);
            if (op == "<=") push.end = std::min(push.end, v->i + 1);
            if (op == "=") {
              push.start = std::max(push.start, v->i);
              push.end = std::min(push.end, v->i + 1);
            }
          }
        } else if (op == "=" && l->kind == ExprKind::kColumn &&
                   l->bound.column <= measure_name_column) {
          if (auto v = constant(r); v && !v->null && v->type == DataType::kVarchar) {
            push.Restrict(l->bound.column == measure_name_column
                              ? std::string(kMeasureName)
                              : schema[l->bound.column].name,
                          {v->s});
          }
        }
      } else if (c->kind == ExprKind::kBetween && !c->negated &&
                 IsColumn(c->args[0].get(), time_column)) {
        auto low = FoldConstant(*c->args[1], context_->eval);
        auto high = FoldConstant(*c->args[2], context_->eval);
        if (low && !low->null && low->type == DataType::kTimestamp) {
          push.start = std::max(push.start, low->i);
        }
        if (high && !high->null && high->type == DataType::kTimestamp) {
          push.end = std::min(push.end, high->i + 1);
        }
      } else if (c->kind == ExprKind::kIn && !c->negated &&
                 c->args[0]->kind == ExprKind::kColumn &&
                 c->args[0]->bound.column <= measure_name_column) {
        std::set<std::string> values;
        bool all_constant = true;
        for (size_t i = 1; i < c->args.size(); ++i) {
          auto v = FoldConstant(*c->args[i], context_->eval);
          if (!v || v->null || v->type != DataType::kVarchar) {
            all_constant = false;
            break;
          }
          values.insert(v->s);
        }
        if (!all_constant) continue;
        push.Restrict(c->args[0]->bound.column == measure_name_column
                          ? std::string(kMeasureName)
                          : schema[c->args[0]->bound.column].name,
                      values);
      }
    }
  }

  // Series pruning: only the series whose measure and dimensions can match.
  const PartitionKey partition_key = table->partition_key;
  std::set<uint64_t> all_partitions;
  auto targets = std::make_shared<std::vector<SeriesTarget>>();
  std::set<uint64_t> target_partitions;
  const bool prune = !push.allowed.empty();
  const std::set<std::string>* allowed_measures = nullptr;
  if (auto it = push.allowed.find(std::string(kMeasureName)); it != push.allowed.end()) {
    allowed_measures = &it->second;
  }
  absl::flat_hash_map<uint64_t, const SeriesInfo*> series_by_id;
  auto all_targets = std::make_shared<std::vector<SeriesTarget>>();
  for (const SeriesInfo& s : all_series) {
    series_by_id[s.id] = &s;
    uint64_t pk = PartitionHash(s.measure_name, s.dimensions, partition_key);
    all_partitions.insert(pk);
    all_targets->push_back({pk, s.id});
    if (!prune) continue;
    if (allowed_measures != nullptr && !allowed_measures->contains(s.measure_name)) continue;
    bool match = true;
    for (const auto& [name, allowed] : push.allowed) {
      if (name == kMeasureName) continue;
      auto it = std::find_if(s.dimensions.begin(), s.dimensions.end(),
                             [&](const auto& d) { return d.first == name; });
      if (it == s.dimensions.end() || !allowed.contains(it->second)) {
        match = false;
        break;
      }
    }
    if (!match) continue;
    targets->push_back({pk, s.id});
    target_partitions.insert(pk);
  }
  const int64_t total_series = static_cast<int64_t>(all_series.size());
  stats_->series_scanned += prune ? static_cast<int64_t>(targets->size()) : total_series;
  stats_->series_pruned += prune ? total_series - static_cast<int64_t>(targets->size()) : 0;
  stats_->partitions_scanned +=
      static_cast<int64_t>(prune ? target_partitions.size() : all_partitions.size());
  stats_->partitions_pruned +=
      prune ? static_cast<int64_t>(all_partitions.size() - target_partitions.size()) : 0;

  // Rows: a per-series template (dimensions, measure_name) plus the point.
  struct SeriesRow {
    Row values;
    bool multi = false;
  };
  auto templates = std::make_shared<absl::flat_hash_map<uint64_t, SeriesRow>>();
  for (const SeriesInfo& s : all_series) {
    SeriesRow t;
    t.values.assign(schema.size(), Datum::Null());
    for (size_t i = 0; i < schema.size(); ++i) t.values[i].type = schema[i].type;
    for (const auto& [name, value] : s.dimensions) {
      t.values[dimension_column[name]] = Datum::Varchar(value);
    }
    t.values[measure_name_column] = Datum::Varchar(s.measure_name);
    auto measure = state->FindMeasure(s.measure_name);
    t.multi = measure && measure->kind == MeasureKind::kMulti;
    templates->emplace(s.id, std::move(t));
  }

  ScanOptions options{.start_nanos = push.start, .end_nanos = push.end,
                      .series = prune ? targets.get() : nullptr,
                      .cancelled = context_->cancelled};
  Source source;
  source.schema = schema;
  source.last_point_only = std::make_shared<bool>(false);
  source.series_columns = measure_name_column + 1;
  source.time_column = time_column;
  source.explain.push_back(StrCat(
      "Scan \"", table->database_name, "\".\"", table->name, "\" time=",
      Interval(push.start, push.end),
      allowed_measures != nullptr
          ? StrCat(" measure_name in {", allowed_measures->size(), " names}")
          : "",
      prune ? StrCat(" series=", targets->size(), "/", total_series, " partitions=",
                     target_partitions.size(), "/", all_partitions.size())
            : StrCat(" series=all(", total_series, ")")));
  Engine* storage = &storage_;
  QueryContext* context = context_;
  QueryStats* stats = stats_;
  source.run = [storage, table, options, templates, scalar_column, attribute_column, time_column,
                context, stats, targets, all_targets,
                last_point_only = source.last_point_only](RowSink* sink) -> absl::Status {
    absl::Status pushed;
    ScanStats scan_stats;
    int64_t since_check = 0;
    ScanOptions scan_options = options;
    if (*last_point_only) {
      scan_options.last_per_series = true;
      if (scan_options.series == nullptr) scan_options.series = all_targets.get();
    }
    absl::Status scanned = storage->Scan(
        *table, scan_options,
        [&](const ScanRow& point) {
          if (++since_check == 4096) {
            since_check = 0;
            pushed = context->CheckAlive();
            if (!pushed.ok()) return false;
          }
          auto it = templates->find(point.series);
          if (it == templates->end()) return true;  // a series registered after planning
          Row row = it->second.values;
          row[time_column] = Datum::Timestamp(point.time_nanos);
          for (const Measure& m : point.measures) {
            int column = -1;
            if (it->second.multi) {
              auto a = attribute_column.find(m.name);
              if (a != attribute_column.end()) column = a->second;
            } else {
              auto s = scalar_column.find(m.value.type);
              if (s != scalar_column.end()) column = s->second;
            }
            if (column >= 0) row[column] = ToDatum(m.value);
          }
          pushed = sink->Push(std::move(row));
          return pushed.ok() && !context->enough.load(std::memory_order_relaxed);
        },
        &scan_stats);
    stats->rows_scanned += scan_stats.rows_scanned;
    stats->bytes_scanned += scan_stats.bytes_scanned;
    stats->buckets_scanned += scan_stats.buckets_scanned;
    stats->buckets_pruned += std::max<int64_t>(0, scan_stats.buckets_in_range -
                                                      scan_stats.buckets_scanned);
    RETURN_IF_ERROR(pushed);
    RETURN_IF_ERROR(scanned);
    return sink->Finish();
  };
  return source;
}

absl::StatusOr<Planner::Source> Planner::PlanSource(SelectStmt& select) {
  Source source;
  if (!select.from) {
    source.run = [](RowSink* sink) -> absl::Status {
      RETURN_IF_ERROR(sink->Push(Row{}));
      return sink->Finish();
    };
    source.explain.push_back("Values (one row)");
    return source;
  }
  TableRef& ref = *select.from;
  std::shared_ptr<Plan> inner;
  std::string qualifier = ref.alias;
  if (ref.subquery) {
    ASSIGN_OR_RETURN(inner, PlanSelect(std::move(ref.subquery)));
  } else if (ref.database.empty()) {
    auto it = ctes_.find(ref.table);
    if (it == ctes_.end()) {
      std::vector<std::string_view> names;
      for (const auto& [name, plan] : ctes_) names.push_back(name);
      return SqlError(absl::StatusCode::kNotFound, sql_, ref.pos,
                      StrCat("\"", ref.table, "\" is not a WITH query", DidYouMean(ref.table, names),
                             "; name tables as \"database\".\"table\""));
    }
    inner = it->second;
    if (qualifier.empty()) qualifier = ref.table;
  } else {
    ASSIGN_OR_RETURN(source, PlanTable(ref, select));
    return source;
  }
  source.schema = inner->output;
  for (ColumnInfo& c : source.schema) c.qualifier = qualifier;
  // The run function points into the inner plan's expressions: own it.
  source.run = [inner](RowSink* sink) { return inner->run(sink); };
  for (const std::string& line : inner->explain) source.explain.push_back(line);
  return source;
}

absl::StatusOr<std::shared_ptr<Plan>> Planner::PlanSelect(std::unique_ptr<SelectStmt> owned) {
  SelectStmt& select = *owned;
  auto plan = std::make_shared<Plan>();
  plan->keep_alive.push_back(std::shared_ptr<SelectStmt>(std::move(owned)));

  for (auto& [name, query] : select.with) {
    ASSIGN_OR_RETURN(auto cte, PlanSelect(std::move(query)));
    ctes_[name] = cte;
  }
  ASSIGN_OR_RETURN(Source source, PlanSource(select));
  const Schema& input = source.schema;

  // WHERE (a table source has bound it already, for pushdown).
  if (select.where) {
    if (ContainsAggregate(*select.where)) {
      return SqlError(sql_, select.where->pos,
                      "aggregates are not allowed in WHERE; use HAVING after GROUP BY");
    }
    RETURN_IF_ERROR(Bind(*select.where, input, sql_));
    if (select.where->bound.type != DataType::kBoolean &&
        select.where->bound.type != DataType::kUnknown) {
      return SqlError(sql_, select.where->pos, "WHERE needs a boolean condition");
    }
  }

  // Expand * in the select list.
  std::vector<SelectItem> items;
  for (SelectItem& item : select.items) {
    if (item.expr->kind == ExprKind::kStar) {
      for (size_t i = 0; i < input.size(); ++i) {
        auto column = std::make_unique<Expr>();
        column->kind = ExprKind::kColumn;
        column->pos = item.expr->pos;
        column->name = input[i].name;
        column->qualifier = input[i].qualifier;
        items.push_back({std::move(column), ""});
      }
    } else {
      items.push_back(std::move(item));
    }
  }
  select.items = std::move(items);
  if (select.items.empty()) return SqlError(sql_, {0}, "the select list is empty");

  bool aggregating = !select.group_by.empty() || (select.having != nullptr);
  for (const SelectItem& item : select.items) aggregating |= ContainsAggregate(*item.expr);
  for (const OrderItem& o : select.order_by) aggregating |= ContainsAggregate(*o.expr);

  // The schema the select list, HAVING and ORDER BY are bound against.
  Schema projected_input = input;
  std::vector<const Expr*> group_keys;
  std::vector<AggregateSpec> aggregates;
  std::vector<std::string> key_text;
  if (aggregating) {
    for (ExprPtr& g : select.group_by) {
      // GROUP BY 1 is the first select item; GROUP BY alias is that item.
      if (g->kind == ExprKind::kLiteral && g->literal.type == DataType::kBigint) {
        int64_t k = g->literal.i;
        if (k < 1 || k > static_cast<int64_t>(select.items.size())) {
          return SqlError(sql_, g->pos, StrCat("GROUP BY ", k, " is not a select item (1..",
                                               select.items.size(), ")"));
        }
        g = select.items[k - 1].expr->Clone();
      } else if (g->kind == ExprKind::kColumn && g->qualifier.empty()) {
        bool is_input = std::any_of(input.begin(), input.end(),
                                    [&](const ColumnInfo& c) { return c.name == g->name; });
        if (!is_input) {
          for (const SelectItem& item : select.items) {
            if (item.alias == g->name) {
              g = item.expr->Clone();
              break;
            }
          }
        }
      }
      if (ContainsAggregate(*g)) return SqlError(sql_, g->pos, "GROUP BY cannot use an aggregate");
      RETURN_IF_ERROR(Bind(*g, input, sql_));
      group_keys.push_back(g.get());
      key_text.push_back(g->ToString());
    }
    Schema post;
    for (size_t i = 0; i < group_keys.size(); ++i) {
      post.push_back({key_text[i], group_keys[i]->bound.type, ""});
      if (group_keys[i]->kind == ExprKind::kColumn) post.back().name = group_keys[i]->name;
    }

    // Take out every aggregate call and give it a slot after the keys.
    std::function<absl::Status(Expr&)> collect = [&](Expr& e) -> absl::Status {
      const AggregateFunction* f = e.kind == ExprKind::kCall
                                       ? FunctionRegistry::Get().FindAggregate(e.name)
                                       : nullptr;
      if (f == nullptr) {
        for (auto& a : e.args) RETURN_IF_ERROR(collect(*a));
        return absl::OkStatus();
      }
      if (e.bound.aggregate >= 0) return absl::OkStatus();
      AggregateSpec spec;
      spec.function = f;
      spec.distinct = e.distinct;
      for (auto& a : e.args) {
        if (a->kind == ExprKind::kStar) {
          if (e.name != "count") return SqlError(sql_, a->pos, "* is only allowed in count(*)");
          continue;
        }
        if (ContainsAggregate(*a)) return SqlError(sql_, a->pos, "aggregates cannot be nested");
        RETURN_IF_ERROR(Bind(*a, input, sql_));
        spec.args.push_back(a.get());
        spec.arg_types.push_back(a->bound.type);
      }
      auto type = f->bind(spec.arg_types);
      if (!type.ok()) return SqlError(sql_, e.pos, StrCat(e.name, "(): ", type.status().message()));
      e.bound.aggregate = static_cast<int>(aggregates.size());
      e.bound.column = static_cast<int>(group_keys.size() + aggregates.size());
      e.bound.type = *type;
      post.push_back({e.ToString(), *type, ""});
      aggregates.push_back(std::move(spec));
      return absl::OkStatus();
    };
    for (SelectItem& item : select.items) RETURN_IF_ERROR(collect(*item.expr));
    if (select.having) RETURN_IF_ERROR(collect(*select.having));
    for (OrderItem& o : select.order_by) RETURN_IF_ERROR(collect(*o.expr));
    if (source.last_point_only &&
        LastPointEligible(group_keys, aggregates, select.where.get(), source.series_columns,
                          source.time_column, context_->eval)) {
      *source.last_point_only = true;
      source.explain.back() += " last-point-per-series";
    }

    // Rewrite select, HAVING and ORDER BY over the aggregate's output: a
    // group key becomes its column; other plain columns are errors.
    std::function<absl::Status(ExprPtr&)> rewrite = [&](ExprPtr& e) -> absl::Status {
      if (e->bound.aggregate >= 0) return absl::OkStatus();
      if (e->kind != ExprKind::kLiteral) {
        std::string text = e->ToString();
        for (size_t k = 0; k < key_text.size(); ++k) {
          if (key_text[k] == text) {
            auto column = std::make_unique<Expr>();
            column->kind = ExprKind::kColumn;
            column->pos = e->pos;
            column->name = text;
            column->bound.column = static_cast<int>(k);
            column->bound.type = group_keys[k]->bound.type;
            e = std::move(column);
            return absl::OkStatus();
          }
        }
      }
      if (e->kind == ExprKind::kColumn) {
        return SqlError(sql_, e->pos, StrCat("column \"", e->name, "\" must appear in GROUP BY "
                                             "or be used in an aggregate function"));
      }
      for (auto& a : e->args) RETURN_IF_ERROR(rewrite(a));
      return Bind(*e, post, sql_);
    };
    for (SelectItem& item : select.items) {
      // An alias in ORDER BY may name this item: keep its text.
      RETURN_IF_ERROR(rewrite(item.expr));
    }
    if (select.having) RETURN_IF_ERROR(rewrite(select.having));
    projected_input = post;
  } else {
    for (SelectItem& item : select.items) RETURN_IF_ERROR(Bind(*item.expr, input, sql_));
  }

  // Output columns.
  Schema output;
  for (size_t i = 0; i < select.items.size(); ++i) {
    const SelectItem& item = select.items[i];
    std::string name = item.alias;
    if (name.empty()) {
      name = item.expr->kind == ExprKind::kColumn ? item.expr->name
                                                   : StrCat("_col", i);
    }
    output.push_back({name, item.expr->bound.type, ""});
  }

  // ORDER BY: an ordinal or an output name refers to the output; anything
  // else is computed as a hidden extra column.
  std::vector<const Expr*> projection;
  for (const SelectItem& item : select.items) projection.push_back(item.expr.get());
  std::vector<SortKey> sort_keys;
  for (OrderItem& o : select.order_by) {
    int column = -1;
    if (o.expr->kind == ExprKind::kLiteral && o.expr->literal.type == DataType::kBigint) {
      int64_t k = o.expr->literal.i;
      if (k < 1 || k > static_cast<int64_t>(output.size())) {
        return SqlError(sql_, o.expr->pos,
                        StrCat("ORDER BY ", k, " is not a select item (1..", output.size(), ")"));
      }
      column = static_cast<int>(k - 1);
    } else if (o.expr->kind == ExprKind::kColumn && o.expr->qualifier.empty()) {
      for (size_t i = 0; i < output.size(); ++i) {
        if (output[i].name == o.expr->name &&
            (!select.items[i].alias.empty() || aggregating ||
             select.items[i].expr->kind == ExprKind::kColumn)) {
          column = static_cast<int>(i);
          break;
        }
      }
    }
    if (column < 0) {
      if (aggregating) {
        RETURN_IF_ERROR(std::function<absl::Status(ExprPtr&)>([&](ExprPtr& e) -> absl::Status {
          if (e->bound.aggregate >= 0) return absl::OkStatus();
          std::string text = e->ToString();
          for (size_t k = 0; k < key_text.size(); ++k) {
            if (key_text[k] == text) {
              e->bound.column = static_cast<int>(k);
              e->kind = ExprKind::kColumn;
              e->args.clear();
              e->bound.type = group_keys[k]->bound.type;
              return absl::OkStatus();
            }
          }
          if (e->kind == ExprKind::kColumn) {
            return SqlError(sql_, e->pos, StrCat("ORDER BY column \"", e->name,
                                                 "\" must appear in GROUP BY or the select list"));
          }
          return Bind(*e, projected_input, sql_);
        })(o.expr));
      } else {
        RETURN_IF_ERROR(Bind(*o.expr, projected_input, sql_));
      }
      if (select.distinct) {
        return SqlError(sql_, o.expr->pos,
                        "with SELECT DISTINCT, ORDER BY must use columns of the select list");
      }
      column = static_cast<int>(projection.size());
      projection.push_back(o.expr.get());
    }
    sort_keys.push_back({column, o.descending, o.nulls_first.value_or(o.descending)});
  }

  if (select.having && select.having->bound.type != DataType::kBoolean &&
      select.having->bound.type != DataType::kUnknown) {
    return SqlError(sql_, select.having->pos, "HAVING needs a boolean condition");
  }

  // EXPLAIN lines, outermost first.
  const int visible = static_cast<int>(output.size());
  auto names = [](const std::vector<const Expr*>& exprs) {
    std::string out;
    for (size_t i = 0; i < exprs.size(); ++i) out += (i ? ", " : "") + exprs[i]->ToString();
    return out;
  };
  std::vector<std::string> lines;
  if (select.limit && sort_keys.empty()) lines.push_back(StrCat("Limit ", *select.limit));
  if (!sort_keys.empty()) {
    lines.push_back(select.limit ? StrCat("TopN ", *select.limit, " by ", sort_keys.size(), " keys")
                                 : StrCat("Sort by ", sort_keys.size(), " keys"));
  }
  if (select.distinct) lines.push_back("Distinct");
  lines.push_back(StrCat("Project [", names(projection), "]"));
  if (select.having) lines.push_back(StrCat("Filter (HAVING) ", select.having->ToString()));
  if (aggregating) {
    std::string aggs;
    for (size_t i = 0; i < aggregates.size(); ++i) {
      aggs += (i ? ", " : "") + StrCat(aggregates[i].function->name, aggregates[i].distinct ? "(DISTINCT)" : "()");
    }
    lines.push_back(StrCat("HashAggregate keys=[", names(group_keys), "] aggregates=[", aggs, "]"));
  }
  if (select.where) lines.push_back(StrCat("Filter ", select.where->ToString()));
  for (size_t i = 0; i < lines.size(); ++i) plan->explain.push_back(std::string(i * 2, ' ') + lines[i]);
  for (const std::string& line : source.explain) {
    plan->explain.push_back(std::string(lines.size() * 2, ' ') + line);
  }

  // The run function wires the operators from the output back to the source.
  plan->output = output;
  const Expr* where = select.where.get();
  const Expr* having = select.having.get();
  const bool distinct = select.distinct;
  const std::optional<int64_t> limit = select.limit;
  QueryContext* context = context_;
  auto source_run = source.run;
  plan->run = [=](RowSink* out) -> absl::Status {
    std::vector<std::unique_ptr<RowSink>> chain;
    RowSink* next = out;
    auto push = [&](std::unique_ptr<RowSink> sink) {
      next = sink.get();
      chain.push_back(std::move(sink));
    };
    if (static_cast<int>(projection.size()) > visible) push(MakeTruncate(visible, next));
    if (limit && sort_keys.empty()) push(MakeLimit(*limit, context, next));
    if (!sort_keys.empty()) push(MakeSort(sort_keys, limit, context, next));
    if (distinct) push(MakeDistinct(visible, context, next));
    push(MakeProject(projection, context, next));
    if (having != nullptr) push(MakeFilter(having, context, next));
    if (aggregating) push(MakeAggregate(group_keys, aggregates, context, next));
    if (where != nullptr) push(MakeFilter(where, context, next));
    return source_run(next);
  };
  return plan;
}

}  // namespace strata::query
