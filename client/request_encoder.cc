#include "client/request_encoder.h"

#include <algorithm>

namespace strata::cli {

void WireWriter::Grow(size_t bytes) {
  out_.resize(std::max(2 * out_.size(), used_ + bytes + 4096));
}

void WireWriter::Request(const v1::WriteRecordsRequest& r) {
  String(1, r.database_name());
  String(2, r.table_name());
  if (r.has_common_attributes()) {
    Nested(3, kRecordLengthGuess, [&] { Record(r.common_attributes()); });
  }
  for (const v1::Record& record : r.records()) {
    Nested(4, kRecordLengthGuess, [&] { Record(record); });
  }
}

void WireWriter::Value(const v1::MeasureValue& v) {
  switch (v.value_case()) {
    case v1::MeasureValue::kDoubleValue:
      Double(1, v.double_value());
      break;
    case v1::MeasureValue::kBigintValue:
      IntAlways(2, v.bigint_value());
      break;
    case v1::MeasureValue::kVarcharValue:
      StringAlways(3, v.varchar_value());
      break;
    case v1::MeasureValue::kBooleanValue:
      IntAlways(4, v.boolean_value() ? 1 : 0);
      break;
    case v1::MeasureValue::kTimestampValue:
      IntAlways(5, v.timestamp_value());
      break;
    case v1::MeasureValue::VALUE_NOT_SET:
      break;
  }
}

void WireWriter::Record(const v1::Record& r) {
  for (const v1::Dimension& d : r.dimensions()) {
    Nested(1, kSmallLengthGuess, [&] {
      String(1, d.name());
      String(2, d.value());
    });
  }
  if (r.has_measure_name()) StringAlways(2, r.measure_name());
  if (r.has_measure_value()) Nested(3, kSmallLengthGuess, [&] { Value(r.measure_value()); });
  Int(4, r.measure_value_type());
  for (const v1::MultiMeasureValue& m : r.measure_values()) {
    Nested(5, kSmallLengthGuess, [&] {
      String(1, m.name());
      Int(2, m.type());
      if (m.has_value()) Nested(3, kSmallLengthGuess, [&] { Value(m.value()); });
    });
  }
  if (r.has_time()) IntAlways(6, r.time());
  Int(7, r.time_unit());
  if (r.has_version()) IntAlways(8, r.version());
}

size_t EncodeWriteRecordsRequest(const v1::WriteRecordsRequest& request, std::string* buffer) {
  WireWriter writer(buffer, 0);
  writer.Request(request);
  return writer.used();
}

}  // namespace strata::cli
