// One value as a stored row holds it (storage/rows/row_codec.h): a DOUBLE
// (8 bytes), BIGINT/TIMESTAMP (zig-zag varint), BOOLEAN (1 byte) or VARCHAR
// (length-prefixed), and a row's signature (its measures' names and types).
// The rows of the memory head (storage/rows/head_rows.h) and of RocksDB
// (storage/rows/row_codec.h) both build on it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/types/span.h"
#include "common/coding.h"
#include "common/value.h"

namespace strata {

// One measure of an encoded row, viewed in place: valid while the row's
// bytes are.
struct MeasureView {
  std::string_view name;
  ValueType type = ValueType::kDouble;
  double real = 0;        // DOUBLE
  int64_t number = 0;     // BIGINT, TIMESTAMP, BOOLEAN (0/1)
  std::string_view text;  // VARCHAR
};

// A value's bytes in an encoded row, without its name and type: written at
// `p` (at most MaxValueBytes; returns the end), appended to `out`, and read
// back (type, real, number and text of `m`; false if `in` does not start
// with a value of `type`).
inline size_t MaxValueBytes(const ValueView& value) {
  return value.type == ValueType::kVarchar ? kMaxVarint64Bytes + value.text.size()
                                           : kMaxVarint64Bytes;
}
inline char* EncodeValue(char* p, const ValueView& value) {
  switch (value.type) {
    case ValueType::kDouble: return EncodeDouble(p, value.real);
    case ValueType::kVarchar: return EncodeLengthPrefixed(p, value.text);
    case ValueType::kBoolean: *p = value.number != 0 ? 1 : 0; return p + 1;
    case ValueType::kBigint:
    case ValueType::kTimestamp: return EncodeVarsint64(p, value.number);
  }
  return p;
}
void AppendValue(const ValueView& value, std::string* out);
bool ReadValue(Decoder& in, ValueType type, MeasureView* m);

// A name and type as a signature holds them.
void PutNameAndType(std::string_view name, ValueType type, std::string* out);
// A row's signature: the count, then each name and type (RowShape::Signature).
void EncodeRowSignature(absl::Span<const std::string_view> names,
                        absl::Span<const ValueType> types, std::string* out);

}  // namespace strata
