// Reading a table's points: the scan interface the query engine builds on.
// Rows come in key order (bucket, partition, series, time) from the memory
// store (`hot`), the magnetic store's blocks (`cold`) and its late-write
// delta (`cold_delta`) merged into one stream; where several hold a key, the
// highest version wins, so results never depend on where a row lives or
// whether a background job has run. Rows older than the table's retention
// are never returned.
// Thread-safety: a scan reads a consistent RocksDB snapshot; any number may
// run at once, also concurrently with writes.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "storage/blocks/block.h"
#include "storage/catalog/catalog_types.h"
#include "storage/head/memory_head.h"
#include "storage/kv/store.h"
#include "storage/rows/write_types.h"

namespace strata {

// One series to read, with the partition it lives in.
struct SeriesTarget {
  uint64_t pk_hash = 0;
  uint64_t series = 0;
  // The hash that places the series on a cluster's shard (RoutingHash in
  // storage/read/table_state.h); scans do not use it.
  uint64_t routing = 0;
  bool operator<(const SeriesTarget& o) const {
    return pk_hash != o.pk_hash ? pk_hash < o.pk_hash : series < o.series;
  }
};

enum class BlockUse {
  kDeclined,  // emit the block's points row by row as usual
  kTaken,     // the reader took them; go on after the block
  kStop,      // the reader took them and the scan must stop (as emit returning false)
};

struct WholeBlock {
  uint64_t series = 0;
  // The block's header: its count, time range and column statistics.
  const format::BlockSummary* summary = nullptr;
  // Reads the block, its parts as stored (valid during the call only). A
  // reader that needs only the header does not call it, and the block is
  // then never read.
  std::function<absl::StatusOr<format::BlockView>()> bytes;
  // The scan's time range (after retention): points outside it are not
  // part of the result, and the reader must drop them.
  int64_t start_nanos = 0;
  int64_t end_nanos = 0;
};

// One row of the memory head as a reader sees it: its time, and its stored
// bytes (stored()) in one of the forms of storage/rows/ (a compact row of a
// shape, or an encoded row), which the reader decodes column by column.
using HeadRow = MemoryHead::Entry;

// The rest of one series' memory-store rows in one bucket, which no other
// tier shares (nothing to merge): a reader may take them in one call rather
// than a row at a time.
struct HeadSeries {
  uint64_t series = 0;
  // In time order, as the head stores them (storage/head/memory_head.h): a row's
  // bytes are its compact form of shape shapes[shape - 1], or its encoded
  // row when `shape` is 0. Valid during the call only.
  absl::Span<const HeadRow> rows;
  absl::Span<const RowShape* const> shapes;
  // The scan's time range (after retention): rows outside it are not part
  // of the result, and the reader must drop them.
  int64_t start_nanos = 0;
  int64_t end_nanos = 0;
};

struct ScanOptions {
  int64_t start_nanos = INT64_MIN;  // inclusive
  int64_t end_nanos = INT64_MAX;    // exclusive
  // Only these series, when set: each bucket is read by one seek per series
  // (partition pruning) instead of in full.
  const std::vector<SeriesTarget>* series = nullptr;
  // With `series`: read each bucket in full instead, passing over the other series' blocks
  // on their keys (a few in a row by a step each, a longer run by one seek to the next
  // series of `series`) and their memory-store rows by a seek per run. Cheaper when `series`
  // is a large share of the table's (a cluster fragment's shards): a block passed costs a
  // step, a series sought three seeks.
  bool series_dense = false;
  // Checked between rows; a scan that sees it set stops with CANCELLED.
  const std::atomic<bool>* cancelled = nullptr;
  // Only the newest live row in [start, end) of each series in `series`
  // (required then): the last-point fast path. Each series is probed from
  // the newest bucket down, a reverse seek per tier, until a row is found.
  bool last_per_series = false;
  // Optional: offered each magnetic block that alone holds its series'
  // points in its bucket (no memory-store row or late write shares them,
  // so no merge is needed) and overlaps the time range. The reader may take
  // the block's points itself, decoding only what it needs.
  std::function<BlockUse(const WholeBlock& block)> whole_block;
  // Optional: offered the rest of each series' memory-store rows in a
  // bucket that no late write or block shares (HeadSeries), as `whole_block`
  // is offered blocks. Only with `encoded_rows` (the rows are as stored).
  std::function<BlockUse(const HeadSeries& series)> whole_head_series;
  // Read the buckets newest first (rows inside a bucket keep key order) and
  // call `bucket_done` after each with the bucket's start time: every row
  // still unread is older. It returns false to end the scan there, for a
  // reader that already holds the newest rows it needs (ORDER BY time DESC
  // LIMIT n).
  bool newest_first = false;
  // Rows that only the memory store or only the late writes hold (nothing
  // to merge) may come undecoded: ScanRow::encoded then holds the stored row
  // and `measures` is empty. For readers that keep few of a row's measures
  // (they walk it with RowReader, storage/rows/row_codec.h).
  bool encoded_rows = false;
  std::function<bool(int64_t bucket_start_nanos)> bucket_done;
};

struct ScanRow {
  uint64_t series = 0;
  int64_t time_nanos = 0;
  int64_t version = 0;
  std::vector<Measure> measures;
  // With ScanOptions::encoded_rows, for some rows: the stored row, valid
  // during the emit call only; `measures` is empty then. Read it with
  // RowReader(encoded, shape): a row of the memory head may be stored
  // without its names (storage/rows/head_rows.h).
  std::string_view encoded;
  const RowShape* shape = nullptr;
};

struct ScanStats {
  int64_t rows_scanned = 0;
  int64_t bytes_scanned = 0;
  int64_t buckets_scanned = 0;  // buckets of the time range that were read
  int64_t buckets_in_range = 0;  // buckets the time range covers
  int64_t blocks_scanned = 0;    // magnetic blocks decoded
  int64_t blocks_pruned = 0;     // magnetic blocks skipped by their time range
  int64_t blocks_whole = 0;      // magnetic blocks handed to ScanOptions::whole_block
};

// Calls `emit` for each live row in [start, end); `emit` returns false to
// stop early. `now_nanos` decides what has expired. `stats`, when given,
// counts as the scan goes (`emit` may read it).
absl::Status ScanTable(const Store& store, const MemoryHead& head, const TableInfo& table, int64_t now_nanos,
                       const ScanOptions& options,
                       const std::function<bool(const ScanRow&)>& emit,
                       ScanStats* stats = nullptr);

}  // namespace strata
