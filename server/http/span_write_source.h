// Records a caller holds in a span, as the writer's source
// (storage/write/write_source.h), each read in place through `Access` (the
// normalizer's reader of a record type, storage/write/record_normalizer.h). There
// are no common attributes: a default-constructed record must read as none.
// The HTTP ingest paths' sources (line_write_source.h,
// remote_write_source.h): no InputRecord is built per line or sample.
#pragma once

#include <optional>
#include <string_view>
#include <type_traits>

#include "absl/types/span.h"
#include "storage/write/name_memo.h"
#include "storage/write/record_normalizer.h"
#include "storage/write/write_source.h"

namespace strata {

// The HTTP ingest paths cut a body into writes of this many records: a
// write's fixed cost (its group commit's wake-ups and sync) was about half of
// the server's CPU per row at 100 (Timestream's WriteRecords limit), and a few
// writes of a body still commit while the next lines are parsed.
inline constexpr size_t kRecordsPerBodyWrite = 1000;
static_assert(kRecordsPerBodyWrite <= static_cast<size_t>(kMaxRecordsPerBulkWrite));
// Writes of one body in flight at once.
inline constexpr size_t kWritesInFlight = 4;
// Rejections a body's answer names; the rest are counted.
inline constexpr size_t kMaxReportedErrors = 10;

template <typename Access>
class SpanWriteSource final : public WriteSource {
 public:
  using Record = std::remove_const_t<typename Access::R>;

  // `records` must outlive the source (the writer reads them before
  // WriteAsync returns).
  SpanWriteSource(std::string_view database, std::string_view table,
                  absl::Span<const Record> records)
      : database_(database), table_(table), records_(records) {}
  std::string_view database_name() const override { return database_; }
  std::string_view table_name() const override { return table_; }
  int record_count() const override { return static_cast<int>(records_.size()); }
  absl::Status ValidateShape() const override {
    return normalize_internal::ValidateShape<Access>(kNoCommonAttributes, records_,
                                                     static_cast<int>(kRecordsPerBodyWrite));
  }
  absl::Status NormalizeInto(int i, const PartitionKey& partition_key,
                             NormalizedRecord* out) override {
    return normalize_internal::NormalizeInto<Access, typename Access::R>(
        kNoCommonAttributes, records_[i], std::nullopt, partition_key, &names_, *out);
  }

 private:
  static constexpr Record kNoCommonAttributes{};
  std::string_view database_;
  std::string_view table_;
  absl::Span<const Record> records_;
  NameMemo names_;  // the last record's
};

}  // namespace strata
