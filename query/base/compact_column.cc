#include "query/base/compact_column.h"

#include <bit>

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
  } else if (value.type == DataType::kVarchar) {
    payload_.push_back(static_cast<int64_t>(text_.size()));
    text_.push_back(value.s);
  } else if (value.type == DataType::kDouble) {
    payload_.push_back(std::bit_cast<int64_t>(value.d));
  } else {
    payload_.push_back(value.i);
  }
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
  } else if (value.type == DataType::kVarchar) {
    payload_[i] = static_cast<int64_t>(text_.size());
    text_.push_back(value.s);
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
    if (type == DataType::kVarchar) {
      const int c = text_[static_cast<size_t>(payload_[i])].compare(
          text_[static_cast<size_t>(payload_[j])]);
      return c < 0 ? -1 : c > 0;
    }
    if (type == DataType::kDouble) {
      const double x = std::bit_cast<double>(payload_[i]), y = std::bit_cast<double>(payload_[j]);
      return x < y ? -1 : x > y;
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
  } else if (out.type == DataType::kVarchar) {
    out.s = text_[static_cast<size_t>(payload)];
  } else if (out.type == DataType::kDouble) {
    out.d = std::bit_cast<double>(payload);
  } else {
    out.i = payload;
  }
  return out;
}

int64_t CompactColumn::BytesOf(const Datum& value) {
  int64_t bytes = sizeof(uint32_t) + sizeof(int64_t);
  if (value.null) return bytes;
  if (value.nested) return bytes + static_cast<int64_t>(sizeof(std::shared_ptr<const NestedValue>)) +
                           value.HeapBytes();
  if (value.type == DataType::kVarchar) {
    bytes += static_cast<int64_t>(sizeof(std::string));
    if (value.s.size() > 15) bytes += static_cast<int64_t>(value.s.size()) + 1;  // past SSO
  }
  return bytes;
}

}  // namespace strata::query
