// Prometheus remote read (`POST /api/v1/read`, docs/protocols.md): a
// snappy-compressed prometheus.ReadRequest answered with the samples of the
// table remote write fills (server/http/prometheus_write.h), as a SAMPLES
// response. Each query's time range and label matchers (=, !=, =~, !~, with
// Prometheus's meaning: an absent label is the empty string, regular
// expressions are anchored) become one SQL query run by the query runner,
// with the caller's grants, the values bound as parameters.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "server/auth/grants.h"
#include "server/runner/query_runner.h"

namespace strata {

struct RemoteReadOptions {
  std::string database;
  std::string table;
  std::string peer;  // for SHOW QUERIES and logs
  // Set when the server stops, which ends the read's queries; null: none.
  std::shared_ptr<std::atomic<bool>> cancel;
};

// The snappy-compressed prometheus.ReadResponse. INVALID_ARGUMENT for a
// body that is not a ReadRequest; the queries' errors as they come.
absl::StatusOr<std::string> ReadRemoteSamples(StatementRunner& queries,
                                              std::shared_ptr<const Principal> caller,
                                              const RemoteReadOptions& options,
                                              std::string_view compressed_body);

}  // namespace strata
