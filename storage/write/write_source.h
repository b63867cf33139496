// The records of one write, as its caller holds them: the writer reads them
// through this interface, on the caller's thread, before WriteAsync returns,
// so a source may keep views of its caller's buffers. gRPC writes are read
// straight from the wire message (server/wire/write_convert.h); the other paths
// build a WriteRequest.
#pragma once

#include <string_view>

#include "absl/status/statusor.h"
#include "storage/catalog/catalog_types.h"
#include "storage/rows/write_types.h"
#include "storage/write/name_memo.h"
#include "storage/write/record_validation.h"

namespace strata {

class WriteSource {
 public:
  virtual ~WriteSource() = default;
  virtual std::string_view database_name() const = 0;
  virtual std::string_view table_name() const = 0;
  virtual int record_count() const = 0;
  // ValidateRequestShape's checks (record_validation.h).
  virtual absl::Status ValidateShape() const = 0;
  // NormalizeRecord of record `i` (record_validation.h) into `out`, a record
  // as default-constructed (the writer's, normalized in place). Called at most
  // once per record: it may take the record's strings.
  virtual absl::Status NormalizeInto(int i, const PartitionKey& partition_key,
                                     NormalizedRecord* out) = 0;
  // NormalizeInto a record of its own.
  absl::StatusOr<NormalizedRecord> Normalize(int i, const PartitionKey& partition_key) {
    NormalizedRecord out;
    if (absl::Status s = NormalizeInto(i, partition_key, &out); !s.ok()) return s;
    return out;
  }
};

// A WriteRequest as a source; its records' strings are moved out.
class InputWriteSource final : public WriteSource {
 public:
  // `max_records`: the most its door takes (kMaxRecordsPerWrite, or
  // kMaxRecordsPerBulkWrite).
  explicit InputWriteSource(WriteRequest& request, int max_records = kMaxRecordsPerWrite)
      : request_(request), max_records_(max_records) {}
  std::string_view database_name() const override { return request_.database_name; }
  std::string_view table_name() const override { return request_.table_name; }
  int record_count() const override { return static_cast<int>(request_.records.size()); }
  absl::Status ValidateShape() const override {
    return ValidateRequestShape(request_, max_records_);
  }
  absl::Status NormalizeInto(int i, const PartitionKey& partition_key,
                             NormalizedRecord* out) override {
    return NormalizeRequestRecord(request_, i, partition_key, &names_, out);
  }

 private:
  WriteRequest& request_;
  const int max_records_;
  NameMemo names_;  // the last record's
};

}  // namespace strata
