// DeleteSink: where a DELETE's points go when they are not this node's alone. A single node
// deletes them from its engine (query/statement_delete.cc); a cluster node hands them to its
// shard router (cluster/shard_router.h), which sends each shard's points through that
// shard's log, so every replica deletes them at the same place among the shard's writes.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "storage/catalog/catalog_types.h"
#include "storage/rows/write_types.h"

namespace strata::query {

// The points of one series a DELETE matched: the series by its key (nodes number their
// series apart) and the points' times.
struct SeriesDeletion {
  NormalizedRecord series;  // measure_name and dimensions
  std::vector<int64_t> times_nanos;
};

class DeleteSink {
 public:
  virtual ~DeleteSink() = default;
  // Deletes the points; returns how many were found. Blocks until they are deleted.
  virtual absl::StatusOr<int64_t> Delete(const TableInfo& table,
                                         std::vector<SeriesDeletion> deletions) = 0;
};

}  // namespace strata::query
