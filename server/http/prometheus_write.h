// Prometheus remote write (`POST /api/v1/write`, docs/protocols.md): a
// snappy-compressed prometheus.WriteRequest into one table through the one
// write path. Each series becomes scalar DOUBLE records: the `__name__`
// label is the measure_name, the other labels (empty ones are absent in
// Prometheus) are dimensions, a sample's millisecond timestamp the time.
// The version is the arrival time, so Prometheus's retries of a batch are
// no-ops. NaN samples (Prometheus's staleness markers) and infinities are not
// stored: Strata's DOUBLE holds finite values; they are counted as dropped.
// Samples go to the writer 100 at a time whatever their series (Prometheus
// sends one sample of each of up to 2,000 series), four batches at once.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "server/auth/grants.h"
#include "server/runner/ingest.h"

namespace strata {

struct RemoteWriteOptions {
  std::string database;
  std::string table;
  bool auto_create_tables = true;
};

struct RemoteWriteSummary {
  int64_t samples = 0;
  int64_t written = 0;
  int64_t dropped_non_finite = 0;
  int64_t rejected = 0;
  std::vector<std::string> errors;  // the first rejections
};

// INVALID_ARGUMENT when the body is not snappy or not a WriteRequest; the
// table's errors (permission, not found) and the store's as they come.
absl::StatusOr<RemoteWriteSummary> WriteRemoteSamples(Ingest& ingest, const Principal& caller,
                                                      const RemoteWriteOptions& options,
                                                      std::string_view compressed_body);

}  // namespace strata
