// A column of values kept by an operator that holds its input (a join's
// build side, a window's rows and keys): 12 bytes per value instead of a
// 72-byte Datum, with text and nested values beside. Each value keeps its own type, so a column
// whose values differ in type (a NULL-typed expression, BIGINT beside
// DOUBLE) reads back exactly what was appended.
#pragma once

#include <bit>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "query/base/datum.h"
#include "query/base/vector.h"

namespace strata::query {

class CompactColumn {
 public:
  void Append(const Datum& value);
  // Appends the first `rows` values of `values` (NULLs of its type where it holds no values, a
  // column the query does not read): what Append of each value's Get would, without making the
  // Datums. Returns the bytes BytesOf counts for them.
  int64_t AppendVector(const Vector& values, size_t rows);
  // Makes `n` NULL values, to be Set in any order (a window's results).
  void Resize(size_t n);
  void Set(size_t i, const Datum& value);
  Datum Get(size_t i) const;
  // Sets out's values 0..count-1 to values rows[0..count-1] (out sized for them, of the
  // values' type or any other it converts them to): texts as views of this column's, valid
  // until the next Append or Set.
  void Gather(const size_t* rows, size_t count, Vector* out) const;
  size_t size() const { return types_.size(); }
  bool IsNull(size_t i) const { return (types_[i] & kNull) != 0; }
  // Compare(Get(i), Get(j)) without making the Datums (sorting by a key).
  int Compare(size_t i, size_t j) const;
  // The one type of every value if none is NULL and all have it; kUnknown otherwise.
  DataType OneType() const;
  // Value i of a column whose OneType is BOOLEAN, BIGINT, TIMESTAMP, an interval, DATE or
  // TIME: its integer.
  int64_t Integer(size_t i) const { return payload_[i]; }
  // Value i of a column whose OneType is DOUBLE.
  double Double(size_t i) const { return std::bit_cast<double>(payload_[i]); }
  // Value i of a column whose OneType is VARCHAR: a view of its text, valid until the next
  // Append or Set.
  std::string_view Text(size_t i) const;
  // The bytes of text and nested values held (beyond 12 a value).
  int64_t ExtraBytes() const { return extra_bytes_; }
  // Bytes held for values appended so far: what Append adds to it is what
  // an operator charges to the query's memory (BytesOf).
  static int64_t BytesOf(const Datum& value);

 private:
  static constexpr uint32_t kNull = 1u << 31;  // or'ed into a NULL value's type
  // Stores `text` in text_ (or finds it there: the text appended last) and returns where.
  int64_t StoreText(std::string_view text);
  // The text stored at `offset` of text_.
  std::string_view TextAt(int64_t offset) const;
  // What BytesOf charges a text beyond the 12 bytes of every value: a std::string's, and its
  // bytes past the small-string size (the charge a Datum's copy would cost).
  static int64_t TextCharge(size_t size);

  std::vector<uint32_t> types_;
  // BOOLEAN, BIGINT, TIMESTAMP, intervals, DATE, TIME: the integer; DOUBLE:
  // its bits; VARCHAR: where its length (4 bytes) and bytes are in text_; composites: an index
  // into nested_.
  std::vector<int64_t> payload_;
  // Every text in one buffer, not a string each: a window over a million rows of a dimension
  // made a million strings (and moved them as the vector grew). A run of equal texts (a series'
  // rows) is stored once.
  std::vector<char> text_;
  int64_t last_text_ = -1;
  std::vector<std::shared_ptr<const NestedValue>> nested_;
  int64_t extra_bytes_ = 0;
};

}  // namespace strata::query
