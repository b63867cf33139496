// The storage engine: the one entry point the server (and the query engine)
// uses. It owns the RocksDB store of a data directory and the catalog, and
// the write path (Writer) and the scan interface. Read this header first.
//
// Thread-safety: every method is safe for concurrent use, except Close, which
// the owner calls once when no other call is running.
#pragma once

#include <atomic>
#include <memory>
#include <thread>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "common/clock.h"
#include "common/status.h"
#include "storage/catalog/catalog.h"
#include "storage/catalog/scheduled_query_store.h"
#include "storage/catalog/token_store.h"
#include "storage/jobs/backup.h"
#include "storage/jobs/deletion.h"
#include "storage/jobs/retention.h"
#include "storage/jobs/tiering.h"
#include "storage/kv/store.h"
#include "storage/read/scan.h"
#include "storage/read/table_state.h"
#include "storage/rows/write_types.h"
#include "storage/write/writer.h"

namespace strata {

inline constexpr int64_t kDefaultSealAfterNanos = 10 * kNanosPerMinute;

struct EngineOptions {
  std::string data_dir;
  Durability durability = Durability::kFsync;
  size_t block_cache_bytes = size_t{256} << 20;  // see StoreOptions
  int64_t wal_sync_interval_millis = 1000;       // see StoreOptions
  uint64_t disk_reserve_bytes = uint64_t{256} << 20;  // see StoreOptions
  // See StoreOptions::free_space (tests).
  std::function<absl::StatusOr<uint64_t>(const std::string& dir)> free_space;
  rocksdb::Env* env = nullptr;  // see StoreOptions (tests)
  std::shared_ptr<rocksdb::Logger> rocksdb_log;  // see StoreOptions::info_log
  // Write requests that may wait for a group commit (Writer).
  int write_queue = 256;
  // A memory-store hour that ended this long ago is sealed: the tiering job
  // converts it to columnar blocks while it is still in the memory store's
  // window (later writes to it are merged in on the next run). 0 keeps the
  // rows until the hour leaves the memory store. docs/storage.md,
  // "Sealed hours".
  int64_t seal_after_nanos = kDefaultSealAfterNanos;
  // The memory head's budget: past it, the oldest buckets are converted to
  // blocks early, open or not, and past twice it writes are refused
  // (RESOURCE_EXHAUSTED) until they are (docs/storage.md, "Memory
  // head"). 0: no budget.
  int64_t memory_store_budget_bytes = int64_t{256} << 20;
  // A maintenance run regroups a memory-head bucket (MemoryHead::Regrouping)
  // once at least this many rows, and as many as it holds in series order,
  // were written to it since it was last regrouped.
  int64_t regroup_min_rows = 32768;
  // Time source for write windows, retention and background jobs. Not owned;
  // null means the system clock.
  const Clock* clock = nullptr;
};

// One table's share of a maintenance run.
struct TableMaintenance {
  std::string database_name;
  std::string table_name;
  TieringReport tiering;
  RetentionReport retention;
  absl::Status status;  // the first job error; the other job still ran
};

// What one data family holds of a table, as RocksDB estimates it (SST file
// properties and memtable statistics; exact after a compaction).
struct TierUsage {
  int64_t bytes = 0;
  int64_t entries = 0;  // rows in `hot` and `cold_delta`, blocks in `cold`
};

struct TableStorageStats {
  TierUsage memory_store;       // hot
  TierUsage magnetic_blocks;    // cold and cold_header (bytes), cold (entries)
  TierUsage magnetic_delta;     // cold_delta
  // The clock's time of the last maintenance run over the table (0: none
  // since the server started), what it did, and totals since start.
  int64_t last_run_nanos = 0;
  TieringReport last_tiering;
  RetentionReport last_retention;
  int64_t rows_tiered_total = 0;
  int64_t rows_expired_total = 0;
};

class Engine {
 public:
  // Opens (or creates) the data directory. See Store::Open for the errors.
  static absl::StatusOr<std::unique_ptr<Engine>> Open(const EngineOptions& options);
  ~Engine();

  Catalog& catalog() { return *catalog_; }
  TokenStore& tokens() { return *tokens_; }
  ScheduledQueryStore& scheduled_queries() { return *scheduled_queries_; }
  const Clock& clock() const { return *clock_; }

  // WriteRecords: see Writer::Write for the contract.
  absl::StatusOr<WriteResult> Write(WriteRequest request) {
    return writer_->Write(std::move(request));
  }
  int QueuedWrites() { return writer_->QueuedRequests(); }
  // For jobs and tests that need the writer's lock (Writer::Exclusive).
  Writer& writer() { return *writer_; }
  // Writer::WriteAsync: `done` runs once the request is committed.
  void WriteAsync(WriteRequest request, Writer::WriteDone done) {
    writer_->WriteAsync(std::move(request), std::move(done));
  }
  void WriteAsync(WriteSource& source, Writer::WriteDone done) {
    writer_->WriteAsync(source, std::move(done));
  }

  // A `catalog` family entry a caller of Writer::WriteAsync wrote through
  // WriteOptions::catalog_puts (a replica's applied log sequence), or nullopt.
  absl::StatusOr<std::optional<std::string>> ReadCatalogEntry(std::string_view key);

  // Streams the live rows of a table in key order; see storage/read/scan.h.
  absl::Status Scan(const TableInfo& table, const ScanOptions& options,
                    const std::function<bool(const ScanRow&)>& emit, ScanStats* stats = nullptr);

  // The series registry and measure schema of a table.
  absl::StatusOr<std::shared_ptr<TableState>> TableStateOf(const TableInfo& table) {
    return writer_->State(table.id);
  }

  // Fills the last-point entries (storage/read/last_points.h) of every series of
  // `table` that has none, as a last-point query over all of them would;
  // stops between chunks once `stop` says so. The server runs it for every
  // table once at start, in the background, so the first last-point query
  // after a restart need not read each series from storage.
  absl::Status FillLastPoints(const TableInfo& table, const std::function<bool()>& stop);

  // Runs the tiering job (storage/jobs/tiering.h) and then the retention job
  // (storage/jobs/retention.h) over every table, at the clock's current time.
  // Safe to call at any time; the server calls it periodically, tests call it
  // after moving a ManualClock.
  std::vector<TableMaintenance> RunMaintenance();
  // Deletes what writes or conversions that raced DROP TABLE left under the
  // dropped table's id (Catalog::SweepDroppedTables); also run at open.
  // Returns how many dropped tables had something left.
  absl::StatusOr<int> SweepDroppedTables();

  absl::StatusOr<TableStorageStats> StorageStats(const TableInfo& table);

  // A RocksDB integer property ("rocksdb.cur-size-all-mem-tables", ...),
  // summed over the column families when `all_families`, else of the
  // default one (for shared things: the block cache); nullopt if unknown.
  std::optional<uint64_t> RocksDbProperty(const std::string& name, bool all_families = true);
  // Bytes in the write-ahead log files (live and archived).
  uint64_t WalBytes();
  // The memory head: bytes held, its budget, and buckets converted early
  // because it was over the budget, since start.
  struct MemoryHeadUsage {
    int64_t bytes = 0;
    int64_t budget_bytes = 0;
    int64_t early_conversions = 0;
    int64_t regroups = 0;  // buckets copied with each series' rows together
  };
  MemoryHeadUsage HeadUsage() const {
    return {head_->bytes(), memory_budget_bytes_,
            early_conversions_.load(std::memory_order_relaxed),
            regroups_.load(std::memory_order_relaxed)};
  }
  // RocksDB's counters since open.
  struct RocksDbCounters {
    uint64_t block_cache_hits = 0;
    uint64_t block_cache_misses = 0;
    uint64_t stall_micros = 0;
  };
  RocksDbCounters RocksDbTickers() const {
    return {store_->Ticker(rocksdb::BLOCK_CACHE_HIT), store_->Ticker(rocksdb::BLOCK_CACHE_MISS),
            store_->Ticker(rocksdb::STALL_MICROS)};
  }

  // Whether writes can go ahead now (Store::CheckWritable): the server's
  // health reports the write service NOT_SERVING while they cannot.
  absl::Status CheckWritable() { return store_->CheckWritable(); }

  // Flushes and compacts every data family to its bottom level: what
  // background compaction reaches eventually. For benchmarks that measure
  // bytes on disk.
  absl::Status CompactAll();

  // Deletes points of `table` from every tier (storage/jobs/deletion.h). Waits
  // for a running maintenance pass: a conversion writes blocks before its
  // commit, and a block rewritten by a delete meanwhile would be overwritten.
  absl::StatusOr<int64_t> Delete(const TableInfo& table, std::vector<PointToDelete> points) {
    ASSIGN_OR_RETURN(std::shared_ptr<TableState> state, writer_->State(table.id));
    absl::MutexLock run(&maintenance_mu_);
    return DeletePoints(*store_, *head_, *writer_, table, state->last_points(), std::move(points));
  }

  // Deletes every point of the series `drop` picks, in every table (a cluster node giving
  // up a shard's replica), a few thousand at a time; stops early once `stop` returns
  // true. Returns the points deleted.
  absl::StatusOr<int64_t> DeleteSeriesWhere(const std::function<bool(const SeriesTarget&)>& drop,
                                            const std::function<bool()>& stop);

  // A consistent online backup into `backup_dir` (storage/jobs/backup.h).
  absl::StatusOr<BackupSummary> Backup(const std::string& backup_dir) {
    return CreateBackup(*store_, backup_dir);
  }

  // Makes everything acknowledged durable and releases the data directory.
  absl::Status Close();

 private:
  Engine() = default;
  // Writer::Exclusive, for the last points to fill under.
  LastPoints::RunExclusive ExclusiveOfWriter();

  const Clock* clock_ = nullptr;
  std::unique_ptr<Store> store_;
  // The memory head: rebuilt from its log in store_ at open; outlives
  // everything below, which borrows it.
  std::unique_ptr<MemoryHead> head_;
  std::unique_ptr<Catalog> catalog_;
  std::unique_ptr<TokenStore> tokens_;
  std::unique_ptr<ScheduledQueryStore> scheduled_queries_;
  std::unique_ptr<Writer> writer_;

  // Converts the oldest buckets while the memory head is over `budget`.
  void RelieveMemoryHead(int64_t budget);
  // Regroups the memory head's buckets that are due (BucketsToRegroup) and
  // whose copy fits in the budget beside the head.
  void RegroupHead() ABSL_EXCLUSIVE_LOCKS_REQUIRED(maintenance_mu_);

  absl::Mutex maintenance_mu_;  // one maintenance run (or relief) at a time
  // Per table: the bucket below which retention already gave space back.
  absl::flat_hash_map<uint32_t, uint32_t> reclaimed_before_ ABSL_GUARDED_BY(maintenance_mu_);
  absl::Mutex history_mu_;
  absl::flat_hash_map<uint32_t, TableStorageStats> history_ ABSL_GUARDED_BY(history_mu_);
  int64_t memory_budget_bytes_ = 0;
  std::atomic<int64_t> early_conversions_{0};
  int64_t regroup_min_rows_ = 0;
  std::atomic<int64_t> regroups_{0};
  absl::Mutex relief_mu_;
  bool closing_ ABSL_GUARDED_BY(relief_mu_) = false;
  std::thread relief_;  // RelieveMemoryHead, when there is a budget
};

}  // namespace strata
