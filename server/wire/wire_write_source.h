// A WriteRecords request read straight from its wire bytes, as the writer's
// source: no protobuf message is built. Parsing a 100-record request into
// messages (an arena object per dimension, measure and value, a string per
// name, a UTF-8 check each) was ~40% of the handler's CPU per record
// (docs/benchmarks.md); here the request's fields are views of its bytes and
// each string is copied once, into the normalized record.
//
// The reader takes the encodings protobuf's serializers produce (fields in any
// order, repeated, interleaved; a sub-message given twice merged as protobuf
// merges it; unknown fields, a newer client's, skipped as protobuf ignores
// them). For anything else (common_attributes given twice, groups, field
// number 0, a padded tag, malformed bytes, a string that is not UTF-8) Decode
// says no and the caller parses the request with protobuf, so every request
// means exactly what protobuf makes of it (write_fuzz checks both readers
// against each other).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/types/span.h"
#include "storage/write/name_memo.h"
#include "storage/write/write_source.h"
#include "strata/v1/write.pb.h"

namespace strata {

// A MeasureValue as sent: the oneof's case and its value.
struct WireValue {
  v1::MeasureValue::ValueCase kind = v1::MeasureValue::VALUE_NOT_SET;
  double real = 0;
  int64_t number = 0;  // bigint, timestamp, boolean (0 or 1)
  std::string_view text;
};

struct WireDimension {
  std::string_view name;
  std::string_view value;
};

struct WireMeasure {
  std::string_view name;
  int32_t type = 0;  // a MeasureValueType's number, maybe one this server does not know
  WireValue value;
};

// A Record as sent. Enum fields keep the number sent, as proto3 does.
struct WireRecord {
  absl::Span<const WireDimension> dimensions;
  std::optional<std::string_view> measure_name;
  bool has_measure_value = false;
  WireValue measure_value;
  int32_t measure_value_type = 0;
  absl::Span<const WireMeasure> measure_values;
  std::optional<int64_t> time;
  int32_t time_unit = 0;
  std::optional<int64_t> version;
};

class WireWriteRequest {
 public:
  // Reads a serialized WriteRecordsRequest; false when the bytes are not one
  // or use an encoding left to protobuf (see above). The views point into
  // `bytes`, which must outlive this object. `max_records`: the most its door
  // takes (kMaxRecordsPerWrite, or kMaxRecordsPerBulkWrite for BulkWriteRecords).
  bool Decode(std::string_view bytes, int max_records = kMaxRecordsPerWrite);

  std::string_view database_name() const { return database_name_; }
  std::string_view table_name() const { return table_name_; }
  const WireRecord& common_attributes() const { return common_; }
  // At most max_records(): the ones past it are counted, not kept.
  const std::vector<WireRecord>& records() const { return records_; }
  size_t record_count() const { return records_.size() + records_past_limit_; }
  int max_records() const { return max_records_; }

 private:
  struct Ranges;  // where a record's dimensions and measures sit while decoding
  class Reader;

  std::string_view database_name_;
  std::string_view table_name_;
  WireRecord common_;
  std::vector<WireRecord> records_;
  size_t records_past_limit_ = 0;
  int max_records_ = kMaxRecordsPerWrite;
  std::vector<WireDimension> dimensions_;  // every record's, each record's contiguous
  std::vector<WireMeasure> measures_;
};

// A decoded request as the writer's source (storage/write/write_source.h), with
// ProtoWriteSource's meaning of every field.
class WireWriteSource final : public WriteSource {
 public:
  explicit WireWriteSource(const WireWriteRequest& request);
  std::string_view database_name() const override { return request_.database_name(); }
  std::string_view table_name() const override { return request_.table_name(); }
  int record_count() const override { return static_cast<int>(request_.record_count()); }
  absl::Status ValidateShape() const override;
  absl::Status NormalizeInto(int i, const PartitionKey& partition_key,
                             NormalizedRecord* out) override;

 private:
  const WireWriteRequest& request_;
  const std::optional<std::string> common_unreadable_;  // of common_attributes, found once
  NameMemo names_;  // the last record's
};

}  // namespace strata
