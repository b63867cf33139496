// Turns the text a user types or a file holds into record fields: retention
// durations ("12h", "365d"), times (integers in a unit, or ISO 8601), and
// measure values with an explicit or inferred type. Shared by `strata write`
// and the importers, so that both read the same text the same way.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "strata/v1/records.pb.h"

namespace strata::cli {

// "12h", "2d", "1w", "1y" (365 days) as whole hours. Rejects other units,
// fractions, zero and negatives.
absl::StatusOr<int64_t> ParseDurationHours(std::string_view text);
// As above, in whole days (so "12h" is an error: not a whole number of days).
absl::StatusOr<int64_t> ParseDurationDays(std::string_view text);

// "ms" | "s" | "us" | "ns" (also the long names) -> TimeUnit.
absl::StatusOr<v1::TimeUnit> ParseTimeUnit(std::string_view text);

struct RecordTime {
  int64_t value = 0;
  v1::TimeUnit unit = v1::TIME_UNIT_MILLISECONDS;
};

// An integer counts `integer_unit`s since the epoch; anything else must be an
// ISO 8601 / RFC 3339 time ("2024-05-01T12:00:00Z", "2024-05-01 12:00:00.5",
// a date alone), UTC unless it carries an offset, kept to the nanosecond.
absl::StatusOr<RecordTime> ParseRecordTime(std::string_view text, v1::TimeUnit integer_unit);

// "double" | "bigint" | "varchar" | "boolean" | "timestamp" (case-insensitive).
absl::StatusOr<v1::MeasureValueType> ParseMeasureType(std::string_view text);
std::string MeasureTypeName(v1::MeasureValueType type);

// Parses `text` as a value of `type`. With nullopt the type is inferred:
// a number is DOUBLE (also "7": a measure keeps one type, and metrics are
// mostly fractional; say bigint to get one), true/false BOOLEAN, the rest
// VARCHAR. The importers infer the same way.
absl::StatusOr<v1::MeasureValue> ParseMeasureValue(std::string_view text,
                                                   std::optional<v1::MeasureValueType> type);
// The same into `value` (the importers reuse one message per attribute).
absl::Status ParseMeasureValueInto(std::string_view text, std::optional<v1::MeasureValueType> type,
                                   v1::MeasureValue* value);
// The type of the field `value` has set.
v1::MeasureValueType TypeOf(const v1::MeasureValue& value);

}  // namespace strata::cli
