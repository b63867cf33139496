#include "common/value.h"


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

}  // namespace strata
