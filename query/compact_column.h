// A column of values kept by an operator that holds its input (a join's
// build side): 12 bytes per value instead of a 72-byte Datum, with text
// and nested values beside. Each value keeps its own type, so a column
// whose values differ in type (a NULL-typed expression, BIGINT beside
// DOUBLE) reads back exactly what was appended.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "query/datum.h"

namespace strata::query {

class CompactColumn {
 public:
  void Append(const Datum& value);
  Datum Get(size_t i) const;
  size_t size() const { return types_.size(); }
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
};

}  // namespace strata::query
