// A batch of parsed line-protocol points as the writer's source
// (storage/write_source.h): each point is one MULTI record (measurement ->
// measure_name, tags -> dimensions, fields -> attributes typed by their
// values), read in place. Through InputRecords, the HTTP /write path built
// and freed a record, its vectors and strings per line (~15 % of its CPU).
#pragma once

#include <cstdint>
#include <string_view>

#include "absl/types/span.h"
#include "common/line_protocol.h"
#include "storage/name_memo.h"
#include "storage/write_source.h"

namespace strata {

// A point with what the line-protocol writer decides for it.
struct LineRecord {
  const LinePoint* point = nullptr;  // nullptr: the (empty) common attributes
  int64_t time_nanos = 0;
  int64_t version = 0;
};

class LineWriteSource final : public WriteSource {
 public:
  // `records` must outlive the source (the writer reads them before
  // WriteAsync returns).
  LineWriteSource(std::string_view database, std::string_view table,
                  absl::Span<const LineRecord> records)
      : database_(database), table_(table), records_(records) {}
  std::string_view database_name() const override { return database_; }
  std::string_view table_name() const override { return table_; }
  int record_count() const override { return static_cast<int>(records_.size()); }
  absl::Status ValidateShape() const override;
  absl::StatusOr<NormalizedRecord> Normalize(int i, const PartitionKey& partition_key) override;

 private:
  std::string_view database_;
  std::string_view table_;
  absl::Span<const LineRecord> records_;
  NameMemo names_;  // the last record's
};

}  // namespace strata
