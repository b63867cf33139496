#include "common/value.h"

#include <ctime>

#include "common/clock.h"
#include "common/strings.h"

namespace strata {

std::string_view TypeName(ValueType type) {
  switch (type) {
    case ValueType::kDouble: return "DOUBLE";
    case ValueType::kBigint: return "BIGINT";
    case ValueType::kVarchar: return "VARCHAR";
    case ValueType::kBoolean: return "BOOLEAN";
    case ValueType::kTimestamp: return "TIMESTAMP";
  }
  return "UNKNOWN";
}

bool IsValidValueType(uint8_t raw) { return raw >= 1 && raw <= 5; }

bool Value::operator==(const Value& other) const {
  if (type != other.type) return false;
  switch (type) {
    case ValueType::kDouble: return real == other.real;
    case ValueType::kVarchar: return text == other.text;
    default: return number == other.number;
  }
}

std::string Value::DebugString() const {
  switch (type) {
    case ValueType::kDouble: return StrCat(real);
    case ValueType::kBigint: return StrCat(number);
    case ValueType::kVarchar: return StrCat("'", text, "'");
    case ValueType::kBoolean: return number != 0 ? "true" : "false";
    case ValueType::kTimestamp: return FormatIso8601Millis(number);
  }
  return "?";
}

std::string FormatIso8601Millis(int64_t nanos) {
  int64_t seconds = nanos / kNanosPerSecond;
  int64_t millis = (nanos % kNanosPerSecond) / kNanosPerMilli;
  if (millis < 0) {
    millis += 1000;
    seconds -= 1;
  }
  std::time_t t = static_cast<std::time_t>(seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(millis));
  return buf;
}

}  // namespace strata
