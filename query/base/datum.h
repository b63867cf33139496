// Values as the query engine computes with them: SQL types with NULL.
// TIMESTAMP is nanoseconds since the Unix epoch (UTC); INTERVAL (day to
// second) is a nanosecond duration; DATE is days since the epoch; TIME is
// nanoseconds since midnight; INTERVAL YEAR TO MONTH is a count of months.
#pragma once

#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace strata::query {

// A SQL type. The scalar types are the named values; an array, row, map or
// timeseries type is a code above kFirstComposite that names one interned
// shape (ArrayOf, RowOf, MapOf, TimeseriesOf): equal shapes get equal codes,
// so types compare with == and travel through binding as one small value.
enum class DataType : uint32_t {
  kUnknown,  // the type of NULL
  kBoolean,
  kBigint,
  kDouble,
  kVarchar,
  kTimestamp,
  kInterval,
  kDate,
  kTime,
  kIntervalYearToMonth,
  // JSON text, checked when it was made (json(x), x::json, the constructors): VARCHAR at run
  // time in all but its type, which tells a JSON value nested into another (embedded as it is)
  // from a text (embedded as a JSON string). PostgreSQL's json; over gRPC a VARCHAR.
  kJson,
  kFirstComposite = 32,
};

enum class TypeKind { kScalar, kArray, kRow, kTimeseries, kMap };

struct RowField {
  std::string name;
  DataType type = DataType::kUnknown;
};

// At most this many distinct composite shapes exist in one server's life
// (each query's new shapes are interned for good): far more than queries
// write, and a bound on what a client can make the server keep.
inline constexpr size_t kMaxCompositeTypes = 200'000;
// Arrays, rows and time series nest at most this deep (ARRAY[ARRAY[1]] is
// 2): clients' protobuf parsers stop at 100 nested messages.
inline constexpr int kMaxTypeNesting = 32;
// The most values one array or timeseries holds; more fails the query (or the cast).
inline constexpr size_t kMaxNestedValues = 1'000'000;

TypeKind KindOf(DataType type);
// VARCHAR and JSON: the types whose values are text (Datum::s, a Vector's strings).
inline bool IsText(DataType type) { return type == DataType::kVarchar || type == DataType::kJson; }
inline bool IsComposite(DataType type) { return type >= DataType::kFirstComposite; }
// nullopt once kMaxCompositeTypes shapes exist or past kMaxTypeNesting
// (the query fails with TooManyTypesMessage).
std::optional<DataType> ArrayOf(DataType element);
std::optional<DataType> TimeseriesOf(DataType value);
std::optional<DataType> RowOf(std::vector<RowField> fields);
std::optional<DataType> MapOf(DataType key, DataType value);
// The error when ArrayOf, TimeseriesOf or RowOf return nullopt: too many
// shapes, or nested too deep.
std::string TooManyTypesMessage();
// An array's element type, a timeseries' or a map's value type (kUnknown
// otherwise).
DataType ElementType(DataType type);
// A map's key type (kUnknown otherwise).
DataType MapKeyType(DataType type);
// A row's fields (empty otherwise).
const std::vector<RowField>& RowFields(DataType type);

// "bigint", "double", "array(double)", "timeseries(row(time timestamp,
// value double))", ... as SQL spells them (DESCRIBE uses these).
std::string_view TypeName(DataType type);
// The name PostgreSQL gives a column of `type` ("double precision",
// "timestamp with time zone"): information_schema's data_type, what the
// PostgreSQL wire reports, and pg_typeof's answer for a scalar.
std::string_view PostgresTypeName(DataType type);

struct Datum;
// The values of an array, a row's fields, a timeseries' points (times[i]
// with values[i], in time order) or a map's entries (keys[i] to values[i],
// in key order, each key once). Shared and never changed.
struct NestedValue {
  std::vector<Datum> values;
  std::vector<int64_t> times;  // timeseries only
  std::vector<Datum> keys;     // maps only
};

struct Datum {
  DataType type = DataType::kUnknown;
  bool null = true;
  int64_t i = 0;   // BOOLEAN (0/1), BIGINT, TIMESTAMP, the intervals, DATE, TIME
  double d = 0;    // DOUBLE
  std::string s;   // VARCHAR, JSON
  std::shared_ptr<const NestedValue> nested;  // arrays, rows, timeseries

  static Datum Null(DataType type = DataType::kUnknown) { return {.type = type}; }
  static Datum Bool(bool v) { return {.type = DataType::kBoolean, .null = false, .i = v}; }
  static Datum Bigint(int64_t v) { return {.type = DataType::kBigint, .null = false, .i = v}; }
  static Datum Double(double v) { return {.type = DataType::kDouble, .null = false, .d = v}; }
  static Datum Varchar(std::string v) {
    return {.type = DataType::kVarchar, .null = false, .s = std::move(v)};
  }
  static Datum Json(std::string text) {
    return {.type = DataType::kJson, .null = false, .s = std::move(text)};
  }
  static Datum Timestamp(int64_t ns) {
    return {.type = DataType::kTimestamp, .null = false, .i = ns};
  }
  static Datum Interval(int64_t ns) { return {.type = DataType::kInterval, .null = false, .i = ns}; }
  static Datum Date(int64_t days) { return {.type = DataType::kDate, .null = false, .i = days}; }
  static Datum Time(int64_t ns) { return {.type = DataType::kTime, .null = false, .i = ns}; }
  static Datum Months(int64_t months) {
    return {.type = DataType::kIntervalYearToMonth, .null = false, .i = months};
  }
  // An array or row of `values`, or a timeseries with `times`.
  static Datum Composite(DataType type, std::vector<Datum> values,
                         std::vector<int64_t> times = {});
  // A map of keys[i] to values[i]: REQUIRES keys in Compare order, distinct
  // and not NULL (MakeMap in functions_map.cc builds them so).
  static Datum Map(DataType type, std::vector<Datum> keys, std::vector<Datum> values);

  bool truthy() const { return !null && type == DataType::kBoolean && i != 0; }
  // Numeric value as a double (BIGINT, DOUBLE, TIMESTAMP, INTERVAL).
  double AsDouble() const { return type == DataType::kDouble ? d : static_cast<double>(i); }
  // Text as Timestream prints it: 40.0, 2021-12-01 19:00:00.000000000, true.
  // Arrays [1, 2], rows {x=1, y=a}, timeseries [{time=..., value=1.0}, ...],
  // maps {a=1, b=2}.
  std::string ToString() const;
  // Bytes held beyond sizeof(Datum): the string, the nested values.
  int64_t HeapBytes() const;
  // The elements of an array, fields of a row, values of a timeseries or a
  // map (empty for NULL and scalars).
  const std::vector<Datum>& items() const;
};

// One row of values, in its schema's column order.
using Row = std::vector<Datum>;

// A map of `entries` (key, value) in key order; nullopt when a key is NULL
// (*problem = "null") or appears twice (*problem = that key's text).
std::optional<Datum> MakeMap(DataType type, std::vector<std::pair<Datum, Datum>> entries,
                             std::string* problem);

bool IsNumeric(DataType t);

// Total order used for ORDER BY, GROUP BY keys and DISTINCT: NULLs compare
// equal to each other; numbers compare across BIGINT and DOUBLE, a NaN above
// every number (DoublesOrder); arrays, rows and timeseries element by element.
int Compare(const Datum& a, const Datum& b);
// Doubles as SQL sorts them (ORDER BY, max and min, array_sort, greatest): a NaN above
// every number and +infinity, NaNs equal to each other, -0 equal to 0, as Presto and
// Trino sort them. The comparison operators (=, <) leave a NaN unordered instead.
inline int DoublesOrder(double x, double y) {
  if (x < y) return -1;
  if (x > y) return 1;
  const bool x_nan = std::isnan(x), y_nan = std::isnan(y);
  return x_nan == y_nan ? 0 : (x_nan ? 1 : -1);
}
// DoublesOrder(x, y) < 0, for sorts and scans that want a strict weak order.
inline bool DoubleSortsBefore(double x, double y) {
  return x < y || (std::isnan(y) && !std::isnan(x));
}
// A DOUBLE NaN (not NULL).
inline bool IsNaN(const Datum& d) {
  return !d.null && d.type == DataType::kDouble && std::isnan(d.d);
}
// True if `a` or `b` is a DOUBLE NaN: SQL's comparisons (=, <>, <, BETWEEN, IN, CASE x WHEN,
// nullif, a join's keys) then do not hold (<> does), as in Presto and IEEE 754, though
// Compare sorts a NaN above every number and calls two NaNs equal.
inline bool Unordered(const Datum& a, const Datum& b) { return IsNaN(a) || IsNaN(b); }
// SQL's `a = b` of two values that are not NULL: Compare's equality, a NaN equal to nothing.
inline bool SqlEquals(const Datum& a, const Datum& b) {
  return !Unordered(a, b) && Compare(a, b) == 0;
}
// Appends a byte form such that equal datums (by Compare) encode equally.
void AppendKey(const Datum& d, std::string* out);
// AppendKey of a non-NULL VARCHAR `s`, and of a non-NULL number of `type`
// held as `i` (BIGINT, TIMESTAMP, ...) or `d` (DOUBLE): for callers that hold
// values unboxed (a Vector's cells) and must encode as a Datum would.
void AppendTextKey(std::string_view s, std::string* out);
void AppendNumberKey(DataType type, int64_t i, double d, std::string* out);

// "2021-12-01 19:00:00.000000000".
std::string FormatTimestamp(int64_t nanos);

inline constexpr int64_t kNanosPerDay = 86'400LL * 1'000'000'000;

// The day of a timestamp (days since the epoch, rounded down) and the
// timestamp of a day's midnight. Every DATE comes from the range of
// timestamps, so the midnight of one is always representable.
int64_t DateOfTimestamp(int64_t nanos);
inline int64_t MidnightOf(int64_t days) { return days * kNanosPerDay; }
// 'YYYY-MM-DD' as a DATE; nullopt for other text or a day outside the
// range of timestamps.
std::optional<Datum> ParseDate(std::string_view text);
// 'HH:MM[:SS[.fffffffff]]' as a TIME; nullopt otherwise.
std::optional<Datum> ParseTime(std::string_view text);

}  // namespace strata::query
