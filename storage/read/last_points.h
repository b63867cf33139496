// The newest row of each series, kept next to the write path so last-point
// queries (the newest row per series: lastpoint, max_by(x, time) grouped by
// series) answer from memory instead of probing every tier of every series.
//
// An entry is filled when a last-point scan misses it, under
// Writer::Exclusive (no write group commits between reading the series'
// newest row and storing it), and from then on the writer's committer
// keeps it current after each durable batch: a written point at or after
// the entry's time replaces it (the writer writes a row only when it wins
// the version rules). DELETE drops every entry of the table (under the same
// lock, per bucket). Retention needs nothing: an entry older than the
// retention start means the series has no live row. Entries are not
// persisted: after a restart the server fills every table's in the
// background (Engine::FillLastPoints, from the maintenance thread), and a
// last-point query that comes first fills those it needs.
//
// Memory: one entry per series read by a last-point query, the size of its
// compact row (a TSBS row of 10 doubles: ~100 bytes, so 100,000 series take
// ~15 MB), and a shape per set of measure names.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "storage/catalog/catalog_types.h"
#include "storage/kv/store.h"
#include "storage/read/scan.h"

namespace strata {

class LastPoints {
 public:
  // Runs a step while no write group commits (the engine passes
  // Writer::Exclusive), so no write changes a series' rows underneath it.
  using RunExclusive = std::function<absl::Status(const std::function<absl::Status()>& step)>;

  struct Entry {
    int64_t time_nanos = INT64_MIN;  // INT64_MIN: the series has no live row
    int64_t version = 0;
    // As the memory head stores rows (storage/rows/head_rows.h): the compact
    // form, whose names and types are `shape`'s; with its names (row_codec.h)
    // only when `shape` is null (a row without measures).
    std::string row;
    std::shared_ptr<const RowShape> shape;
  };

  // Whether any entry exists: the writer records its points for them only
  // then. Changes only under Writer::Exclusive's lock (Fill), which the
  // committer holds while it commits.
  bool active() const { return active_.load(std::memory_order_relaxed); }
  // Committer-only, once the batch holding the point is durable.
  void Written(uint64_t series, int64_t time_nanos, int64_t version, std::string_view row,
               std::shared_ptr<const RowShape> shape);
  // Drops every entry (rows were deleted).
  void Clear();
  size_t size() const;

  // Fills the entries of those of `series` (in key order) that have none,
  // a chunk at a time under `exclusive`; stops between chunks once `stop`
  // (when given) says so.
  absl::Status FillMissing(const Store& store, const MemoryHead& head, const RunExclusive& exclusive,
                           const TableInfo& table,
                           int64_t now_nanos, const std::vector<SeriesTarget>& series,
                           const std::function<bool()>& stop = nullptr);

  // A last-point scan (ScanOptions::last_per_series) answered from the
  // entries, filling the missing ones first. Rows come in the order of
  // `options.series`, as the scan without entries gives them.
  absl::Status Scan(const Store& store, const MemoryHead& head, const RunExclusive& exclusive, const TableInfo& table,
                    int64_t now_nanos,
                    const ScanOptions& options, const std::function<bool(const ScanRow&)>& emit,
                    ScanStats* stats);

 private:
  // Reads the newest live row of each of `series` and stores it. Called
  // under Writer::Exclusive.
  absl::Status Fill(const Store& store, const MemoryHead& head, const TableInfo& table, int64_t now_nanos,
                    const std::vector<SeriesTarget>& series);

  mutable absl::Mutex mu_;
  absl::flat_hash_map<uint64_t, Entry> entries_ ABSL_GUARDED_BY(mu_);
  std::atomic<bool> active_{false};
};

}  // namespace strata
