#include "query/base/compact_column.h"

#include <bit>
#include <cstring>

namespace strata::query {

void CompactColumn::Append(const Datum& value) {
  extra_bytes_ += BytesOf(value) - static_cast<int64_t>(sizeof(uint32_t) + sizeof(int64_t));
  const auto type = static_cast<uint32_t>(value.type);
  if (value.null) {
    types_.push_back(type | kNull);
    payload_.push_back(0);
    return;
  }
  types_.push_back(type);
  if (value.nested) {
    payload_.push_back(static_cast<int64_t>(nested_.size()));
    nested_.push_back(value.nested);
  } else if (IsText(value.type)) {
    payload_.push_back(StoreText(value.s));
  } else if (value.type == DataType::kDouble) {
    payload_.push_back(std::bit_cast<int64_t>(value.d));
  } else {
    payload_.push_back(value.i);
  }
}

int64_t CompactColumn::AppendVector(const Vector& values, size_t rows) {
  constexpr int64_t kFixed = sizeof(uint32_t) + sizeof(int64_t);
  const auto type = static_cast<uint32_t>(values.type);
  if (values.size() < rows || values.type == DataType::kUnknown) {
    types_.insert(types_.end(), rows, type | kNull);
    payload_.insert(payload_.end(), rows, 0);
    return kFixed * static_cast<int64_t>(rows);
  }
  if (IsComposite(values.type)) {
    int64_t bytes = 0;
    for (size_t i = 0; i < rows; ++i) {
      const Datum value = values.Get(i);
      bytes += BytesOf(value);
      Append(value);
    }
    return bytes;
  }
  int64_t bytes = kFixed * static_cast<int64_t>(rows);
  for (size_t i = 0; i < rows; ++i) {
    if (values.nulls[i] != 0) {
      types_.push_back(type | kNull);
      payload_.push_back(0);
      continue;
    }
    types_.push_back(type);
    if (IsText(values.type)) {
      const std::string_view text = values.strings[i];
      const int64_t extra = TextCharge(text.size());
      bytes += extra;
      extra_bytes_ += extra;
      payload_.push_back(StoreText(text));
    } else if (values.type == DataType::kDouble) {
      payload_.push_back(std::bit_cast<int64_t>(values.doubles[i]));
    } else {
      payload_.push_back(values.ints[i]);
    }
  }
  return bytes;
}

void CompactColumn::Resize(size_t n) {
  types_.assign(n, static_cast<uint32_t>(DataType::kUnknown) | kNull);
  payload_.assign(n, 0);
}

void CompactColumn::Set(size_t i, const Datum& value) {
  extra_bytes_ += BytesOf(value) - static_cast<int64_t>(sizeof(uint32_t) + sizeof(int64_t));
  const auto type = static_cast<uint32_t>(value.type);
  types_[i] = value.null ? (type | kNull) : type;
  if (value.null) return;
  if (value.nested) {
    payload_[i] = static_cast<int64_t>(nested_.size());
    nested_.push_back(value.nested);
  } else if (IsText(value.type)) {
    payload_[i] = StoreText(value.s);
  } else if (value.type == DataType::kDouble) {
    payload_[i] = std::bit_cast<int64_t>(value.d);
  } else {
    payload_[i] = value.i;
  }
}

int CompactColumn::Compare(size_t i, size_t j) const {
  const bool null_i = IsNull(i), null_j = IsNull(j);
  if (null_i || null_j) return null_i == null_j ? 0 : (null_i ? 1 : -1);  // NULLs last
  const auto type = static_cast<DataType>(types_[i]);
  if (types_[i] == types_[j] && !IsComposite(type)) {
    if (IsText(type)) {
      const int c = Text(i).compare(Text(j));
      return c < 0 ? -1 : c > 0;
    }
    if (type == DataType::kDouble) {
      return DoublesOrder(std::bit_cast<double>(payload_[i]), std::bit_cast<double>(payload_[j]));
    }
    return payload_[i] < payload_[j] ? -1 : payload_[i] > payload_[j];
  }
  return query::Compare(Get(i), Get(j));
}

Datum CompactColumn::Get(size_t i) const {
  const uint32_t type = types_[i];
  if ((type & kNull) != 0) return Datum::Null(static_cast<DataType>(type & ~kNull));
  Datum out{.type = static_cast<DataType>(type), .null = false};
  const int64_t payload = payload_[i];
  if (IsComposite(out.type)) {
    out.nested = nested_[static_cast<size_t>(payload)];
  } else if (IsText(out.type)) {
    out.s = Text(i);
  } else if (out.type == DataType::kDouble) {
    out.d = std::bit_cast<double>(payload);
  } else {
    out.i = payload;
  }
  return out;
}

void CompactColumn::Gather(const size_t* rows, size_t count, Vector* out) const {
  for (size_t j = 0; j < count; ++j) {
    const size_t r = rows[j];
    const uint32_t type = types_[r];
    if ((type & kNull) != 0) {
      out->nulls[j] = 1;
      continue;
    }
    const auto value_type = static_cast<DataType>(type);
    if (value_type != out->type || IsComposite(value_type)) {
      out->Set(j, Get(r));  // converted, or a nested value
      continue;
    }
    out->nulls[j] = 0;
    if (IsText(value_type)) {
      out->strings[j] = Text(r);
    } else if (value_type == DataType::kDouble) {
      out->doubles[j] = std::bit_cast<double>(payload_[r]);
    } else {
      out->ints[j] = payload_[r];
    }
  }
}

DataType CompactColumn::OneType() const {
  if (types_.empty() || (types_[0] & kNull) != 0) return DataType::kUnknown;
  for (uint32_t type : types_) {
    if (type != types_[0]) return DataType::kUnknown;
  }
  return static_cast<DataType>(types_[0]);
}

std::string_view CompactColumn::Text(size_t i) const { return TextAt(payload_[i]); }

std::string_view CompactColumn::TextAt(int64_t offset) const {
  const char* at = text_.data() + offset;
  uint32_t length;
  std::memcpy(&length, at, sizeof(length));
  return {at + sizeof(length), length};
}

int64_t CompactColumn::StoreText(std::string_view text) {
  if (last_text_ >= 0 && TextAt(last_text_) == text) return last_text_;
  last_text_ = static_cast<int64_t>(text_.size());
  // A text is at most kMaxTextBytes, far below 4 GiB.
  const auto length = static_cast<uint32_t>(text.size());
  const char* bytes = reinterpret_cast<const char*>(&length);
  text_.insert(text_.end(), bytes, bytes + sizeof(length));
  text_.insert(text_.end(), text.begin(), text.end());
  return last_text_;
}

int64_t CompactColumn::BytesOf(const Datum& value) {
  int64_t bytes = sizeof(uint32_t) + sizeof(int64_t);
  if (value.null) return bytes;
  if (value.nested) return bytes + static_cast<int64_t>(sizeof(std::shared_ptr<const NestedValue>)) +
                           value.HeapBytes();
  if (IsText(value.type)) bytes += TextCharge(value.s.size());
  return bytes;
}

int64_t CompactColumn::TextCharge(size_t size) {
  constexpr size_t kSmallString = 15;  // libstdc++'s in-place capacity
  return static_cast<int64_t>(sizeof(std::string)) +
         (size > kSmallString ? static_cast<int64_t>(size) + 1 : 0);
}

}  // namespace strata::query
