#include "query/exec/table_layout.h"

#include <algorithm>
#include <set>
#include <string>

#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"
#include "absl/strings/string_view.h"

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

std::optional<ValueType> ToValueType(DataType type) {
  for (ValueType t : {ValueType::kDouble, ValueType::kBigint, ValueType::kVarchar,
                      ValueType::kBoolean, ValueType::kTimestamp}) {
    if (ToDataType(t) == type) return t;
  }
  return std::nullopt;
}

Value ToStoredValue(const Datum& d, ValueType type) {
  switch (type) {
    case ValueType::kDouble:
      return Value::Double(d.AsDouble());
    case ValueType::kBigint:
      return Value::Bigint(d.i);
    case ValueType::kVarchar:
      return Value::Varchar(d.s);
    case ValueType::kBoolean:
      return Value::Boolean(d.i != 0);
    case ValueType::kTimestamp:
      return Value::Timestamp(d.i);
  }
  return {};
}

namespace {

using PostingEntry = std::pair<uint64_t, uint32_t>;  // (hash of the value, row)
using SeriesValues = absl::Span<const std::pair<int, std::string_view>>;  // (column, value)


// Series mostly share their dimension names with the series before them
// (per series and name, a set insertion or a hash lookup were most of a
// build), so a run of such series is looked at once.
bool SameDimensionNames(const SeriesInfo& a, const SeriesInfo& b) {
  return std::equal(a.dimensions.begin(), a.dimensions.end(), b.dimensions.begin(),
                    b.dimensions.end(),
                    [](const auto& x, const auto& y) { return x.first == y.first; });
}

// Past this many chunks an extension pools every chunk but the first (the
// last full build's) into one, so a layout's chunks stay few however many
// times it was extended.
constexpr size_t kMaxChunks = 16;

// Adds `series` to `columns` as one chunk: their column values, and their
// entries in `columns->series` (replacing those of series pooled from older
// chunks), and each one's values to `made` when given. False when one has a
// dimension name or a measure the layout has
// no column or schema for; but a layout being built (its schema read after
// its series) takes a measure it has no schema for as scalar, as a data
// directory may hold one (the measure's values then read as NULL).
bool AddChunk(std::vector<std::shared_ptr<const SeriesInfo>> series, bool building,
              TableLayout* layout, TableColumns* columns,
              std::vector<SeriesValues>* made = nullptr) {
  auto chunk = std::make_shared<SeriesChunk>();
  size_t pairs = 0;
  for (const auto& s : series) pairs += s->dimensions.size() + 1;
  chunk->values.reserve(pairs);  // never moves: `columns->series` views it
  std::vector<int> name_columns;  // of the dimension names of the series before
  for (size_t i = 0; i < series.size(); ++i) {
    const SeriesInfo& s = *series[i];
    // A run of series with the same names finds their columns once.
    if (i == 0 || !SameDimensionNames(s, *series[i - 1])) {
      name_columns.clear();
      for (const auto& [name, value] : s.dimensions) {
        auto it = layout->dimension_column.find(name);
        if (it == layout->dimension_column.end()) return false;
        name_columns.push_back(it->second);
      }
    }
    auto measure = layout->measure_is_multi.find(s.measure_name);
    if (measure == layout->measure_is_multi.end()) {
      if (!building) return false;
      measure = layout->measure_is_multi.emplace(s.measure_name, false).first;
    }
    const size_t first = chunk->values.size();
    for (size_t d = 0; d < s.dimensions.size(); ++d) {
      chunk->values.emplace_back(name_columns[d], s.dimensions[d].second);
    }
    chunk->values.emplace_back(layout->measure_name_column, s.measure_name);
    const SeriesColumns filled = {
        absl::MakeConstSpan(chunk->values.data() + first, chunk->values.size() - first),
        measure->second};
    columns->series[s.id] = filled;
    if (made != nullptr) made->push_back(filled.values);
  }
  chunk->registry = std::move(series);
  columns->chunks.push_back(std::move(chunk));
  return true;
}


// Sets the series columns of row rows[k] (NULL until then) to values[k].
void FillSeriesRows(const std::vector<uint32_t>& rows, const std::vector<SeriesValues>& values,
                    Batch* batch) {
  for (size_t k = 0; k < rows.size(); ++k) {
    for (const auto& [column, value] : values[k]) {
      batch->columns[column].nulls[rows[k]] = 0;
      batch->columns[column].strings[rows[k]] = value;
    }
  }
}

// `from` with a NULL row at each of `new_rows` (ascending, rows of the
// result): runs of old rows copied whole.
void CopyWithNullRows(const Vector& from, const std::vector<uint32_t>& new_rows, Vector* to) {
  const size_t n = from.size() + new_rows.size();
  to->nulls.reserve(n);
  to->strings.reserve(n);
  size_t copied = 0;  // old rows
  for (size_t j = 0; j <= new_rows.size(); ++j) {
    const size_t next_old = (j < new_rows.size() ? new_rows[j] : n) - j;
    to->nulls.insert(to->nulls.end(), from.nulls.begin() + copied, from.nulls.begin() + next_old);
    to->strings.insert(to->strings.end(), from.strings.begin() + copied,
                       from.strings.begin() + next_old);
    copied = next_old;
    if (j < new_rows.size()) {
      to->nulls.push_back(1);
      to->strings.emplace_back();
    }
  }
}

// The schema after its dimensions (in `layout->schema` and
// `dimension_column` already): measure_name, time, a column per scalar type
// and per MULTI attribute, where values go, and which measures are MULTI.
void AddMeasureColumns(const TableState& state, TableLayout* layout, TableColumns* columns) {
  std::set<ValueType> scalar_types;
  layout->measure_is_multi.clear();
  for (const auto& [name, measure] : state.Measures()) {
    const bool multi = measure.kind == MeasureKind::kMulti;
    layout->measure_is_multi[name] = multi;
    if (!multi) scalar_types.insert(static_cast<ValueType>(measure.kind));
  }
  Schema& schema = layout->schema;
  layout->measure_name_column = static_cast<int>(schema.size());
  schema.push_back({std::string(kMeasureNameColumn), DataType::kVarchar, ""});
  layout->series_columns = layout->measure_name_column + 1;
  layout->time_column = static_cast<int>(schema.size());
  schema.push_back({std::string(kTimeColumn), DataType::kTimestamp, ""});
  columns->time_column = layout->time_column;
  columns->scalar_column.clear();
  for (ValueType t : scalar_types) {
    columns->scalar_column[t] = static_cast<int>(schema.size());
    schema.push_back({std::string(ScalarColumnName(t)), ToDataType(t), ""});
  }
  columns->attribute_column.clear();
  for (const auto& [name, type] : state.AttributeTypes()) {
    // Writes keep a name either a dimension or an attribute; in a data
    // directory from before that rule the dimension is the column.
    if (layout->dimension_column.contains(name)) continue;
    columns->attribute_column[name] = {static_cast<int>(schema.size()), type};
    schema.push_back({name, ToDataType(type), ""});
  }
  columns->types.clear();
  for (const ColumnInfo& c : schema) columns->types.push_back(c.type);
}

}  // namespace

uint64_t SeriesPostings::DefaultHash(std::string_view value) {
  // Within this process only: postings live in memory.
  return absl::Hash<absl::string_view>{}(absl::string_view(value.data(), value.size()));
}

std::unique_ptr<const SeriesPostings::Column> SeriesPostings::Make(
    const Vector& values, const std::vector<uint32_t>& rows) const {
  std::vector<PostingEntry> entries;
  entries.reserve(rows.size());
  for (uint32_t row : rows) {
    if (!values.null(row)) entries.emplace_back(hash_(values.strings[row]), row);
  }
  std::sort(entries.begin(), entries.end());
  auto column = std::make_unique<Column>();
  column->hashes.reserve(entries.size());
  column->rows.reserve(entries.size());
  for (const auto& [hash, row] : entries) {
    column->hashes.push_back(hash);
    column->rows.push_back(row);
  }
  return column;
}

std::vector<uint32_t> SeriesPostings::Find(const Batch& series_batch, int column,
                                           std::string_view value) const {
  const Column* postings = nullptr;
  {
    absl::MutexLock lock(&mu_);
    std::unique_ptr<const Column>& made = by_column_[column];
    if (made == nullptr) {
      std::vector<uint32_t> rows(series_batch.rows);
      for (size_t row = 0; row < rows.size(); ++row) rows[row] = static_cast<uint32_t>(row);
      made = Make(series_batch.columns[column], rows);
    }
    postings = made.get();
  }
  const uint64_t hash = hash_(value);
  auto [from, to] = std::equal_range(postings->hashes.begin(), postings->hashes.end(), hash);
  std::vector<uint32_t> found;
  const Vector& values = series_batch.columns[column];
  for (auto it = from; it != to; ++it) {
    // Another value with the same hash is not this one.
    const uint32_t row = postings->rows[it - postings->hashes.begin()];
    if (values.strings[row] == value) found.push_back(row);
  }
  return found;
}

void SeriesPostings::Extend(const SeriesPostings& old, const std::vector<uint32_t>& moved,
                            const std::vector<uint32_t>& added, const Batch& series_batch) {
  absl::MutexLock old_lock(&old.mu_);
  absl::MutexLock lock(&mu_);
  for (const auto& [c, made] : old.by_column_) {
    if (made == nullptr) continue;
    const Column* before = made.get();  // a plain name: lambdas capture it
    std::unique_ptr<const Column> fresh = Make(series_batch.columns[c], added);
    // Both sorted by (hash, row); an old row keeps its place among its
    // hash's rows, as rows move up in order. The few new entries find their
    // places by binary search: the old ones are copied, not compared.
    auto merged = std::make_unique<Column>();
    const size_t n = before->rows.size() + fresh->rows.size();
    merged->hashes.reserve(n);
    merged->rows.reserve(n);
    auto copy_old = [&](size_t from, size_t to) {
      merged->hashes.insert(merged->hashes.end(), before->hashes.begin() + from,
                            before->hashes.begin() + to);
      for (size_t i = from; i < to; ++i) merged->rows.push_back(moved[before->rows[i]]);
    };
    size_t i = 0;
    for (size_t j = 0; j < fresh->rows.size(); ++j) {
      const PostingEntry entry(fresh->hashes[j], fresh->rows[j]);
      size_t lo = i, hi = before->rows.size();  // the first old entry after `entry`
      while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (PostingEntry(before->hashes[mid], moved[before->rows[mid]]) < entry) {
          lo = mid + 1;
        } else {
          hi = mid;
        }
      }
      copy_old(i, lo);
      merged->hashes.push_back(entry.first);
      merged->rows.push_back(entry.second);
      i = lo;
    }
    copy_old(i, before->rows.size());
    by_column_[c] = std::move(merged);
  }
}

std::shared_ptr<const TableLayout> BuildTableLayout(const TableInfo& table,
                                                    const TableState& state) {
  // Series first, schema second: Apply adds a series and its measure together,
  // so the schema read afterwards knows every measure of the series read.
  TableState::SeriesAdded registry = state.SeriesAfter(0);
  std::vector<std::shared_ptr<const SeriesInfo>>& all_series = registry.series;
  std::set<std::string> dimension_names;
  for (size_t i = 0; i < all_series.size(); ++i) {
    if (i > 0 && SameDimensionNames(*all_series[i], *all_series[i - 1])) continue;
    for (const auto& [name, value] : all_series[i]->dimensions) dimension_names.insert(name);
  }

  auto layout = std::make_shared<TableLayout>();
  layout->registered = all_series.size();
  layout->schema_generation = registry.schema_generation;
  for (const std::string& d : dimension_names) {
    layout->dimension_column[d] = static_cast<int>(layout->schema.size());
    layout->schema.push_back({d, DataType::kVarchar, ""});
  }
  auto columns = std::make_shared<TableColumns>();
  AddMeasureColumns(state, layout.get(), columns.get());

  std::vector<uint32_t> order;  // row -> index in all_series
  layout->series = SeriesTargetsOf(all_series, table.partition_key, &order);
  columns->series.reserve(all_series.size());
  std::vector<SeriesValues> values_of;  // by index in all_series
  values_of.reserve(all_series.size());
  // Its dimension columns come from these series: it cannot fail.
  AddChunk(std::move(all_series), /*building=*/true, layout.get(), columns.get(), &values_of);
  for (size_t i = 0; i < layout->series.size(); ++i) {
    if (i == 0 || layout->series[i].pk_hash != layout->series[i - 1].pk_hash) {
      ++layout->partitions;
    }
  }

  const size_t n = layout->series.size();
  Batch& batch = layout->series_batch;
  batch.rows = n;
  for (const ColumnInfo& c : layout->schema) batch.columns.emplace_back(c.type);
  for (int c = 0; c < layout->series_columns; ++c) {
    batch.columns[c].ResetNull(n);
    batch.columns[c].strings.resize(n);
  }
  std::vector<uint32_t> rows(n);
  std::vector<SeriesValues> values(n);
  for (size_t i = 0; i < n; ++i) {
    rows[i] = static_cast<uint32_t>(i);
    values[i] = values_of[order[i]];
  }
  FillSeriesRows(rows, values, &batch);
  layout->columns = std::move(columns);
  return layout;
}

std::shared_ptr<const TableLayout> ExtendTableLayout(
    const TableInfo& table, const std::shared_ptr<const TableLayout>& previous,
    const TableState& state) {
  const TableLayout& old = *previous;
  TableState::SeriesAdded registry = state.SeriesAfter(old.registered);
  const bool same_schema = registry.schema_generation == old.schema_generation;
  // A layout made while a write landed may hold that write's series already.
  if (same_schema && registry.series.empty()) return previous;
  auto layout = std::make_shared<TableLayout>();
  layout->registered = old.registered + registry.series.size();
  layout->schema_generation = registry.schema_generation;
  layout->dimension_column = old.dimension_column;
  auto columns = std::make_shared<TableColumns>(*old.columns);
  if (same_schema) {
    layout->schema = old.schema;
    layout->measure_name_column = old.measure_name_column;
    layout->time_column = old.time_column;
    layout->series_columns = old.series_columns;
    layout->measure_is_multi = old.measure_is_multi;
  } else {
    // A new measure or attribute: the columns after the dimensions are
    // made again (a new dimension name fails AddChunk below: built anew).
    layout->schema.assign(old.schema.begin(), old.schema.begin() + old.measure_name_column);
    AddMeasureColumns(state, layout.get(), columns.get());
  }

  const std::vector<SeriesTarget> added = SeriesTargetsOf(registry.series, table.partition_key);
  std::vector<std::shared_ptr<const SeriesInfo>> pooled = std::move(registry.series);
  if (columns->chunks.size() >= kMaxChunks) {
    std::vector<std::shared_ptr<const SeriesInfo>> older;
    for (size_t c = 1; c < columns->chunks.size(); ++c) {
      const auto& registry_part = columns->chunks[c]->registry;
      older.insert(older.end(), registry_part.begin(), registry_part.end());
    }
    pooled.insert(pooled.begin(), older.begin(), older.end());
    columns->chunks.resize(1);
  }
  if (!pooled.empty() &&
      !AddChunk(std::move(pooled), /*building=*/false, layout.get(), columns.get())) {
    return nullptr;
  }

  // The new series merged into the old ones' key order: old row i moves to
  // moved[i], the new ones land on added_rows.
  const std::vector<SeriesTarget>& before = old.series;
  const size_t n = before.size() + added.size();
  layout->series.resize(n);
  std::vector<uint32_t> moved(before.size());
  std::vector<uint32_t> added_rows(added.size());
  for (size_t k = 0, i = 0, j = 0; k < n; ++k) {
    if (j < added.size() && (i == before.size() || added[j] < before[i])) {
      layout->series[k] = added[j];
      added_rows[j++] = static_cast<uint32_t>(k);
    } else {
      layout->series[k] = before[i];
      moved[i++] = static_cast<uint32_t>(k);
    }
  }
  layout->partitions = old.partitions;
  for (size_t j = 0; j < added.size(); ++j) {
    if (j > 0 && added[j].pk_hash == added[j - 1].pk_hash) continue;
    auto at = std::lower_bound(before.begin(), before.end(), SeriesTarget{added[j].pk_hash, 0});
    if (at == before.end() || at->pk_hash != added[j].pk_hash) ++layout->partitions;
  }

  Batch& batch = layout->series_batch;
  batch.rows = n;
  for (const ColumnInfo& c : layout->schema) batch.columns.emplace_back(c.type);
  for (int c = 0; c < layout->series_columns; ++c) {
    CopyWithNullRows(old.series_batch.columns[c], added_rows, &batch.columns[c]);
  }
  std::vector<SeriesValues> added_values;
  for (uint32_t row : added_rows) {
    added_values.push_back(columns->series.at(layout->series[row].series).values);
  }
  FillSeriesRows(added_rows, added_values, &batch);
  layout->postings.Extend(old.postings, moved, added_rows, batch);
  layout->columns = std::move(columns);
  return layout;
}

std::shared_ptr<const TableLayout> TableLayoutCache::Get(
    const TableInfo& table, const std::shared_ptr<const TableState>& state) {
  // Read before the registry is copied: a change landing during the build
  // makes the next query build again rather than miss it.
  const uint64_t generation = state->generation();
  std::shared_ptr<const TableLayout> previous;  // of the same state, older
  {
    absl::MutexLock lock(&mu_);
    auto it = by_table_.find(table.id);
    if (it != by_table_.end() && it->second.state.lock() == state) {
      if (it->second.generation == generation) return it->second.layout;
      previous = it->second.layout;
    }
  }
  std::shared_ptr<const TableLayout> layout;
  if (previous != nullptr) layout = ExtendTableLayout(table, previous, *state);
  if (layout == nullptr) layout = BuildTableLayout(table, *state);
  absl::MutexLock lock(&mu_);
  absl::erase_if(by_table_, [](const auto& entry) { return entry.second.state.expired(); });
  if (by_table_.size() >= kMaxCachedTables) by_table_.clear();
  by_table_[table.id] = {state, generation, layout};
  return layout;
}

}  // namespace strata::query
