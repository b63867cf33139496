// The records of one shard's part of a write, as a node forwards them to the shard's leader
// and as the leader logs them: already merged with the request's common attributes,
// validated and normalized (storage/write/record_validation.h), each with its index in the
// request the client sent, so rejections name the client's record.
//
//   count (varint) · count × [index (varint) · measure name (length-prefixed) ·
//     dimension count (varint) · dimensions (length-prefixed, DimensionList's bytes) ·
//     multi (1 byte) · time (zig-zag varint) · version (zig-zag varint) ·
//     measure count (varint) · count × [name (length-prefixed) · type (1 byte)] ·
//     values (length-prefixed, MeasureList's bytes)]
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "storage/rows/write_types.h"
#include "storage/write/write_source.h"

namespace strata::cluster {

struct IndexedRecord {
  int index = 0;
  NormalizedRecord record;
};

void EncodeRecord(int index, const NormalizedRecord& record, std::string* out);
// Appends the count and the records (EncodeRecord's output, back to back).
std::string EncodeRecords(int count, std::string_view encoded);
// DATA_LOSS for bytes that are not EncodeRecords' output.
absl::StatusOr<std::vector<IndexedRecord>> DecodeRecords(std::string_view bytes);

// Records already normalized, as a WriteSource (the writer normalizes nothing again).
class NormalizedWriteSource final : public WriteSource {
 public:
  NormalizedWriteSource(std::string_view database, std::string_view table,
                        std::vector<IndexedRecord>* records)
      : database_(database), table_(table), records_(*records) {}
  std::string_view database_name() const override { return database_; }
  std::string_view table_name() const override { return table_; }
  int record_count() const override { return static_cast<int>(records_.size()); }
  absl::Status ValidateShape() const override { return absl::OkStatus(); }
  absl::Status NormalizeInto(int i, const PartitionKey&, NormalizedRecord* out) override {
    *out = std::move(records_[i].record);
    return absl::OkStatus();
  }

 private:
  std::string_view database_;
  std::string_view table_;
  std::vector<IndexedRecord>& records_;
};

}  // namespace strata::cluster
