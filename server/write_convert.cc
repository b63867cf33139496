#include "server/write_convert.h"

namespace strata {
namespace {

std::optional<MeasureKind> KindFromProto(v1::MeasureValueType type) {
  switch (type) {
    case v1::MEASURE_VALUE_TYPE_DOUBLE: return MeasureKind::kDouble;
    case v1::MEASURE_VALUE_TYPE_BIGINT: return MeasureKind::kBigint;
    case v1::MEASURE_VALUE_TYPE_VARCHAR: return MeasureKind::kVarchar;
    case v1::MEASURE_VALUE_TYPE_BOOLEAN: return MeasureKind::kBoolean;
    case v1::MEASURE_VALUE_TYPE_TIMESTAMP: return MeasureKind::kTimestamp;
    case v1::MEASURE_VALUE_TYPE_MULTI: return MeasureKind::kMulti;
    default: return std::nullopt;
  }
}

std::optional<TimeUnit> UnitFromProto(v1::TimeUnit unit) {
  switch (unit) {
    case v1::TIME_UNIT_MILLISECONDS: return TimeUnit::kMilliseconds;
    case v1::TIME_UNIT_SECONDS: return TimeUnit::kSeconds;
    case v1::TIME_UNIT_MICROSECONDS: return TimeUnit::kMicroseconds;
    case v1::TIME_UNIT_NANOSECONDS: return TimeUnit::kNanoseconds;
    default: return std::nullopt;
  }
}

std::optional<Value> ValueFromProto(const v1::MeasureValue& value) {
  switch (value.value_case()) {
    case v1::MeasureValue::kDoubleValue: return Value::Double(value.double_value());
    case v1::MeasureValue::kBigintValue: return Value::Bigint(value.bigint_value());
    case v1::MeasureValue::kVarcharValue: return Value::Varchar(value.varchar_value());
    case v1::MeasureValue::kBooleanValue: return Value::Boolean(value.boolean_value());
    case v1::MeasureValue::kTimestampValue: return Value::Timestamp(value.timestamp_value());
    case v1::MeasureValue::VALUE_NOT_SET: break;
  }
  return std::nullopt;
}

InputRecord RecordFromProto(const v1::Record& r) {
  InputRecord out;
  out.dimensions.reserve(r.dimensions_size());
  for (const v1::Dimension& d : r.dimensions()) out.dimensions.push_back({d.name(), d.value()});
  if (r.has_measure_name()) out.measure_name = r.measure_name();
  out.measure_value_type = KindFromProto(r.measure_value_type());
  if (r.has_measure_value()) out.measure_value = ValueFromProto(r.measure_value());
  for (const v1::MultiMeasureValue& m : r.measure_values()) {
    out.measure_values.push_back(
        {m.name(), KindFromProto(m.type()), ValueFromProto(m.value())});
  }
  if (r.has_time()) out.time = r.time();
  out.time_unit = UnitFromProto(r.time_unit());
  if (r.has_version()) out.version = r.version();
  return out;
}

}  // namespace

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
    rejected->set_reason(r.reason);
    if (r.existing_version) rejected->set_existing_version(*r.existing_version);
  }
}

}  // namespace strata
