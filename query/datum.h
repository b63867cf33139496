// Values as the query engine computes with them: SQL types with NULL.
// TIMESTAMP is nanoseconds since the Unix epoch (UTC); INTERVAL is a
// nanosecond duration.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace strata::query {

enum class DataType : uint8_t {
  kUnknown,  // the type of NULL
  kBoolean,
  kBigint,
  kDouble,
  kVarchar,
  kTimestamp,
  kInterval,
};

// "bigint", "double", ... as SQL spells them (DESCRIBE uses these).
std::string_view TypeName(DataType type);

struct Datum {
  DataType type = DataType::kUnknown;
  bool null = true;
  int64_t i = 0;   // BOOLEAN (0/1), BIGINT, TIMESTAMP, INTERVAL
  double d = 0;    // DOUBLE
  std::string s;   // VARCHAR

  static Datum Null(DataType type = DataType::kUnknown) { return {.type = type}; }
  static Datum Bool(bool v) { return {.type = DataType::kBoolean, .null = false, .i = v}; }
  static Datum Bigint(int64_t v) { return {.type = DataType::kBigint, .null = false, .i = v}; }
  static Datum Double(double v) { return {.type = DataType::kDouble, .null = false, .d = v}; }
  static Datum Varchar(std::string v) {
    return {.type = DataType::kVarchar, .null = false, .s = std::move(v)};
  }
  static Datum Timestamp(int64_t ns) {
    return {.type = DataType::kTimestamp, .null = false, .i = ns};
  }
  static Datum Interval(int64_t ns) { return {.type = DataType::kInterval, .null = false, .i = ns}; }

  bool truthy() const { return !null && type == DataType::kBoolean && i != 0; }
  // Numeric value as a double (BIGINT, DOUBLE, TIMESTAMP, INTERVAL).
  double AsDouble() const { return type == DataType::kDouble ? d : static_cast<double>(i); }
  // Text as Timestream prints it: 40.0, 2021-12-01 19:00:00.000000000, true.
  std::string ToString() const;
};

bool IsNumeric(DataType t);

// Total order used for ORDER BY, GROUP BY keys and DISTINCT: NULLs compare
// equal to each other; numbers compare across BIGINT and DOUBLE.
int Compare(const Datum& a, const Datum& b);
// Appends a byte form such that equal datums (by Compare) encode equally.
void AppendKey(const Datum& d, std::string* out);

// "2021-12-01 19:00:00.000000000".
std::string FormatTimestamp(int64_t nanos);

}  // namespace strata::query
