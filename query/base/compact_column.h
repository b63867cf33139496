// A column of values kept by an operator that holds its input (a join's
// build side, a window's rows and keys): 12 bytes per value instead of a
// 72-byte Datum, with text and nested values beside. Each value keeps its own type, so a column
// whose values differ in type (a NULL-typed expression, BIGINT beside
// DOUBLE) reads back exactly what was appended.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "query/base/datum.h"

namespace strata::query {

class CompactColumn {
 public:
  void Append(const Datum& value);
  // Makes `n` NULL values, to be Set in any order (a window's results).
  void Resize(size_t n);
  void Set(size_t i, const Datum& value);
  Datum Get(size_t i) const;
  size_t size() const { return types_.size(); }
  bool IsNull(size_t i) const { return (types_[i] & kNull) != 0; }
  // Compare(Get(i), Get(j)) without making the Datums (sorting by a key).
  int Compare(size_t i, size_t j) const;
  // The bytes of text and nested values held (beyond 12 a value).
  int64_t ExtraBytes() const { return extra_bytes_; }
  // Bytes held for values appended so far: what Append adds to it is what
  // an operator charges to the query's memory (BytesOf).
  static int64_t BytesOf(const Datum& value);

 private:
  static constexpr uint32_t kNull = 1u << 31;  // or'ed into a NULL value's type
  std::vector<uint32_t> types_;
  // BOOLEAN, BIGINT, TIMESTAMP, intervals, DATE, TIME: the integer; DOUBLE:
  // its bits; VARCHAR: an index into text_; composites: into nested_.
  std::vector<int64_t> payload_;
  std::vector<std::string> text_;
  std::vector<std::shared_ptr<const NestedValue>> nested_;
  int64_t extra_bytes_ = 0;
};

}  // namespace strata::query
