// How the memory head stores an encoded row (storage/rows/row_codec.h) in less
// memory: the rows of a series nearly always carry the same measure names
// and types in the same order (a MULTI record's attributes), which are most
// of a row's bytes (120 of 200 for ten doubles with names like
// "usage_guest_nice"). The head keeps those once per bucket as a RowShape
// and stores a row as its version and values only; readers get the encoded
// row back byte for byte (AppendEncodedRow).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "common/coding.h"
#include "common/value.h"

namespace strata {

struct MeasureView;  // storage/rows/value_codec.h

// An encoded row cut into its parts (views of the row).
struct RowParts {
  std::string_view version;  // the version's varint bytes
  std::string_view count;    // the measure count's varint bytes
  struct Measure {
    std::string_view name;   // length prefix, name and type byte
    std::string_view value;  // the value's bytes
    ValueType type;
  };
  absl::InlinedVector<Measure, 16> measures;
};

// Cuts `row` into parts; false if it is not a well-formed encoded row.
bool SplitEncodedRow(std::string_view row, RowParts* parts);
// Cuts a shape's signature (RowShape::Signature) into the count and the
// measures' names and types (no version, no values); false if it is not a
// well-formed signature of at least one measure.
bool SplitSignature(std::string_view signature, RowParts* parts);
// Whether `compact` is a well-formed compact row (a version, then a value
// of each type in order) of the shape `parts` describes.
bool IsCompactRowOf(const RowParts& parts, std::string_view compact);

// The measure names and types of rows stored compactly.
class RowShape {
 public:
  explicit RowShape(const RowParts& parts);
  RowShape(const RowShape&) = delete;  // names() views its own bytes
  RowShape& operator=(const RowShape&) = delete;

  // The measures, in the row's order.
  size_t size() const { return types_.size(); }
  std::string_view name(size_t i) const { return names_view_[i]; }
  ValueType type(size_t i) const { return types_[i]; }
  const std::vector<ValueType>& types() const { return types_; }

  // The bytes that identify a shape: equal for rows of equal names and types.
  static std::string Signature(const RowParts& parts);
  // This shape's Signature: the count, then each name and type.
  std::string_view signature() const { return signature_; }
  // SplitEncodedRow for a row of this shape, in one pass that compares the
  // names as it goes (the writer's common case); false if `row` is not a
  // well-formed row of this shape.
  bool SplitIfMatches(std::string_view row, RowParts* parts) const;

  // The compact form of a row of this shape (its version and values),
  // written to `out`, which has CompactSize bytes.
  static size_t CompactSize(const RowParts& parts);
  static void WriteCompact(const RowParts& parts, char* out);
  // Appends the encoded row that `compact` (WriteCompact's bytes, of this
  // shape) was made from.
  void AppendEncodedRow(std::string_view compact, std::string* out) const;
  // Where each value of a compact row of this shape starts, counted from
  // the end of its version, when every value has a fixed size (DOUBLE,
  // BOOLEAN); empty when one has not. A reader that wants a few of a row's
  // values reads them in place (FixedValues) instead of every value in turn.
  const std::vector<uint32_t>& fixed_offsets() const { return fixed_offsets_; }
  // The bytes of those values together (0 with fixed_offsets() empty).
  size_t fixed_size() const { return fixed_size_; }

  // A number no other shape of this process has, freed or alive: what a
  // reader that caches work per shape keys it by. (An address is reused once
  // a sealed bucket frees its shapes, and a scan may meet rows of a bucket
  // sealed while it runs.)
  uint64_t serial() const { return serial_; }

  // Bytes the shape holds (for the head's accounting).
  size_t bytes() const {
    return sizeof(*this) + signature_.size() +
           ends_.size() * (2 * sizeof(uint32_t) + sizeof(ValueType) + sizeof(std::string_view));
  }

 private:
  // The measure count's varint bytes: the head of signature_.
  std::string_view count() const { return std::string_view(signature_).substr(0, count_size_); }
  // Every measure's length-prefixed name and type byte: the rest of it.
  std::string_view names() const { return std::string_view(signature_).substr(count_size_); }

  uint64_t serial_;
  std::string signature_;
  size_t count_size_ = 0;
  std::vector<uint32_t> ends_;   // where each measure's part of names() ends
  std::vector<ValueType> types_;
  std::vector<std::string_view> names_view_;  // each measure's name, in names()
  std::vector<uint32_t> fixed_offsets_;
  size_t fixed_size_ = 0;
};

// The values of `compact`, a compact row of `shape` (whose fixed_offsets()
// is not empty): the bytes after its version. False when they are not
// exactly shape.fixed_size() bytes (the row is corrupt).
bool FixedValues(std::string_view compact, const RowShape& shape, std::string_view* values);
// Value `i` of such a row's values (FixedValues' bytes), its name left empty.
MeasureView FixedValueAt(std::string_view values, const RowShape& shape, size_t i);
// The DOUBLE, or the BOOLEAN, starting `offset` bytes into such a row's
// values (FixedValues' data; offset from RowShape::fixed_offsets), without
// FixedValueAt's decoder: for readers that take one column of many rows (a
// query's run of rows, the tiering job's freeze into a block).
inline double FixedDoubleAt(const char* values, uint32_t offset) {
  const uint64_t bits = DecodeFixed64BE(values + offset);
  double d;
  std::memcpy(&d, &bits, sizeof(d));
  return d;
}
inline bool FixedBooleanAt(const char* values, uint32_t offset) { return values[offset] != 0; }

}  // namespace strata
