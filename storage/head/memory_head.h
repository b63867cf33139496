// MemoryHead: the memory store's rows, held in memory (docs/storage.md,
// "Memory head").
//
// Each (table, bucket) holds its series ordered by (partition hash, series),
// and each series its rows ordered by time; a row is the encoded row of
// storage/rows/row_codec.h under its point key, stored without its measure names
// where the bucket has their shape (storage/rows/head_rows.h). Durability is not the head's: the
// write path logs every change to the `head_log` family first (one entry
// per table, bucket and write group, storage/head/head_log.h), and Store::Open
// replays that log into a new head. Writing a row is a copy into the
// bucket's arena and an append to its series, instead of a RocksDB memtable
// insert, flush and compaction per row.
//
// Thread-safety: one writer at a time (the Writer's committer, or a job
// inside Writer::Exclusive) changes the head; any number of readers read it
// at once. A reader captures a table's buckets (Capture) and reads them
// through an iterator that copies each series' row index under that
// series' lock as it reaches it, so a reader never blocks the writer for
// longer than one copy, and sees each series as of the moment it reached
// it. Row bytes are never moved or freed while a reader holds their bucket.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/base/attributes.h"
#include "absl/base/thread_annotations.h"
#include "absl/container/btree_map.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/synchronization/mutex.h"
#include "absl/types/span.h"
#include "rocksdb/db.h"
#include "rocksdb/iterator.h"
#include "storage/kv/keys.h"
#include "storage/rows/head_rows.h"

namespace strata {

class MemoryHead {
 public:
  // One row of a series: its time, the head_log entry that wrote it, and
  // its bytes in the bucket's arena: the encoded row, or with `shape` > 0
  // its compact form (storage/rows/head_rows.h) of the bucket's shape `shape`.
  struct Entry {
    int64_t time_nanos;
    uint64_t sequence;
    const char* data;
    uint32_t size;
    uint32_t shape = 0;  // in the padding: costs no memory
    std::string_view stored() const { return {data, size}; }
  };
  struct Series {
    mutable absl::Mutex mu;
    std::vector<Entry> entries ABSL_GUARDED_BY(mu);  // by time, one per time
    // Changes other than an append at the end (a row replaced, inserted
    // before the newest, erased): Regroup copies a series outside the
    // writer's lock and then takes only the rows appended since, unless
    // this moved. Changed by the writer only.
    uint64_t edits ABSL_GUARDED_BY(mu) = 0;
    uint32_t last_shape = 0;  // writer-only: the shape of its last row, tried first
  };
  using SeriesId = std::pair<uint64_t, uint64_t>;  // (partition hash, series): key order
  class Bucket {
   public:
    Bucket() = default;
    Bucket(const Bucket&) = delete;
    Bucket& operator=(const Bucket&) = delete;

    mutable absl::Mutex mu;
    // Series are never removed from a bucket (a deleted row leaves its
    // series, possibly empty), so a reader's Series pointer stays valid.
    absl::btree_map<SeriesId, std::unique_ptr<Series>> series ABSL_GUARDED_BY(mu);
    // `series` in order as a list readers share: made again only once
    // series were added since (a reader copying the list per bucket made a
    // query of one series in a table of 100,000 copy 2.4 MB an hour).
    using SeriesList = std::vector<std::pair<SeriesId, const Series*>>;
    std::shared_ptr<const SeriesList> SharedSeriesList() const ABSL_SHARED_LOCKS_REQUIRED(mu);

    // Shapes of the rows stored compactly: shape k is shapes[k - 1]. Only
    // appended, and immutable, so a reader may keep the pointers it copied.
    // (Shared with the bucket a conversion leaves behind: WriteThenKeepAfter.)
    std::vector<std::shared_ptr<const RowShape>> shapes ABSL_GUARDED_BY(mu);

    // The series `id`, or null (writer-only: without the lock, through the
    // writer's own index).
    Series* WriterFind(const SeriesId& id) const {
      auto it = writer_series_.find(id);
      return it == writer_series_.end() ? nullptr : it->second;
    }
    // Adds series `id` (writer-only), or gives the one the bucket has.
    Series* AddSeries(const SeriesId& id, std::unique_ptr<Series> fresh);
    // Copies `bytes` into the arena (writer-only).
    Entry CopyRow(int64_t time_nanos, uint64_t sequence, std::string_view bytes);
    // `size` bytes of the arena to fill (writer-only).
    char* Allocate(size_t size);
    int64_t bytes() const { return bytes_.load(std::memory_order_relaxed); }
    int64_t rows() const { return rows_.load(std::memory_order_relaxed); }
    // Rows the bucket was made with a series at a time (FinishRegroup); the
    // rest were written since, each among other series' rows.
    int64_t rows_in_series_order() const { return rows_in_series_order_; }

   private:
    friend class MemoryHead;
    // Copies `entry`'s row into the arena and appends it to `to`, a series
    // no reader sees yet (writer-only).
    void AppendCopy(Series* to, const Entry& entry);
    int64_t rows_in_series_order_ = 0;  // set before the bucket is shared
    // Writer-only: the series by id, as `series` holds them. A hash lookup
    // without the lock for each change, where the btree's search under the
    // reader lock was ~250 instructions a row; the btree stays the readers'
    // ordered index.
    absl::flat_hash_map<SeriesId, Series*> writer_series_;
    // Series added (under `mu`, exclusive); and the list as of a count.
    uint64_t series_added_ ABSL_GUARDED_BY(mu) = 0;
    mutable absl::Mutex list_mu_ ABSL_ACQUIRED_AFTER(mu);
    mutable std::shared_ptr<const SeriesList> list_ ABSL_GUARDED_BY(list_mu_);
    mutable uint64_t list_added_ ABSL_GUARDED_BY(list_mu_) = 0;
    // Writer-only: signature -> shape, and the shapes (as `shapes`, without its lock).
    absl::flat_hash_map<std::string, uint32_t> shape_ids_;
    std::vector<const RowShape*> writer_shapes_;
    std::vector<std::unique_ptr<char[]>> blocks_;  // writer-only
    size_t block_size_ = 0;  // of the last block (without a row larger than it)
    size_t block_left_ = 0;
    char* block_next_ = nullptr;
    std::atomic<int64_t> bytes_{0};
    std::atomic<int64_t> rows_{0};
  };

  // One change: a row put under its point key, or (row absent) the point's
  // row erased; `sequence` is its head_log entry's. A row is encoded whole
  // (storage/rows/row_codec.h), or compact when `shape` is set: its version and
  // values, with the measures' names and types in `shape`
  // (RowShape::Signature). The changes of one Apply pass the same bytes
  // (the same address) for every row of a shape: it is looked up once.
  struct Change {
    keys::PointKey key;
    std::optional<std::string_view> row;
    uint64_t sequence = 0;
    std::string_view shape;
  };

  // --- the writer ---

  // Applies `changes` in order (a later change to a key wins); rows are
  // copied. Returns the bytes the head holds now.
  int64_t Apply(const std::vector<Change>& changes);
  // A copy of the row stored at `key` (its bucket may go once the lock is
  // released).
  std::optional<std::string> Find(const keys::PointKey& key) const;
  // The newest time of the series in the bucket; INT64_MIN if it has none.
  int64_t NewestTime(uint32_t table_id, uint32_t bucket, uint64_t pk_hash,
                     uint64_t series) const;
  // Removes buckets [from, to) of the table (converted to blocks, expired or
  // dropped with the table). Readers that captured them keep them.
  void DropBuckets(uint32_t table_id, uint32_t from, uint32_t to);

  // --- readers ---

  // What a reader captured of one table: its buckets in order.
  struct View {
    uint32_t table_id = 0;
    std::vector<std::pair<uint32_t, std::shared_ptr<const Bucket>>> buckets;
  };
  View Capture(uint32_t table_id) const;
  // Captures the table's buckets and takes a RocksDB snapshot at one moment
  // with respect to WriteThenDrop: a reader then sees a bucket's rows in
  // exactly one of the head (before it was converted) and the blocks.
  View CaptureWithSnapshot(uint32_t table_id, rocksdb::DB* db,
                           const rocksdb::Snapshot** snapshot) const;
  // Writes `batch` and, once it is durable, drops buckets [from, to) of the
  // table, as one step for CaptureWithSnapshot.
  rocksdb::Status WriteThenDrop(rocksdb::DB* db, const rocksdb::WriteOptions& options,
                                rocksdb::WriteBatch* batch, uint32_t table_id, uint32_t from,
                                uint32_t to);
  // Writes `batch` (a bucket's blocks, and the deletion of its log entries
  // up to `sequence`) and, once it is durable, replaces the bucket with the
  // rows written after `sequence` (by write groups that went on while it
  // was converted), as one step for CaptureWithSnapshot.
  rocksdb::Status WriteThenKeepAfter(rocksdb::DB* db, const rocksdb::WriteOptions& options,
                                     rocksdb::WriteBatch* batch, uint32_t table_id,
                                     uint32_t bucket, uint64_t sequence);
  // An iterator over a view's rows in point-key order, with RocksDB's
  // iterator contract (keys are 32-byte point keys, values encoded rows);
  // `upper` (optional) is an exclusive upper bound, as
  // ReadOptions::iterate_upper_bound; rows written after `max_sequence` are
  // left out.
  class Iterator : public rocksdb::Iterator {
   public:
    // The current row as the head stores it: its compact bytes and their
    // shape, or its encoded row and null; valid until the iterator moves.
    // For readers that can read it so (RowReader) without value()'s copy.
    virtual std::pair<std::string_view, const RowShape*> stored() const = 0;
    // The current row and the rest of its series in its bucket, in time
    // order, with the bucket's shapes (a row's `shape` k is shapes[k - 1]);
    // valid until the iterator moves. For readers that take a series whole.
    struct SeriesRows {
      absl::Span<const Entry> entries;
      absl::Span<const RowShape* const> shapes;
    };
    virtual SeriesRows RestOfSeries() const = 0;
    // Moves to the first row after the current series' (in its bucket).
    virtual void SkipSeries() = 0;
    // Presents these series' rows only (by series id; null: all), the others stepped over
    // without copying their index. Set before the first seek; must outlive the iterator.
    virtual void KeepOnly(const absl::flat_hash_set<uint64_t>* series) = 0;
  };
  static std::unique_ptr<Iterator> NewIterator(View view, std::string upper = {},
                                               uint64_t max_sequence = UINT64_MAX);

  // --- keeping a series' rows together ---
  //
  // Rows are written a moment at a time across every series (a fleet
  // reports together) and read a series at a time, so a reader of one
  // series takes a cache miss per row. Regrouping copies a bucket into a new
  // arena a series at a time (leaving out rows replaced since), in two
  // steps so that writers wait only for the second, short one.
  struct Regrouping {
    uint32_t table_id = 0;
    uint32_t bucket = 0;
    std::shared_ptr<Bucket> old, fresh;
    // Each series of `old` copied, with its rows and edits as copied.
    struct Copied {
      Series* fresh = nullptr;
      size_t rows = 0;
      uint64_t edits = 0;
    };
    absl::flat_hash_map<const Series*, Copied> copied;
  };
  // Step one, outside the writer's lock: copies the bucket's rows as they
  // are. Null if the table has no such bucket.
  std::unique_ptr<Regrouping> StartRegroup(uint32_t table_id, uint32_t bucket) const;
  // Step two, while no writer changes the head (Writer::Exclusive): copies
  // the rows written since step one and puts the copy in the bucket's
  // place (readers that captured the old bucket keep it). False, and
  // nothing changed, if the bucket was dropped or replaced meanwhile.
  bool FinishRegroup(Regrouping& regrouping);
  // Buckets with at least `min_rows` rows written since they were last
  // regrouped, and at least as many as were, and 64 rows per series on
  // average: (table, bucket, bytes held). Regrouping each at such a
  // doubling copies a bucket's rows about twice in all, and keeps at least
  // half of them in series order.
  struct BucketToRegroup {
    uint32_t table_id = 0;
    uint32_t bucket = 0;
    int64_t bytes = 0;
  };
  std::vector<BucketToRegroup> BucketsToRegroup(int64_t min_rows) const;

  // The (table, bucket) holding the oldest hour among those not in
  // `skip`, if any: what to convert first when the head is over its budget.
  std::optional<std::pair<uint32_t, uint32_t>> OldestBucket(
      const std::vector<std::pair<uint32_t, uint32_t>>& skip) const;
  // The tables holding buckets, in order.
  std::vector<uint32_t> TableIds() const;
  // The buckets of a table holding rows, in order.
  std::vector<uint32_t> Buckets(uint32_t table_id) const;
  // The sequence number of the next head_log entry (writer-only; replay
  // moves it past every logged one).
  uint64_t TakeLogSequence() { return next_log_sequence_++; }
  // The last sequence taken: every change up to it is applied once the
  // writer is between groups.
  uint64_t LastLogSequence() const { return next_log_sequence_ - 1; }
  void SawLogSequence(uint64_t sequence) {
    next_log_sequence_ = std::max(next_log_sequence_, sequence + 1);
  }

  // Bytes held (arenas and row indexes) and rows, all tables.
  int64_t bytes() const { return bytes_.load(std::memory_order_relaxed); }
  // Bytes and rows held for one table.
  std::pair<int64_t, int64_t> TableUsage(uint32_t table_id) const;

 private:
  using BucketMap = absl::btree_map<uint32_t, std::shared_ptr<Bucket>>;
  // Shared: a table dropped meanwhile (Catalog::DeleteTable does not wait
  // for write groups) must not free a bucket a change is being applied to.
  std::shared_ptr<Bucket> FindBucket(uint32_t table_id, uint32_t bucket) const;
  std::shared_ptr<Bucket> AddBucket(uint32_t table_id, uint32_t bucket);
  void ApplyTo(Bucket* bucket, Series* series, const Change& change);
  // The bucket's shape for `row` (made if new), with the row split into
  // parts_; 0: store the row as it is.
  uint32_t ShapeOf(Bucket* bucket, Series* series, std::string_view row);
  // The bucket's shape of signature `signature` (made if new); 0 past the
  // bucket's limit of shapes.
  uint32_t ShapeOfSignature(Bucket* bucket, std::string_view signature);
  // Adds the shape of parts_ (not in the bucket yet) under `signature`;
  // returns its id, or 0 past the bucket's limit of shapes.
  uint32_t AddShape(Bucket* bucket, std::string_view signature);
  // Gives `to` the shapes of `from`, whose rows it copied (with their numbers).
  static void CopyShapes(const Bucket& from, Bucket* to);
  void DropLocked(uint32_t table_id, uint32_t from, uint32_t to) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  View CaptureLocked(uint32_t table_id) const ABSL_SHARED_LOCKS_REQUIRED(mu_);

  mutable absl::Mutex mu_;
  absl::btree_map<uint32_t, BucketMap> tables_ ABSL_GUARDED_BY(mu_);
  std::atomic<int64_t> bytes_{0};
  uint64_t next_log_sequence_ = 1;
  RowParts parts_;  // writer-only scratch of ShapeOf
  // Writer-only scratch of Apply: each change's bucket and series (null for
  // an erase of nothing), found before any is applied.
  struct Target {
    Bucket* bucket;
    Series* series;
  };
  std::vector<Target> targets_;
  // How far ahead of the change it applies Apply asks for a series' end.
  static constexpr size_t kSeriesPrefetchedAhead = 4;
  // Asks for the cache line of `series`' newest row entry (writer-only).
  static void PrefetchSeriesEnd(const Series* series);
  // Writer-only, within one Apply: the last signature looked up (by address)
  // in `last_signature_bucket_`, and its shape there.
  const char* last_signature_ = nullptr;
  const Bucket* last_signature_bucket_ = nullptr;
  uint32_t last_signature_shape_ = 0;
  std::string rebuilt_;  // writer-only scratch: a compact row made whole
};

// Asks for an entry's row bytes (its first and last cache line) ahead of
// reading them: a series' rows lie apart in the arena, between other
// series' rows written at the same moments, so reading a series costs a
// cache miss per row unless the misses overlap. Inlined: GCC 12 takes a
// function whose only effect is a prefetch for one without effects and
// drops its calls.
// How many rows ahead a reader asks for: enough to cover a miss (a TLB miss
// on this 2-vCPU VM) at the few nanoseconds a row's values take to read.
inline constexpr int kRowsPrefetchedAhead = 12;
ABSL_ATTRIBUTE_ALWAYS_INLINE inline void PrefetchRow(const MemoryHead::Entry& entry) {
  __builtin_prefetch(entry.data);
  if (entry.size > 0) __builtin_prefetch(entry.data + entry.size - 1);
}

// The encoded row an entry stores: its bytes, or rebuilt into `scratch` from
// its compact form and `shape` (its bucket's shape entry.shape; null for 0).
std::string_view EncodedRow(const MemoryHead::Entry& entry, const RowShape* shape,
                            std::string* scratch);

}  // namespace strata
