// Column batches: the unit the executor's lower half (scan, WHERE,
// aggregation) works on. A Vector holds one column's values for up to
// kBatchRows rows in a typed array plus a null map, so a filter or an
// accumulator runs a tight loop over a whole batch instead of walking an
// expression tree per row.
//
// VARCHAR values are views: into the series' dimension strings the scan
// holds for the whole query, into a bound expression's literal, or into the
// vector's own arena for computed strings. A batch is valid only during the
// Push call that receives it; operators that keep values copy them (Datum).
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "query/base/datum.h"

namespace strata::query {

inline constexpr size_t kBatchRows = 1024;
// A batch gathered from rows (a join's, a subquery's) is sent on once its values hold this
// many bytes, however few its rows: 1,024 rows of a 1 MiB text would hold 1 GiB.
inline constexpr int64_t kBatchBytes = 8 << 20;

// True for the types a Vector keeps in `ints`: BOOLEAN, BIGINT, TIMESTAMP,
// the intervals, DATE and TIME.
inline bool UsesInts(DataType t) {
  return t == DataType::kBoolean || t == DataType::kBigint || t == DataType::kTimestamp ||
         t == DataType::kInterval || t == DataType::kDate || t == DataType::kTime ||
         t == DataType::kIntervalYearToMonth;
}
// DATE, TIME and INTERVAL YEAR TO MONTH: integers in units of their own, so
// arithmetic on them follows the calendar (expr.cc), never the integers'.
inline bool IsCalendarType(DataType t) {
  return t == DataType::kDate || t == DataType::kTime || t == DataType::kIntervalYearToMonth;
}

struct Vector {
  DataType type = DataType::kUnknown;
  std::vector<uint8_t> nulls;  // 1 where the value is NULL; its size is the row count
  std::vector<int64_t> ints;   // BOOLEAN (0/1), BIGINT, TIMESTAMP, intervals, DATE, TIME
  std::vector<double> doubles;  // DOUBLE
  std::vector<std::string_view> strings;  // VARCHAR
  std::vector<std::shared_ptr<const NestedValue>> nested;  // arrays, rows, timeseries
  // Owns strings computed into this vector (shared by copies of it).
  std::shared_ptr<std::deque<std::string>> arena;

  explicit Vector(DataType t = DataType::kUnknown) : type(t) {}

  size_t size() const { return nulls.size(); }
  bool null(size_t i) const { return nulls[i] != 0; }
  // Makes `n` rows, all NULL.
  void ResetNull(size_t n);
  // The value at `i` as a Datum (copies a string).
  Datum Get(size_t i) const;
  // Stores `d` (converted to this vector's type where numeric) at `i`.
  void Set(size_t i, const Datum& d);
  // As Set, but a VARCHAR `d` is stored as a view of d.s, which must
  // outlive every use of this row.
  void SetView(size_t i, const Datum& d);
  // Stores an owned copy of `s` at `i`.
  void SetOwnedString(size_t i, std::string s);
  // Numeric value at `i` as a double (BIGINT, DOUBLE, TIMESTAMP, INTERVAL).
  double AsDouble(size_t i) const {
    return type == DataType::kDouble ? doubles[i] : static_cast<double>(ints[i]);
  }
  // True if row `i` and row `j` of `other` hold equal values (NULLs equal),
  // by Compare's rules. Both vectors must have the same type.
  bool SameValue(size_t i, const Vector& other, size_t j) const;
};

// AppendKey(v.Get(i), out) without making the Datum.
void AppendKey(const Vector& v, size_t i, std::string* out);

// Rows as columns. A column the query does not read may be empty (size 0)
// instead of holding `rows` values; nothing evaluates it.
struct Batch {
  std::vector<Vector> columns;
  size_t rows = 0;
};

// A batch of `rows` rows with one all-NULL column per type in `types`.
Batch NewBatch(const std::vector<DataType>& types, size_t rows);

// The rows of `from` whose `keep` entry is nonzero, in order.
Batch SelectRows(const Batch& from, const std::vector<uint8_t>& keep);
// Rows `rows` of `from`, in that order: for a few rows of a large batch,
// without a pass over all of it. A column the query does not read stays empty.
Batch TakeRows(const Batch& from, const std::vector<uint32_t>& rows);

// How many of the `n` rows from `start` of `batch` hold no more than `bytes` together, a row
// counted by its texts and nested values and 9 a value: none when the first alone holds more.
size_t RowsWithinBytes(const Batch& batch, size_t start, size_t n, int64_t bytes);

// Rows [begin, end) of `from`.
Batch SliceRows(const Batch& from, size_t begin, size_t end);

}  // namespace strata::query
