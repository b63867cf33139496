#include "query/exec/scan_batcher.h"

#include <algorithm>

#include "common/coding.h"
#include "storage/blocks/block.h"
#include "storage/rows/head_rows.h"

namespace strata::query {
namespace {

// Stores a measure value at row `r` of a column of its own type
// (MeasureColumnOf never pairs a value with a column of another type).
void StoreDouble(Vector& v, size_t r, double x) {
  v.doubles[r] = x;
  v.nulls[r] = 0;
}

void StoreText(Vector& v, size_t r, std::string_view text) {
  v.SetOwnedString(r, std::string(text));  // the source bytes do not outlive the row
}

// BIGINT, TIMESTAMP, BOOLEAN: all integers.
void StoreInteger(Vector& v, size_t r, int64_t n) {
  v.ints[r] = n;
  v.nulls[r] = 0;
}

}  // namespace

ScanBatcher::ScanBatcher(const TableColumns& table, const std::vector<bool>& read,
                         const std::vector<ValueBound>& bounds)
    : table_(table), read_(read), bounds_(bounds) {
  for (size_t c = 0; c < table.types.size(); ++c) {
    batch_.columns.emplace_back(table.types[c]);
    if (read[c]) read_columns_.push_back(static_cast<int>(c));
  }
  Clear();
}

void ScanBatcher::Clear() {
  batch_.rows = 0;
  sized_ = false;
  for (int c : read_columns_) batch_.columns[c].arena.reset();
}

void ScanBatcher::SizeForFullBatch() {
  for (int c : read_columns_) batch_.columns[c].ResetNull(kBatchRows);
  sized_ = true;
}

absl::Status ScanBatcher::Flush(const std::function<absl::Status(const Batch&)>& push) {
  // Consumers expect columns of exactly `rows` values; the next batch's
  // first row sizes them for a full batch again.
  for (int c : read_columns_) {
    Vector& v = batch_.columns[c];
    v.nulls.resize(batch_.rows);
    if (!v.ints.empty()) v.ints.resize(batch_.rows);
    if (!v.doubles.empty()) v.doubles.resize(batch_.rows);
    if (!v.strings.empty()) v.strings.resize(batch_.rows);
  }
  absl::Status pushed = push(batch_);
  Clear();
  return pushed;
}

int MeasureColumnOf(const TableColumns& table, const SeriesColumns& series,
                    std::string_view name, ValueType type) {
  if (series.multi) {
    auto it = table.attribute_column.find(absl::string_view(name.data(), name.size()));
    if (it == table.attribute_column.end() || it->second.type != type) return -1;
    return it->second.column;
  }
  auto it = table.scalar_column.find(type);
  return it == table.scalar_column.end() ? -1 : it->second;
}

int ScanBatcher::MeasureColumn(size_t position, std::string_view name, ValueType type) {
  if (!series_->multi) return ColumnOf(name, type);
  if (position >= position_cache_.size()) position_cache_.resize(position + 1);
  CachedColumn& cached = position_cache_[position];
  // "" never matches: attribute names are not empty.
  if (cached.name != name || cached.type != type) {
    cached = {std::string(name), type, ColumnOf(name, type)};
  }
  return cached.column;
}

bool ScanBatcher::SelectSeries(uint64_t series) {
  if (series == last_series_) return series_ != nullptr;
  auto it = table_.series.find(series);
  series_ = it == table_.series.end() ? nullptr : &it->second;
  last_series_ = series;
  series_values_.clear();
  if (series_ == nullptr) return false;
  for (const auto& [column, value] : series_->values) {
    if (read_[column]) series_values_.emplace_back(column, value);
  }
  return true;
}

size_t ScanBatcher::StartRow(int64_t time_nanos) {
  if (!sized_) SizeForFullBatch();
  const size_t r = batch_.rows++;
  for (const auto& [column, value] : series_values_) {
    batch_.columns[column].strings[r] = value;
    batch_.columns[column].nulls[r] = 0;
  }
  if (read_[table_.time_column]) {
    batch_.columns[table_.time_column].ints[r] = time_nanos;
    batch_.columns[table_.time_column].nulls[r] = 0;
  }
  return r;
}

const std::vector<int>& ScanBatcher::ShapeColumns(const RowShape& shape) {
  // By serial, not address: a bucket sealed while the scan runs frees its
  // shapes, and a new one may be made at a freed one's address.
  if (shape.serial() != cached_shape_serial_) {
    cached_shape_serial_ = shape.serial();
    shape_columns_.clear();
    shape_reads_.clear();
    shape_bounds_.clear();
    for (const ValueBound& bound : bounds_) shape_bounds_.emplace_back(&bound, -1);
    for (size_t i = 0; i < shape.size(); ++i) {
      const int column = ColumnOf(shape.name(i), shape.type(i));
      shape_columns_.push_back(column >= 0 && read_[column] ? column : -1);
      if (shape_columns_.back() >= 0) shape_reads_.emplace_back(i, column);
      for (auto& [bound, position] : shape_bounds_) {
        if (column >= 0 && bound->column == column) position = static_cast<int>(i);
      }
    }
  }
  return shape_columns_;
}

bool ScanBatcher::FixedRowMayPass(std::string_view values, const RowShape& shape) const {
  for (const auto& [bound, position] : shape_bounds_) {
    if (position < 0) return false;  // NULL, which WHERE drops
    const MeasureView m = FixedValueAt(values, shape, position);
    if (m.type == ValueType::kDouble && !DoubleMayPass(*bound, m.real)) return false;
  }
  return true;
}

void ScanBatcher::AddMeasure(size_t r, size_t position, const MeasureView& m) {
  const int column = MeasureColumn(position, m.name, m.type);
  if (column < 0 || !read_[column]) return;
  StoreMeasure(r, column, m);
}

void ScanBatcher::StoreMeasure(size_t r, int column, const MeasureView& m) {
  switch (m.type) {
    case ValueType::kDouble: StoreDouble(batch_.columns[column], r, m.real); break;
    case ValueType::kVarchar: StoreText(batch_.columns[column], r, m.text); break;
    default: StoreInteger(batch_.columns[column], r, m.number); break;
  }
}

absl::StatusOr<bool> ScanBatcher::Add(const ScanRow& row) {
  if (!SelectSeries(row.series)) return false;
  if (!row.encoded.empty() && row.shape != nullptr && series_->multi &&
      !row.shape->fixed_offsets().empty()) {
    // Only the values read, each at its place: a query reads a few of a
    // row's many values (double-groupby-1: 1 of 10), and walking every
    // value to reach them was most of a scan of the memory head. A row that
    // fails a bound is dropped before its columns are filled (late
    // materialization, as AddBlock does for a block's points).
    ShapeColumns(*row.shape);
    std::string_view values;
    if (!FixedValues(row.encoded, *row.shape, &values)) return CorruptionError("row");
    if (!FixedRowMayPass(values, *row.shape)) return false;
    const size_t r = StartRow(row.time_nanos);
    for (const auto& [position, column] : shape_reads_) {
      StoreMeasure(r, column, FixedValueAt(values, *row.shape, position));
    }
    return batch_.rows == kBatchRows;
  }
  const size_t r = StartRow(row.time_nanos);
  if (!row.encoded.empty()) {
    if (row.shape != nullptr && series_->multi) {
      // Columns found once per shape, not per row by name.
      if (!StoreShapeRow(row.encoded, *row.shape, ShapeColumns(*row.shape), r)) {
        return CorruptionError("row");
      }
    } else {
      RowReader reader(row.encoded, row.shape);
      int64_t version;
      MeasureView m;
      if (!reader.Start(&version)) return CorruptionError("row");
      for (size_t p = 0; reader.Next(&m); ++p) AddMeasure(r, p, m);
      if (!reader.ok()) return CorruptionError("row");
    }
  } else {
    for (size_t p = 0; p < row.measures.size(); ++p) {
      const Value& v = row.measures[p].value;
      AddMeasure(r, p, {.name = row.measures[p].name, .type = v.type, .real = v.real,
                        .number = v.number, .text = v.text});
    }
  }
  return batch_.rows == kBatchRows;
}

absl::StatusOr<bool> ScanBatcher::AddHeadSeries(const HeadSeries& series,
                                                 const std::function<bool()>& full) {
  if (!SelectSeries(series.series)) return true;
  // Rows are in time order: the range's rows are one run of them.
  const absl::Span<const HeadRow> all = series.rows;
  auto by_time = [](const HeadRow& e, int64_t t) { return e.time_nanos < t; };
  const auto first = std::lower_bound(all.begin(), all.end(), series.start_nanos, by_time);
  const auto last = std::lower_bound(first, all.end(), series.end_nanos, by_time);
  const absl::Span<const HeadRow> rows(first, last - first);
  for (size_t i = 0; i < rows.size() && i < kRowsPrefetchedAhead; ++i) PrefetchRow(rows[i]);
  ScanRow row;
  row.series = series.series;
  for (size_t i = 0; i < rows.size();) {
    const HeadRow& entry = rows[i];
    if (entry.size == 0 || entry.shape > series.shapes.size()) return CorruptionError("row");
    const RowShape* shape = entry.shape == 0 ? nullptr : series.shapes[entry.shape - 1];
    if (shape != nullptr && series_->multi) {
      // A run of rows of one shape, at most what the batch has room for, is
      // added as a run (AddFixedRun: a column at a time; AddShapeRun).
      // A run needs room: Add and the runs call `full` as the batch fills, so
      // none is left full, but a run written past it would be out of bounds.
      if (batch_.rows == kBatchRows && !full()) return false;
      size_t n = 1;
      const size_t room = kBatchRows - batch_.rows;
      while (n < room && i + n < rows.size() && rows[i + n].shape == entry.shape) ++n;
      const absl::Span<const HeadRow> run = rows.subspan(i, n);
      const bool added = shape->fixed_offsets().empty() ? AddShapeRun(run, *shape)
                                                        : AddFixedRun(run, *shape);
      if (!added) return CorruptionError("row");
      i += n;
      if (batch_.rows == kBatchRows && !full()) return false;
      continue;
    }
    if (i + kRowsPrefetchedAhead < rows.size()) PrefetchRow(rows[i + kRowsPrefetchedAhead]);
    row.time_nanos = entry.time_nanos;
    row.encoded = entry.stored();
    row.shape = shape;
    absl::StatusOr<bool> batch_full = Add(row);
    if (!batch_full.ok()) return batch_full.status();
    if (*batch_full && !full()) return false;
    ++i;
  }
  return true;
}

bool ScanBatcher::AddFixedRun(absl::Span<const HeadRow> rows, const RowShape& shape) {
  ShapeColumns(shape);
  // Each row's values (after its version), the rows that fail a bound
  // left out before any column is filled.
  run_values_.clear();
  run_times_.clear();
  for (size_t i = 0; i < rows.size(); ++i) {
    if (i + kRowsPrefetchedAhead < rows.size()) PrefetchRow(rows[i + kRowsPrefetchedAhead]);
    std::string_view values;
    if (!FixedValues(rows[i].stored(), shape, &values)) return false;
    if (!shape_bounds_.empty() && !FixedRowMayPass(values, shape)) continue;
    run_values_.push_back(values.data());
    run_times_.push_back(rows[i].time_nanos);
  }
  const size_t n = run_values_.size();
  if (n == 0) return true;
  const size_t r = StartRun();
  for (const auto& [position, column] : shape_reads_) {
    Vector& v = batch_.columns[column];
    const uint32_t offset = shape.fixed_offsets()[position];
    if (shape.type(position) == ValueType::kDouble) {
      for (size_t k = 0; k < n; ++k) v.doubles[r + k] = FixedDoubleAt(run_values_[k], offset);
    } else {  // BOOLEAN, the other fixed-size type
      for (size_t k = 0; k < n; ++k) v.ints[r + k] = FixedBooleanAt(run_values_[k], offset);
    }
    std::fill_n(v.nulls.begin() + r, n, 0);
  }
  return true;
}

bool ScanBatcher::AddShapeRun(absl::Span<const HeadRow> rows, const RowShape& shape) {
  const std::vector<int>& columns = ShapeColumns(shape);
  run_times_.clear();
  for (const HeadRow& row : rows) run_times_.push_back(row.time_nanos);
  const size_t r = StartRun();
  for (size_t k = 0; k < rows.size(); ++k) {
    if (k + kRowsPrefetchedAhead < rows.size()) PrefetchRow(rows[k + kRowsPrefetchedAhead]);
    if (!StoreShapeRow(rows[k].stored(), shape, columns, r + k)) return false;
  }
  return true;
}

bool ScanBatcher::StoreShapeRow(std::string_view compact, const RowShape& shape,
                                const std::vector<int>& columns, size_t r) {
  RowReader reader(compact, &shape);
  int64_t version;
  MeasureView m;
  if (!reader.Start(&version)) return false;
  for (size_t p = 0; reader.Next(&m); ++p) {
    if (columns[p] >= 0) StoreMeasure(r, columns[p], m);
  }
  return reader.ok();
}

size_t ScanBatcher::StartRun() {
  const size_t n = run_times_.size();
  if (!sized_) SizeForFullBatch();
  const size_t r = batch_.rows;
  batch_.rows += n;
  for (const auto& [column, value] : series_values_) {
    Vector& v = batch_.columns[column];
    std::fill_n(v.strings.begin() + r, n, value);
    std::fill_n(v.nulls.begin() + r, n, 0);
  }
  if (read_[table_.time_column]) {
    Vector& v = batch_.columns[table_.time_column];
    std::copy(run_times_.begin(), run_times_.end(), v.ints.begin() + r);
    std::fill_n(v.nulls.begin() + r, n, 0);
  }
  return r;
}

bool ScanBatcher::RuledOut(const format::BlockSummary& summary) const {
  for (const ValueBound& bound : bounds_) {
    const format::ColumnSummary* feeding = nullptr;
    for (const format::ColumnSummary& c : summary.columns) {
      if (ColumnOf(c.name, c.type) == bound.column) {
        feeding = &c;
        break;
      }
    }
    if (RulesOut(bound, feeding, summary.count)) return true;
  }
  return false;
}

std::vector<uint8_t> ScanBatcher::PointsThatMayPass(const format::BlockColumns& bounded) const {
  std::vector<uint8_t> keep(bounded.times.size(), 1);
  for (const ValueBound& bound : bounds_) {
    const format::ColumnValues* values = nullptr;
    for (size_t c = 0; c < bounded.columns.size(); ++c) {
      const format::ColumnSummary& summary = bounded.summary.columns[c];
      if (bounded.columns[c] && ColumnOf(summary.name, summary.type) == bound.column) {
        values = &*bounded.columns[c];
      }
    }
    if (values == nullptr) {  // no such column: NULL everywhere, which WHERE drops
      std::fill(keep.begin(), keep.end(), 0);
      break;
    }
    ClearPointsThatFail(bound, *values, &keep);
  }
  return keep;
}

absl::StatusOr<bool> ScanBatcher::AddBlock(const WholeBlock& block,
                                           const std::function<bool()>& full) {
  if (!SelectSeries(block.series)) return true;
  if (!bounds_.empty() && RuledOut(*block.summary)) {
    ++blocks_ruled_out_;
    return true;
  }
  absl::StatusOr<format::BlockView> bytes = block.bytes();
  if (!bytes.ok()) return bytes.status();
  auto bounded = [this](int column) {
    return std::any_of(bounds_.begin(), bounds_.end(),
                       [column](const ValueBound& b) { return b.column == column; });
  };
  // Late materialization: with value bounds, the bounded columns are decoded
  // first and decide which points can pass; the block's other columns are
  // decoded only when some point can, their values only at those points where
  // the encoding allows (DecodeBlockColumns' needed points), and only those
  // points are added.
  std::optional<format::BlockColumns> first;
  std::vector<uint8_t> keep;  // per point; empty: every point in the time range
  format::NeededValues passing;  // with `keep`: the points added, by position
  if (!bounds_.empty()) {
    absl::StatusOr<format::BlockColumns> decoded = format::DecodeBlockColumns(
        *bytes, /*with_versions=*/false, [&](const format::ColumnSummary& c) {
          const int column = ColumnOf(c.name, c.type);
          return column >= 0 && bounded(column);
        });
    if (!decoded.ok()) return decoded.status();
    first = *std::move(decoded);
    keep = PointsThatMayPass(*first);
    if (std::find(keep.begin(), keep.end(), 1) == keep.end()) {
      ++blocks_ruled_out_;
      return true;
    }
    // The passing points inside the block's time range, listed without a branch a point
    // (which points pass follows no pattern).
    passing.resize(keep.size());
    size_t n = 0;
    for (size_t i = 0; i < keep.size(); ++i) {
      const int64_t time = first->times[i];
      passing[n] = static_cast<uint32_t>(i);
      n += keep[i] != 0 && time >= block.start_nanos && time < block.end_nanos;
    }
    passing.resize(n);
    if (passing.empty()) return true;
  }
  absl::StatusOr<format::BlockColumns> decoded = format::DecodeBlockColumns(
      *bytes, /*with_versions=*/false,
      [&](const format::ColumnSummary& c) {
        const int column = ColumnOf(c.name, c.type);
        return column >= 0 && read_[column] && !(first && bounded(column));
      },
      /*with_times=*/!first, first ? &passing : nullptr);
  if (!decoded.ok()) return decoded.status();
  const std::vector<int64_t>& times = first ? first->times : decoded->times;
  struct Feed {
    const format::ColumnValues* values;
    Vector* target;
    bool dense;       // no NULL: a point's value is at its own position
    size_t next = 0;  // the next value (present points only) when not dense
  };
  std::vector<Feed> feeds;
  bool all_dense = true;
  for (const format::BlockColumns* part : {&*decoded, first ? &*first : nullptr}) {
    if (part == nullptr) continue;
    for (size_t c = 0; c < part->columns.size(); ++c) {
      if (!part->columns[c]) continue;
      const format::ColumnSummary& summary = part->summary.columns[c];
      const int column = ColumnOf(summary.name, summary.type);
      if (!read_[column]) continue;  // decoded for its bound only
      feeds.push_back({&*part->columns[c], &batch_.columns[column], summary.null_count == 0});
      all_dense = all_dense && feeds.back().dense;
    }
  }
  const auto add = [&](size_t i) {
    const size_t r = StartRow(times[i]);
    for (Feed& feed : feeds) {
      const format::ColumnValues& values = *feed.values;
      size_t k = i;
      if (!feed.dense) {
        if (!values.present[i]) continue;
        k = feed.next++;
      }
      switch (values.type) {
        case ValueType::kDouble:
          StoreDouble(*feed.target, r, values.reals[k]);
          break;
        case ValueType::kVarchar:
          StoreText(*feed.target, r, values.texts[k]);
          break;
        default:
          StoreInteger(*feed.target, r, values.numbers[k]);
          break;
      }
    }
  };
  if (first && all_dense) {  // the passing points alone
    for (uint32_t i : passing) {
      add(i);
      if (batch_.rows == kBatchRows && !full()) return false;
    }
    return true;
  }
  for (size_t i = 0; i < times.size(); ++i) {
    const int64_t time = times[i];
    if (time < block.start_nanos || time >= block.end_nanos || (!keep.empty() && !keep[i])) {
      for (Feed& feed : feeds) {
        if (!feed.dense) feed.next += feed.values->present[i];
      }
      continue;
    }
    add(i);
    if (batch_.rows == kBatchRows && !full()) return false;
  }
  return true;
}

}  // namespace strata::query
