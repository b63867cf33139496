// The retention job: drops every bucket of a table that lies wholly before
// its retention window (memory + magnetic retention, never before the floor a
// retention change left), in every data family, as range deletes in one
// atomic batch; then deletes the SST files inside that range and compacts it
// so the disk space returns (DESIGN.md: time-first keys make expiry a range
// drop, not per-row tombstones). Rows of a partly expired bucket stay on disk
// until the whole bucket expires; the scan never returns them.
//
// Thread-safety: like the tiering job (storage/jobs/tiering.h).
#pragma once

#include <cstdint>

#include "absl/status/statusor.h"
#include "storage/catalog/catalog_types.h"
#include "storage/kv/store.h"
#include "storage/write/writer.h"

namespace strata {

struct RetentionReport {
  int64_t buckets_dropped = 0;
  int64_t rows_dropped = 0;
  int64_t duration_nanos = 0;
};

// `reclaimed_before` is the caller's memory of the bucket below which space
// was already given back (0 at start): the reclaim step runs only when rows
// were dropped now or the expired range grew past it, so a range is not
// recompacted on every run.
absl::StatusOr<RetentionReport> RunRetention(Store& store, MemoryHead& head, Writer& writer, const TableInfo& table,
                                             int64_t now_nanos, uint32_t* reclaimed_before);

}  // namespace strata
