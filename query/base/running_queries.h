// The server's running queries, as SHOW QUERIES lists them and KILL QUERY
// cancels them. The query service implements it (it owns the registry of
// running queries); the engine only asks.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"

namespace strata::query {

// What a running query has read so far, published by its scans as they go
// (SHOW QUERIES shows it).
struct QueryProgress {
  std::atomic<int64_t> rows_scanned{0};
  std::atomic<int64_t> bytes_scanned{0};
};

struct RunningQuery {
  std::string id;
  std::string text;
  std::string token;  // the caller's token name ("" with authentication off)
  std::string peer;
  int64_t started_nanos = 0;  // since the Unix epoch
  int64_t elapsed_nanos = 0;
  int64_t rows_scanned = 0;   // so far
  int64_t bytes_scanned = 0;  // so far
};

class RunningQueries {
 public:
  virtual ~RunningQueries() = default;
  // What the caller may see: its own queries, or every one for an admin.
  virtual std::vector<RunningQuery> List() const = 0;
  // Cancels query `id` as CancelQuery does; NOT_FOUND when it is not
  // running (or not the caller's).
  virtual absl::Status Kill(std::string_view id) const = 0;
};

}  // namespace strata::query
