#include "client/absl_compat.h"
#include "client/text_values.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "common/decimal_text.h"

namespace strata::cli {
namespace {

constexpr int64_t kHoursPerDay = 24;

// Splits "12h" into 12 and 'h'.
absl::StatusOr<std::pair<int64_t, char>> SplitDuration(std::string_view text) {
  std::string_view trimmed = Trim(text);
  auto error = [&] {
    return absl::InvalidArgumentError(absl::StrCat(
        "invalid duration \"", std::string(text),
        "\": use a whole number and a unit h (hours), d (days), w (weeks) or y (365 days), e.g. "
        "12h or 365d"));
  };
  if (trimmed.size() < 2) return error();
  char unit = static_cast<char>(std::tolower(static_cast<unsigned char>(trimmed.back())));
  int64_t amount = 0;
  std::string_view digits = trimmed.substr(0, trimmed.size() - 1);
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), amount);
  if (ec != std::errc() || end != digits.data() + digits.size() || amount <= 0) return error();
  if (unit != 'h' && unit != 'd' && unit != 'w' && unit != 'y') return error();
  return std::make_pair(amount, unit);
}

int64_t HoursPerUnit(char unit) {
  switch (unit) {
    case 'h':
      return 1;
    case 'd':
      return kHoursPerDay;
    case 'w':
      return 7 * kHoursPerDay;
    default:
      return 365 * kHoursPerDay;
  }
}

bool IsInteger(std::string_view text) {
  int64_t ignored;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), ignored);
  return ec == std::errc() && end == text.data() + text.size();
}

}  // namespace

absl::StatusOr<int64_t> ParseDurationHours(std::string_view text) {
  auto parts = SplitDuration(text);
  if (!parts.ok()) return parts.status();
  return parts->first * HoursPerUnit(parts->second);
}

absl::StatusOr<int64_t> ParseDurationDays(std::string_view text) {
  auto hours = ParseDurationHours(text);
  if (!hours.ok()) return hours.status();
  if (*hours % kHoursPerDay != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "magnetic retention \"", std::string(text), "\" is not a whole number of days; use e.g. 7d"));
  }
  return *hours / kHoursPerDay;
}

absl::StatusOr<v1::TimeUnit> ParseTimeUnit(std::string_view text) {
  std::string unit = absl::AsciiStrToLower(ToAbsl(text));
  if (unit == "ms" || unit == "milliseconds") return v1::TIME_UNIT_MILLISECONDS;
  if (unit == "s" || unit == "seconds") return v1::TIME_UNIT_SECONDS;
  if (unit == "us" || unit == "microseconds") return v1::TIME_UNIT_MICROSECONDS;
  if (unit == "ns" || unit == "nanoseconds") return v1::TIME_UNIT_NANOSECONDS;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown time unit \"", std::string(text), "\": use s, ms, us or ns"));
}

absl::StatusOr<RecordTime> ParseRecordTime(std::string_view text, v1::TimeUnit integer_unit) {
  std::string_view trimmed = Trim(text);
  if (IsInteger(trimmed)) {
    RecordTime time{.unit = integer_unit};
    std::from_chars(trimmed.data(), trimmed.data() + trimmed.size(), time.value);
    return time;
  }
  // Offsets (%Ez takes Z as well) first, then the same shapes read as UTC.
  static constexpr const char* kFormats[] = {
      "%Y-%m-%d%ET%H:%M:%E*S%Ez", "%Y-%m-%d %H:%M:%E*S%Ez", "%Y-%m-%d%ET%H:%M:%E*S",
      "%Y-%m-%d %H:%M:%E*S",      "%Y-%m-%d%ET%H:%M%Ez",    "%Y-%m-%d%ET%H:%M",
      "%Y-%m-%d %H:%M",           "%Y-%m-%d"};
  std::string input(trimmed);
  for (const char* format : kFormats) {
    absl::Time parsed;
    if (absl::ParseTime(format, input, absl::UTCTimeZone(), &parsed, nullptr)) {
      return RecordTime{.value = absl::ToUnixNanos(parsed), .unit = v1::TIME_UNIT_NANOSECONDS};
    }
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "invalid time \"", input,
      "\": use an integer (in the time unit) or ISO 8601 such as 2024-05-01T12:00:00Z"));
}

absl::StatusOr<v1::MeasureValueType> ParseMeasureType(std::string_view text) {
  std::string type = absl::AsciiStrToLower(ToAbsl(text));
  if (type == "double") return v1::MEASURE_VALUE_TYPE_DOUBLE;
  if (type == "bigint") return v1::MEASURE_VALUE_TYPE_BIGINT;
  if (type == "varchar") return v1::MEASURE_VALUE_TYPE_VARCHAR;
  if (type == "boolean") return v1::MEASURE_VALUE_TYPE_BOOLEAN;
  if (type == "timestamp") return v1::MEASURE_VALUE_TYPE_TIMESTAMP;
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown measure type \"", std::string(text),
      "\": use double, bigint, varchar, boolean or timestamp"));
}

std::string MeasureTypeName(v1::MeasureValueType type) {
  switch (type) {
    case v1::MEASURE_VALUE_TYPE_DOUBLE:
      return "double";
    case v1::MEASURE_VALUE_TYPE_BIGINT:
      return "bigint";
    case v1::MEASURE_VALUE_TYPE_VARCHAR:
      return "varchar";
    case v1::MEASURE_VALUE_TYPE_BOOLEAN:
      return "boolean";
    case v1::MEASURE_VALUE_TYPE_TIMESTAMP:
      return "timestamp";
    case v1::MEASURE_VALUE_TYPE_MULTI:
      return "multi";
    default:
      return "unspecified";
  }
}

namespace {

// A finite double: std::from_chars (exact, and the fast path the importers
// take per cell), else absl's reader for the forms it also accepts ("+1").
bool ParseFiniteDouble(std::string_view text, double* out) {
  if (std::optional<double> simple = SimpleDecimal(text)) {
    *out = *simple;
    return true;
  }
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  if (ec == std::errc() && end == text.data() + text.size()) return std::isfinite(*out);
  return absl::SimpleAtod(ToAbsl(text), out) && std::isfinite(*out);
}

// true/false (any case) for inference; also t/f/1/0 when the type is given.
std::optional<bool> ParseBoolean(std::string_view text, bool short_forms) {
  if (absl::EqualsIgnoreCase(ToAbsl(text), "true")) return true;
  if (absl::EqualsIgnoreCase(ToAbsl(text), "false")) return false;
  if (short_forms) {
    if (text == "t" || text == "T" || text == "1") return true;
    if (text == "f" || text == "F" || text == "0") return false;
  }
  return std::nullopt;
}

}  // namespace

absl::Status ParseMeasureValueInto(std::string_view text, std::optional<v1::MeasureValueType> type,
                                   v1::MeasureValue* value) {
  const std::string_view trimmed = Trim(text);
  auto bad = [&](const char* type_name) {
    return absl::InvalidArgumentError(absl::StrCat("\"", std::string(text), "\" is not a valid ",
                                                   type_name));
  };
  double number;
  if (!type) {
    if (ParseFiniteDouble(trimmed, &number)) {
      value->set_double_value(number);
      return absl::OkStatus();
    }
    type = ParseBoolean(trimmed, /*short_forms=*/false) ? v1::MEASURE_VALUE_TYPE_BOOLEAN
                                                         : v1::MEASURE_VALUE_TYPE_VARCHAR;
  }
  switch (*type) {
    case v1::MEASURE_VALUE_TYPE_DOUBLE:
      if (!ParseFiniteDouble(trimmed, &number)) return bad("finite double");
      value->set_double_value(number);
      return absl::OkStatus();
    case v1::MEASURE_VALUE_TYPE_BIGINT:
    case v1::MEASURE_VALUE_TYPE_TIMESTAMP: {
      int64_t i = 0;
      auto [end, ec] = std::from_chars(trimmed.data(), trimmed.data() + trimmed.size(), i);
      if (ec != std::errc() || end != trimmed.data() + trimmed.size()) {
        return bad(*type == v1::MEASURE_VALUE_TYPE_BIGINT
                       ? "bigint"
                       : "timestamp (an integer in the record's time unit)");
      }
      if (*type == v1::MEASURE_VALUE_TYPE_BIGINT) {
        value->set_bigint_value(i);
      } else {
        value->set_timestamp_value(i);
      }
      return absl::OkStatus();
    }
    case v1::MEASURE_VALUE_TYPE_BOOLEAN: {
      std::optional<bool> b = ParseBoolean(trimmed, /*short_forms=*/true);
      if (!b) return bad("boolean (true or false)");
      value->set_boolean_value(*b);
      return absl::OkStatus();
    }
    case v1::MEASURE_VALUE_TYPE_VARCHAR:
      // Varchar keeps the text exactly, spaces included.
      value->set_varchar_value(text.data(), text.size());
      return absl::OkStatus();
    default:
      return absl::InvalidArgumentError("a single value cannot have type multi");
  }
}

absl::StatusOr<v1::MeasureValue> ParseMeasureValue(std::string_view text,
                                                   std::optional<v1::MeasureValueType> type) {
  v1::MeasureValue value;
  if (absl::Status parsed = ParseMeasureValueInto(text, type, &value); !parsed.ok()) return parsed;
  return value;
}

v1::MeasureValueType TypeOf(const v1::MeasureValue& value) {
  switch (value.value_case()) {
    case v1::MeasureValue::kDoubleValue:
      return v1::MEASURE_VALUE_TYPE_DOUBLE;
    case v1::MeasureValue::kBigintValue:
      return v1::MEASURE_VALUE_TYPE_BIGINT;
    case v1::MeasureValue::kVarcharValue:
      return v1::MEASURE_VALUE_TYPE_VARCHAR;
    case v1::MeasureValue::kBooleanValue:
      return v1::MEASURE_VALUE_TYPE_BOOLEAN;
    case v1::MeasureValue::kTimestampValue:
      return v1::MEASURE_VALUE_TYPE_TIMESTAMP;
    default:
      return v1::MEASURE_VALUE_TYPE_UNSPECIFIED;
  }
}

}  // namespace strata::cli
