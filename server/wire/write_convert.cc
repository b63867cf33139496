#include "server/wire/write_convert.h"

#include "common/strings.h"
#include "common/utf8.h"
#include "storage/write/record_normalizer.h"

namespace strata {
namespace {

// A rejection reason is a sentence; names in it are already cut short.
constexpr size_t kMaxReasonBytes = 1024;

}  // namespace

namespace {

// The value viewed in the message.
std::optional<ValueView> ViewFromProto(const v1::MeasureValue& value) {
  switch (value.value_case()) {
    case v1::MeasureValue::kDoubleValue: return ValueView::Double(value.double_value());
    case v1::MeasureValue::kBigintValue: return ValueView::Bigint(value.bigint_value());
    case v1::MeasureValue::kVarcharValue: return ValueView::Varchar(value.varchar_value());
    case v1::MeasureValue::kBooleanValue: return ValueView::Boolean(value.boolean_value());
    case v1::MeasureValue::kTimestampValue: return ValueView::Timestamp(value.timestamp_value());
    case v1::MeasureValue::VALUE_NOT_SET: break;
  }
  return std::nullopt;
}

std::optional<Value> ValueFromProto(const v1::MeasureValue& value) {
  const std::optional<ValueView> view = ViewFromProto(value);
  if (!view) return std::nullopt;
  return Value{.type = view->type, .number = view->number, .real = view->real,
               .text = std::string(view->text)};
}

// The reason for refusing an enum value this server does not know (a newer
// client's, or garbage): proto3 keeps unknown values as plain numbers.
std::string UnknownEnum(std::string_view field, int value, std::string_view known) {
  return StrCat(field, " ", value, " is not a value this server knows; use one of ", known);
}

constexpr std::string_view kKnownTypes = "DOUBLE, BIGINT, VARCHAR, BOOLEAN, TIMESTAMP, MULTI";
constexpr std::string_view kKnownUnits = "MILLISECONDS, SECONDS, MICROSECONDS, NANOSECONDS";

}  // namespace

std::optional<std::string> UnknownMeasureValueType(int type) {
  if (type == v1::MEASURE_VALUE_TYPE_UNSPECIFIED ||
      KindFromProto(static_cast<v1::MeasureValueType>(type))) {
    return std::nullopt;
  }
  return UnknownEnum("measure_value_type", type, kKnownTypes);
}

std::optional<std::string> UnknownMeasureTypeReason(std::string_view name, int type) {
  return UnknownEnum(StrCat("the type of measure \"", EchoInput(name), "\""), type, kKnownTypes);
}

std::optional<std::string> UnknownTimeUnit(int unit) {
  if (unit == v1::TIME_UNIT_UNSPECIFIED || UnitFromProto(static_cast<v1::TimeUnit>(unit))) {
    return std::nullopt;
  }
  return UnknownEnum("time_unit", unit, kKnownUnits);
}

namespace {

// The reason a record cannot be read (an enum value this server does not
// know), if any: the first in field order.
std::optional<std::string> UnreadableReason(const v1::Record& r) {
  if (auto reason = UnknownMeasureValueType(r.measure_value_type())) return reason;
  for (const v1::MultiMeasureValue& m : r.measure_values()) {
    if (auto reason = UnknownMeasureType(m.name(), m.type())) return reason;
  }
  return UnknownTimeUnit(r.time_unit());
}

InputRecord RecordFromProto(const v1::Record& r) {
  InputRecord out;
  out.unreadable = UnreadableReason(r);
  out.dimensions.reserve(r.dimensions_size());
  for (const v1::Dimension& d : r.dimensions()) out.dimensions.push_back({d.name(), d.value()});
  if (r.has_measure_name()) out.measure_name = r.measure_name();
  out.measure_value_type = KindFromProto(r.measure_value_type());
  if (r.has_measure_value()) out.measure_value = ValueFromProto(r.measure_value());
  out.measure_values.reserve(r.measure_values_size());
  for (const v1::MultiMeasureValue& m : r.measure_values()) {
    out.measure_values.push_back({m.name(), KindFromProto(m.type()), ValueFromProto(m.value())});
  }
  if (r.has_time()) out.time = r.time();
  out.time_unit = UnitFromProto(r.time_unit());
  if (r.has_version()) out.version = r.version();
  return out;
}

// Reads the wire message for the normalizer (storage/write/record_normalizer.h),
// with RecordFromProto's meaning of every field. Takes strings by move: the
// request lives on the call's arena, and its strings are not read again.
struct ProtoAccess {
  static std::optional<std::string> Unreadable(const v1::Record& r) {
    return UnreadableReason(r);
  }
  static const std::string* MeasureName(const v1::Record& r) {
    return r.has_measure_name() ? &r.measure_name() : nullptr;
  }
  static void TakeMeasureName(v1::Record& r, std::string* out) {
    *out = std::move(*r.mutable_measure_name());
  }
  static size_t DimensionCount(const v1::Record& r) { return r.dimensions_size(); }
  static std::string_view DimensionName(const v1::Record& r, size_t i) {
    return r.dimensions(static_cast<int>(i)).name();
  }
  static std::string_view DimensionValue(const v1::Record& r, size_t i) {
    return r.dimensions(static_cast<int>(i)).value();
  }
  static std::optional<MeasureKind> MeasureValueType(const v1::Record& r) {
    return KindFromProto(r.measure_value_type());
  }
  static bool HasMeasureValue(const v1::Record& r) {
    return r.has_measure_value() &&
           r.measure_value().value_case() != v1::MeasureValue::VALUE_NOT_SET;
  }
  static std::optional<ValueView> MeasureValue(const v1::Record& r) {
    return r.has_measure_value() ? ViewFromProto(r.measure_value()) : std::nullopt;
  }
  static size_t MeasureValueCount(const v1::Record& r) { return r.measure_values_size(); }
  static std::string_view MeasureValueName(const v1::Record& r, size_t i) {
    return r.measure_values(static_cast<int>(i)).name();
  }
  static std::optional<MeasureKind> MeasureValueKind(const v1::Record& r, size_t i) {
    return KindFromProto(r.measure_values(static_cast<int>(i)).type());
  }
  static std::optional<ValueView> MeasureValueValue(const v1::Record& r, size_t i) {
    return ViewFromProto(r.measure_values(static_cast<int>(i)).value());
  }
  static std::optional<int64_t> Time(const v1::Record& r) {
    return r.has_time() ? std::optional<int64_t>(r.time()) : std::nullopt;
  }
  static std::optional<TimeUnit> Unit(const v1::Record& r) { return UnitFromProto(r.time_unit()); }
  static std::optional<int64_t> Version(const v1::Record& r) {
    return r.has_version() ? std::optional<int64_t>(r.version()) : std::nullopt;
  }
};

}  // namespace

absl::Status ProtoWriteSource::ValidateShape() const {
  return normalize_internal::ValidateShape<ProtoAccess>(request_.common_attributes(),
                                                        request_.records(), max_records_);
}

ProtoWriteSource::ProtoWriteSource(v1::WriteRecordsRequest& request, int max_records)
    : request_(request),
      max_records_(max_records),
      common_unreadable_(UnreadableReason(request.common_attributes())) {}

absl::Status ProtoWriteSource::NormalizeInto(int i, const PartitionKey& partition_key,
                                             NormalizedRecord* out) {
  return normalize_internal::NormalizeInto<ProtoAccess>(
      request_.common_attributes(), *request_.mutable_records(i), common_unreadable_,
      partition_key, &names_, *out);
}

WriteRequest FromProto(const v1::WriteRecordsRequest& request) {
  WriteRequest out;
  out.database_name = request.database_name();
  out.table_name = request.table_name();
  out.common_attributes = RecordFromProto(request.common_attributes());
  out.records.reserve(request.records_size());
  for (const v1::Record& r : request.records()) out.records.push_back(RecordFromProto(r));
  return out;
}

void ToProto(const WriteResult& result, v1::WriteRecordsResponse* out) {
  auto* ingested = out->mutable_records_ingested();
  ingested->set_total(result.total());
  ingested->set_memory_store(result.memory_store);
  ingested->set_magnetic_store(result.magnetic_store);
  for (const RejectedRecord& r : result.rejected) {
    auto* rejected = out->add_rejected_records();
    rejected->set_record_index(r.record_index);
    rejected->set_reason(EchoInput(r.reason, kMaxReasonBytes));
    if (r.existing_version) rejected->set_existing_version(*r.existing_version);
  }
}

}  // namespace strata
