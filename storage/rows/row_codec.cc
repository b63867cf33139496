#include "storage/rows/row_codec.h"

#include <cstring>

#include "common/coding.h"
#include "storage/rows/head_rows.h"

namespace strata {


void EncodeRow(const StoredRow& row, std::string* out) {
  PutVarint64(out, static_cast<uint64_t>(row.version));
  PutVarint64(out, row.measures.size());
  for (const Measure& m : row.measures) {
    PutNameAndType(m.name, m.value.type, out);
    AppendValue(ValueView::Of(m.value), out);
  }
}

void EncodeRowSignature(const std::vector<Measure>& measures, std::string* out) {
  PutVarint64(out, measures.size());
  for (const Measure& m : measures) PutNameAndType(m.name, m.value.type, out);
}

void EncodeCompactRow(const StoredRow& row, std::string* out) {
  size_t bound = kMaxVarint64Bytes;
  for (const Measure& m : row.measures) bound += MaxValueBytes(ValueView::Of(m.value));
  AppendBounded(out, bound, [&](char* p) {
    p = EncodeVarint64(p, static_cast<uint64_t>(row.version));
    for (const Measure& m : row.measures) p = EncodeValue(p, ValueView::Of(m.value));
    return p;
  });
}

void AppendCompactRow(int64_t version, std::string_view values, std::string* out) {
  AppendBounded(out, kMaxVarint64Bytes + values.size(), [&](char* p) {
    p = EncodeVarint64(p, static_cast<uint64_t>(version));
    std::memcpy(p, values.data(), values.size());
    return p + values.size();
  });
}

absl::StatusOr<StoredRow> DecodeRow(std::string_view bytes) {
  StoredRow row;
  absl::Status decoded = DecodeRowInto(bytes, &row);
  if (!decoded.ok()) return decoded;
  return row;
}

absl::Status DecodeRowInto(std::string_view bytes, StoredRow* out) {
  return DecodeRowInto(bytes, nullptr, out);
}

absl::Status DecodeRowInto(std::string_view bytes, const RowShape* shape, StoredRow* out) {
  RowReader reader(bytes, shape);
  if (!reader.Start(&out->version)) return CorruptionError("row");
  MeasureView m;
  size_t n = 0;
  while (reader.Next(&m)) {
    if (n == out->measures.size()) out->measures.emplace_back();
    Measure& measure = out->measures[n++];
    measure.name = m.name;  // reuses the string's storage
    measure.value.type = m.type;
    measure.value.real = m.real;
    measure.value.number = m.number;
    measure.value.text = m.text;
  }
  if (!reader.ok()) return CorruptionError("row");
  out->measures.resize(n);
  return absl::OkStatus();
}

bool RowReader::Start(int64_t* version) {
  uint64_t v;
  if (!in_.GetVarint64(&v)) return ok_ = false;
  if (shape_ != nullptr) {
    left_ = shape_->size();
  } else if (!in_.GetVarint64(&left_) || left_ > size_) {
    return ok_ = false;
  }
  *version = static_cast<int64_t>(v);
  return true;
}

bool RowReader::Next(MeasureView* m) {
  if (left_ == 0) {
    if (!in_.done()) ok_ = false;
    return false;
  }
  --left_;
  uint8_t type = 0;
  if (shape_ != nullptr) {
    m->name = shape_->name(next_);
    type = static_cast<uint8_t>(shape_->type(next_));
    ++next_;
  } else if (!in_.GetLengthPrefixed(&m->name) || !in_.GetByte(&type) ||
             !IsValidValueType(type)) {
    return ok_ = false;
  }
  if (!ReadValue(in_, static_cast<ValueType>(type), m)) return ok_ = false;
  return true;
}

}  // namespace strata
