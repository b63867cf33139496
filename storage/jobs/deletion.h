// Deleting rows (SQL DELETE; docs/sql.md): removes given points of a table
// from every tier: the memory store's and late writes' rows by key, and the
// points out of their magnetic block (the block is re-encoded without them,
// or dropped when nothing is left). The query engine finds the points (a
// scan with the statement's WHERE); this removes them.
//
// Each bucket is one atomic WriteBatch under Writer::Exclusive, so a bucket
// is never half deleted, and a write or a tiering run of the same bucket
// lands either before (and is deleted when it matches) or after (and stays).
// A later write of a deleted identity is a new row, whatever its version.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "storage/catalog/catalog_types.h"
#include "storage/kv/store.h"
#include "storage/read/last_points.h"
#include "storage/write/writer.h"

namespace strata {

struct PointToDelete {
  uint64_t pk_hash = 0;
  uint64_t series = 0;
  int64_t time_nanos = 0;
};

// Deletes `points` of `table`; returns how many were found in some tier.
// `last_points` (the table's newest-row entries) are dropped with each
// bucket's delete, under the same lock.
absl::StatusOr<int64_t> DeletePoints(Store& store, MemoryHead& head, Writer& writer, const TableInfo& table,
                                     LastPoints& last_points, std::vector<PointToDelete> points);

}  // namespace strata
