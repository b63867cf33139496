// Typed scalar values: what a measure holds and what the query engine
// computes with. TIMESTAMP values are nanoseconds since the Unix epoch.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace strata {

enum class ValueType : uint8_t {
  kDouble = 1,
  kBigint = 2,
  kVarchar = 3,
  kBoolean = 4,
  kTimestamp = 5,
};

// "DOUBLE", "BIGINT", ... as in SQL and the API.
std::string_view TypeName(ValueType type);
bool IsValidValueType(uint8_t raw);

// A tagged scalar. Only the member matching `type` is meaningful:
// `number` for BIGINT, TIMESTAMP and BOOLEAN (0/1), `real` for DOUBLE,
// `text` for VARCHAR.
struct Value {
  ValueType type = ValueType::kDouble;
  int64_t number = 0;
  double real = 0;
  std::string text;

  static Value Double(double v) { return {.type = ValueType::kDouble, .real = v}; }
  static Value Bigint(int64_t v) { return {.type = ValueType::kBigint, .number = v}; }
  static Value Varchar(std::string v) { return {.type = ValueType::kVarchar, .text = std::move(v)}; }
  static Value Boolean(bool v) { return {.type = ValueType::kBoolean, .number = v ? 1 : 0}; }
  static Value Timestamp(int64_t nanos) { return {.type = ValueType::kTimestamp, .number = nanos}; }

  // Same type and same value.
  bool operator==(const Value& other) const;
};

// A Value whose text is viewed, not held: how the write path reads a value
// from a request and packs it into a row without a string per value.
struct ValueView {
  ValueType type = ValueType::kDouble;
  int64_t number = 0;
  double real = 0;
  std::string_view text;

  static ValueView Of(const Value& v) {
    return {.type = v.type, .number = v.number, .real = v.real, .text = v.text};
  }
  static ValueView Double(double v) { return {.type = ValueType::kDouble, .real = v}; }
  static ValueView Bigint(int64_t v) { return {.type = ValueType::kBigint, .number = v}; }
  static ValueView Varchar(std::string_view v) { return {.type = ValueType::kVarchar, .text = v}; }
  static ValueView Boolean(bool v) { return {.type = ValueType::kBoolean, .number = v ? 1 : 0}; }
  static ValueView Timestamp(int64_t v) { return {.type = ValueType::kTimestamp, .number = v}; }
};

}  // namespace strata
