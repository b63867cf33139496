// Translation between WriteService messages and the engine's write types.
// Presence is kept (unset proto3 optional fields stay unset) so the engine
// can merge common attributes; everything else is validated by the engine.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "storage/rows/write_types.h"
#include "storage/write/name_memo.h"
#include "storage/write/write_source.h"
#include "strata/v1/write.pb.h"

namespace strata {

// The engine's measure kinds and time units are numbered as the wire's
// (kinds as they are, units one below), so the two conversions below are a
// range check: they run for every measure and record, and as switches GCC
// left them out of line (~4 % of the request path's CPU).
static_assert(static_cast<int>(MeasureKind::kDouble) == v1::MEASURE_VALUE_TYPE_DOUBLE &&
              static_cast<int>(MeasureKind::kBigint) == v1::MEASURE_VALUE_TYPE_BIGINT &&
              static_cast<int>(MeasureKind::kVarchar) == v1::MEASURE_VALUE_TYPE_VARCHAR &&
              static_cast<int>(MeasureKind::kBoolean) == v1::MEASURE_VALUE_TYPE_BOOLEAN &&
              static_cast<int>(MeasureKind::kTimestamp) == v1::MEASURE_VALUE_TYPE_TIMESTAMP &&
              static_cast<int>(MeasureKind::kMulti) == v1::MEASURE_VALUE_TYPE_MULTI);
static_assert(static_cast<int>(TimeUnit::kMilliseconds) + 1 == v1::TIME_UNIT_MILLISECONDS &&
              static_cast<int>(TimeUnit::kSeconds) + 1 == v1::TIME_UNIT_SECONDS &&
              static_cast<int>(TimeUnit::kMicroseconds) + 1 == v1::TIME_UNIT_MICROSECONDS &&
              static_cast<int>(TimeUnit::kNanoseconds) + 1 == v1::TIME_UNIT_NANOSECONDS);

// The engine's measure kind of a wire type; nullopt for UNSPECIFIED or
// unknown.
inline std::optional<MeasureKind> KindFromProto(v1::MeasureValueType type) {
  if (type < v1::MEASURE_VALUE_TYPE_DOUBLE || type > v1::MEASURE_VALUE_TYPE_MULTI) {
    return std::nullopt;
  }
  return static_cast<MeasureKind>(type);
}
// The engine's time unit of a wire unit; nullopt for UNSPECIFIED or unknown.
inline std::optional<TimeUnit> UnitFromProto(v1::TimeUnit unit) {
  if (unit < v1::TIME_UNIT_MILLISECONDS || unit > v1::TIME_UNIT_NANOSECONDS) return std::nullopt;
  return static_cast<TimeUnit>(unit - 1);
}

// Why a record cannot be read, by the number sent in one of its enum fields:
// a value this server does not know (a newer client's, or garbage: proto3
// keeps unknown values as numbers); nullopt for a known value or UNSPECIFIED.
// A record's reason is the first in field order: measure_value_type, each
// measure's type, time_unit.
std::optional<std::string> UnknownMeasureValueType(int type);
std::optional<std::string> UnknownMeasureTypeReason(std::string_view measure_name, int type);
inline std::optional<std::string> UnknownMeasureType(std::string_view measure_name, int type) {
  if (type == v1::MEASURE_VALUE_TYPE_UNSPECIFIED ||
      KindFromProto(static_cast<v1::MeasureValueType>(type))) {
    return std::nullopt;
  }
  return UnknownMeasureTypeReason(measure_name, type);
}
std::optional<std::string> UnknownTimeUnit(int unit);

// A WriteRecords message as the writer's source: its records are normalized
// straight from the message (their strings taken from it), one copy fewer
// than FromProto's WriteRequest. The message must outlive the source.
class ProtoWriteSource final : public WriteSource {
 public:
  // `max_records`: the most its door takes (WireWriteRequest::Decode).
  explicit ProtoWriteSource(v1::WriteRecordsRequest& request,
                            int max_records = kMaxRecordsPerWrite);
  std::string_view database_name() const override { return request_.database_name(); }
  std::string_view table_name() const override { return request_.table_name(); }
  int record_count() const override { return request_.records_size(); }
  absl::Status ValidateShape() const override;
  absl::Status NormalizeInto(int i, const PartitionKey& partition_key,
                             NormalizedRecord* out) override;

 private:
  v1::WriteRecordsRequest& request_;
  const int max_records_;
  const std::optional<std::string> common_unreadable_;  // of common_attributes, found once
  NameMemo names_;  // the last record's
};

// The same message as an engine WriteRequest (every field's presence kept):
// what ProtoWriteSource's records must normalize to (write_fuzz checks it).
WriteRequest FromProto(const v1::WriteRecordsRequest& request);
void ToProto(const WriteResult& result, v1::WriteRecordsResponse* out);

}  // namespace strata
