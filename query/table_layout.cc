#include "query/table_layout.h"

#include <algorithm>
#include <set>
#include <string>

#include "absl/container/flat_hash_set.h"

namespace strata::query {
namespace {

// Past this many tables the cache starts over rather than tracking which
// tables were dropped.
constexpr size_t kMaxCachedTables = 256;

}  // namespace

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

absl::Span<const uint32_t> SeriesPostings::Find(const Batch& series_batch, int column,
                                                std::string_view value) const {
  const Postings* postings = nullptr;
  {
    absl::MutexLock lock(&mu_);
    std::unique_ptr<const Postings>& made = by_column_[column];
    if (made == nullptr) {
      auto fresh = std::make_unique<Postings>();
      const Vector& values = series_batch.columns[column];
      for (size_t row = 0; row < series_batch.rows; ++row) {
        if (!values.null(row)) (*fresh)[values.strings[row]].push_back(static_cast<uint32_t>(row));
      }
      made = std::move(fresh);
    }
    postings = made.get();
  }
  auto it = postings->find(value);
  if (it == postings->end()) return {};
  return it->second;
}

std::shared_ptr<const TableLayout> BuildTableLayout(const TableInfo& table,
                                                    const TableState& state) {
  // Series first, schema second: Apply adds a series and its measure together,
  // so the schema read afterwards knows every measure of the series read.
  std::vector<std::shared_ptr<const SeriesInfo>> all_series = state.AllSeries();
  // Series mostly share their dimension names with the series before them:
  // a run of series with the same names is looked at once (per series and
  // name, a set insertion and a hash lookup were most of a build).
  auto same_names = [](const SeriesInfo& a, const SeriesInfo& b) {
    return std::equal(a.dimensions.begin(), a.dimensions.end(), b.dimensions.begin(),
                      b.dimensions.end(),
                      [](const auto& x, const auto& y) { return x.first == y.first; });
  };
  std::vector<bool> follows_same_names(all_series.size());  // found once, used twice
  std::set<std::string> dimension_names;
  for (size_t i = 0; i < all_series.size(); ++i) {
    follows_same_names[i] = i > 0 && same_names(*all_series[i], *all_series[i - 1]);
    if (follows_same_names[i]) continue;
    for (const auto& [name, value] : all_series[i]->dimensions) dimension_names.insert(name);
  }
  std::set<ValueType> scalar_types;
  absl::flat_hash_set<std::string> multi_measures;
  for (const auto& [name, schema] : state.Measures()) {
    if (schema.kind == MeasureKind::kMulti) {
      multi_measures.insert(name);
    } else {
      scalar_types.insert(static_cast<ValueType>(schema.kind));
    }
  }

  auto layout = std::make_shared<TableLayout>();
  Schema& schema = layout->schema;
  absl::flat_hash_map<std::string, int> dimension_column;
  for (const std::string& d : dimension_names) {
    dimension_column[d] = static_cast<int>(schema.size());
    schema.push_back({d, DataType::kVarchar, ""});
  }
  layout->measure_name_column = static_cast<int>(schema.size());
  schema.push_back({std::string(kMeasureNameColumn), DataType::kVarchar, ""});
  layout->series_columns = layout->measure_name_column + 1;
  layout->time_column = static_cast<int>(schema.size());
  schema.push_back({std::string(kTimeColumn), DataType::kTimestamp, ""});

  // Built in place: the batch below holds views into its strings.
  auto columns = std::make_shared<TableColumns>();
  columns->time_column = layout->time_column;
  for (ValueType t : scalar_types) {
    columns->scalar_column[t] = static_cast<int>(schema.size());
    schema.push_back({std::string(ScalarColumnName(t)), ToDataType(t), ""});
  }
  for (const auto& [name, type] : state.AttributeTypes()) {
    // Writes keep a name either a dimension or an attribute; in a data
    // directory from before that rule the dimension is the column.
    if (dimension_column.contains(name)) continue;
    columns->attribute_column[name] = {static_cast<int>(schema.size()), type};
    schema.push_back({name, ToDataType(type), ""});
  }
  for (const ColumnInfo& c : schema) columns->types.push_back(c.type);

  absl::flat_hash_set<uint64_t> partitions;
  layout->series.reserve(all_series.size());
  columns->series.reserve(all_series.size());
  std::vector<int> name_columns;  // of the dimension names of the series before
  for (size_t i = 0; i < all_series.size(); ++i) {
    const SeriesInfo& s = *all_series[i];
    if (!follows_same_names[i]) {
      name_columns.clear();
      for (const auto& [name, value] : s.dimensions) {
        name_columns.push_back(dimension_column[name]);
      }
    }
    const uint64_t pk = PartitionHash(s.measure_name, s.dimensions, table.partition_key);
    SeriesColumns& filled = columns->series[s.id];
    filled.values.reserve(s.dimensions.size() + 1);
    for (size_t d = 0; d < s.dimensions.size(); ++d) {
      filled.values.emplace_back(name_columns[d], s.dimensions[d].second);
    }
    filled.multi = multi_measures.contains(s.measure_name);
    filled.values.emplace_back(layout->measure_name_column, s.measure_name);
    partitions.insert(pk);
    layout->series.push_back({pk, s.id});
  }
  layout->partitions = static_cast<int64_t>(partitions.size());
  // In key order: scans and last-point probes then walk the keyspace forward.
  std::sort(layout->series.begin(), layout->series.end());

  // Views into `columns`, which is complete: its strings no longer move.
  const size_t n = layout->series.size();
  Batch& batch = layout->series_batch;
  batch.rows = n;
  for (const ColumnInfo& c : schema) batch.columns.emplace_back(c.type);
  for (int c = 0; c < layout->series_columns; ++c) {
    batch.columns[c].ResetNull(n);
    batch.columns[c].strings.resize(n);
  }
  for (size_t i = 0; i < n; ++i) {
    for (const auto& [column, value] : columns->series.at(layout->series[i].series).values) {
      batch.columns[column].nulls[i] = 0;
      batch.columns[column].strings[i] = value;
    }
  }
  columns->registry = std::move(all_series);
  layout->columns = std::move(columns);
  return layout;
}

std::shared_ptr<const TableLayout> TableLayoutCache::Get(
    const TableInfo& table, const std::shared_ptr<const TableState>& state) {
  // Read before the registry is copied: a change landing during the build
  // makes the next query build again rather than miss it.
  const uint64_t generation = state->generation();
  {
    absl::MutexLock lock(&mu_);
    auto it = by_table_.find(table.id);
    if (it != by_table_.end() && it->second.state.lock() == state &&
        it->second.generation == generation) {
      return it->second.layout;
    }
  }
  std::shared_ptr<const TableLayout> layout = BuildTableLayout(table, *state);
  absl::MutexLock lock(&mu_);
  absl::erase_if(by_table_, [](const auto& entry) { return entry.second.state.expired(); });
  if (by_table_.size() >= kMaxCachedTables) by_table_.clear();
  by_table_[table.id] = {state, generation, layout};
  return layout;
}

}  // namespace strata::query
