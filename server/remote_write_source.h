// Samples of a Prometheus remote-write request as the writer's source
// (storage/write_source.h): each sample is a scalar DOUBLE record of its
// series (`__name__` -> measure_name, the other labels -> dimensions), read
// in place from the parsed request. A batch holds samples of any series, so
// a request of 2,000 series with one sample each (what Prometheus sends)
// is 20 writes of 100, not 2,000 writes of one.
#pragma once

#include <cstdint>
#include <string_view>
#include <utility>

#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"
#include "storage/name_memo.h"
#include "storage/write_source.h"

namespace strata {

// A series' labels as a record's names: views of the request's strings.
struct SeriesLabels {
  std::string_view name;  // __name__
  // The other labels with a value (Prometheus sends no empty ones).
  absl::InlinedVector<std::pair<std::string_view, std::string_view>, 8> dimensions;
};

struct SampleRecord {
  const SeriesLabels* series = nullptr;  // nullptr: the (empty) common attributes
  double value = 0;
  int64_t time_ms = 0;
  int64_t version = 0;
};

class RemoteWriteSource final : public WriteSource {
 public:
  // `records` and their series must outlive the source (the writer reads
  // them before WriteAsync returns).
  RemoteWriteSource(std::string_view database, std::string_view table,
                    absl::Span<const SampleRecord> records)
      : database_(database), table_(table), records_(records) {}
  std::string_view database_name() const override { return database_; }
  std::string_view table_name() const override { return table_; }
  int record_count() const override { return static_cast<int>(records_.size()); }
  absl::Status ValidateShape() const override;
  absl::StatusOr<NormalizedRecord> Normalize(int i, const PartitionKey& partition_key) override;

 private:
  std::string_view database_;
  std::string_view table_;
  absl::Span<const SampleRecord> records_;
  NameMemo names_;  // the last record's
};

}  // namespace strata
