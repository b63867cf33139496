// The tiering job: converts memory-store buckets that have aged past the
// table's memory retention, are sealed (closed for a while, see
// TableInfo::BlocksBeforeNanos) or are quiet (no write for as long, open or
// not), into columnar blocks, and
// folds late writes (`cold_delta`) into those blocks (docs/storage.md,
// "Tiers and retention").
//
// A bucket's new blocks (merged with any block and delta rows already there,
// highest version winning) are written in batches as they are encoded; its
// commit is one atomic WriteBatch with the range deletes of its `cold_delta`
// keys and of its memory-head log entries up to the sequence the conversion
// read, after which the head keeps only the rows written later
// (MemoryHead::WriteThenKeepAfter). A row is in a block and in the head at
// once until the commit; equal keys of equal versions read as one. Killed at
// any point, a rerun reads what is left and merges it into the blocks again,
// so no row is lost or duplicated. A bucket is read and encoded from a
// snapshot while writes go on, and committed under Writer::Exclusive unless
// a late write or DELETE touched it since (then read again, at last under
// the lock), so a writer waits for one bucket's commit, not its conversion.
// A series is merged and encoded as soon as it is read, so memory holds one
// series' points plus up to 4 MB of encoded blocks.
//
// Thread-safety: one job per table at a time (the engine's maintenance runs
// tables one after another); concurrent with reads and writes.
#pragma once

#include <cstdint>

#include "absl/status/statusor.h"
#include "storage/catalog/catalog_types.h"
#include "storage/kv/store.h"
#include "storage/write/writer.h"

namespace strata {

struct TieringReport {
  int64_t buckets = 0;             // buckets converted or merged
  int64_t blocks_written = 0;
  int64_t rows_moved = 0;          // memory-store rows now in blocks
  int64_t delta_rows_merged = 0;   // late writes folded into blocks
  // Series with more than kMaxPointsPerBlock points in one bucket: their
  // bucket stays in the memory store.
  int64_t series_left_in_memory = 0;
  int64_t duration_nanos = 0;
};

// Converts every bucket of `table` that still has memory-head or `cold_delta` rows
// and ended before `table.BlocksBeforeNanos(now_nanos,
// writer.seal_after_nanos())`, or (sealing on) had no write for
// seal_after_nanos (Writer::LastWriteNanos). The writer's setting is the one
// used, and the writer is told of quiet buckets converted, so it checks
// records against every hour this may have converted.
absl::StatusOr<TieringReport> RunTiering(Store& store, MemoryHead& head, Writer& writer, const TableInfo& table,
                                         int64_t now_nanos);

// Converts one bucket now, open or not (the memory head is over its
// budget): read while writes go on, then at last under the writer's lock if
// writes keep touching it. Later writes to the bucket are checked against its
// blocks and merged into them by a later conversion.
absl::StatusOr<TieringReport> ConvertBucketNow(Store& store, MemoryHead& head, Writer& writer, uint32_t table_id,
                                               uint32_t bucket);

// Writes the `cold_header` copy of every block that lacks one: blocks
// written before that family existed. Runs once per data directory (a
// marker records that it finished; a run cut short is redone whole), before
// the server serves.
absl::Status BackfillBlockHeaders(Store& store);

}  // namespace strata
