#include "query/scan_batcher.h"

namespace strata::query {
namespace {

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

}  // namespace

ScanBatcher::ScanBatcher(const TableColumns& table, const std::vector<bool>& read)
    : table_(table), read_(read) {
  for (size_t c = 0; c < table.types.size(); ++c) {
    batch_.columns.emplace_back(table.types[c]);
    if (read[c]) read_columns_.push_back(static_cast<int>(c));
  }
  Clear();
}

void ScanBatcher::Clear() {
  batch_.rows = 0;
  for (int c : read_columns_) {
    Vector& v = batch_.columns[c];
    v.arena.reset();
    v.ResetNull(kBatchRows);
  }
}

const Batch& ScanBatcher::batch() {
  for (int c : read_columns_) {
    Vector& v = batch_.columns[c];
    v.nulls.resize(batch_.rows);
    if (!v.ints.empty()) v.ints.resize(batch_.rows);
    if (!v.doubles.empty()) v.doubles.resize(batch_.rows);
    if (!v.strings.empty()) v.strings.resize(batch_.rows);
  }
  return batch_;
}

int ScanBatcher::MeasureColumn(size_t position, const Measure& m) {
  if (!series_->multi) {
    auto it = table_.scalar_column.find(m.value.type);
    return it == table_.scalar_column.end() ? -1 : it->second;
  }
  if (position >= position_cache_.size()) position_cache_.resize(position + 1, {"", -1});
  auto& [name, column] = position_cache_[position];
  if (name != m.name || column < 0) {
    auto it = table_.attribute_column.find(m.name);
    name = m.name;
    column = it == table_.attribute_column.end() ? -1 : it->second;
  }
  return column;
}

bool ScanBatcher::Add(const ScanRow& row) {
  if (row.series != last_series_) {
    auto it = table_.series.find(row.series);
    series_ = it == table_.series.end() ? nullptr : &it->second;
    last_series_ = row.series;
  }
  if (series_ == nullptr) return false;
  const size_t r = batch_.rows++;
  for (const auto& [column, value] : series_->values) {
    if (!read_[column]) continue;
    batch_.columns[column].strings[r] = value;
    batch_.columns[column].nulls[r] = 0;
  }
  if (read_[table_.time_column]) {
    batch_.columns[table_.time_column].ints[r] = row.time_nanos;
    batch_.columns[table_.time_column].nulls[r] = 0;
  }
  for (size_t p = 0; p < row.measures.size(); ++p) {
    const Measure& m = row.measures[p];
    const int column = MeasureColumn(p, m);
    if (column < 0 || !read_[column]) continue;
    Vector& v = batch_.columns[column];
    const Value& value = m.value;
    if (value.type == ValueType::kDouble && v.type == DataType::kDouble) {
      v.doubles[r] = value.real;
      v.nulls[r] = 0;
    } else if (value.type == ValueType::kVarchar && v.type == DataType::kVarchar) {
      v.SetOwnedString(r, value.text);
    } else if (value.type != ValueType::kVarchar && value.type != ValueType::kDouble &&
               v.type != DataType::kVarchar && v.type != DataType::kDouble) {
      v.ints[r] = value.number;  // BIGINT, BOOLEAN, TIMESTAMP: all integers
      v.nulls[r] = 0;
    } else {
      v.Set(r, ToDatum(value));  // an attribute another measure gave a different type
    }
  }
  return batch_.rows == kBatchRows;
}

}  // namespace strata::query
