// Store: the one RocksDB database of a data directory and its column families
// (docs/storage.md, "Storage layout"). It owns the handles; everything
// else in storage/ borrows them.
// Thread-safety: safe for concurrent use (RocksDB is); Open/Close are not.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "rocksdb/db.h"
#include "rocksdb/statistics.h"

namespace strata {

enum class Durability {
  kFsync,     // an acknowledged write is on disk (WAL fsync, group-committed)
  kBuffered,  // an acknowledged write is in the OS page cache
};

struct StoreOptions {
  std::string data_dir;
  Durability durability = Durability::kFsync;
  // One block cache shared by every column family: scans of recent hours
  // and of magnetic blocks read from memory instead of re-reading and
  // decompressing SST blocks.
  size_t block_cache_bytes = size_t{256} << 20;
  // Once the write-ahead log files add up to this, RocksDB flushes the
  // families whose memtables keep the oldest file alive. Without a bound the
  // small families (catalog, index), rarely full enough to flush, pin every
  // log file: 3.4 GB after loading a day of the benchmark, replayed at each
  // open.
  uint64_t max_wal_bytes = uint64_t{512} << 20;
  // With kBuffered: how often a background thread syncs the write-ahead log,
  // so a power cut loses at most about this window of acknowledged writes
  // (otherwise the kernel's writeback delay, ~30 s, decides). 0: never.
  int64_t wal_sync_interval_millis = 1000;
  // Writes stop while the data directory's file system has less than this
  // free, and resume by themselves once space returns: the reserve leaves
  // room for the flushes, compactions and retention runs that free space,
  // so RocksDB itself never meets a full disk in the normal course.
  uint64_t disk_reserve_bytes = uint64_t{256} << 20;
  // Free bytes of the data directory's file system (tests inject a full
  // disk); null: statvfs.
  std::function<absl::StatusOr<uint64_t>(const std::string& dir)> free_space;
  // The environment RocksDB's files go through (tests simulate a power cut
  // with one); not owned; null: the default.
  rocksdb::Env* env = nullptr;
  // Where RocksDB's own messages go (the server: its log); null: stderr.
  // Never RocksDB's LOG file in the data directory: on a full disk a failed
  // append to it made every later message abort the process (Debian's
  // RocksDB asserts on a write to a file that failed one).
  std::shared_ptr<rocksdb::Logger> info_log;
};

class Store {
 public:
  // The column families, in the order of their handles.
  // kColdHeader holds, under each block's key, a copy of the block's header
  // (its count, time range and column statistics): scans that need no
  // values (pruning, aggregates from headers) read these small entries and
  // never the blocks.
  // kHeadLog is the memory head's log (storage/head/head_log.h); `hot` held the
  // memory store's rows before the head and is read only to move a data
  // directory written then into the head, at open.
  enum Family {
    kCatalog = 0,
    kHot,
    kCold,
    kColdDelta,
    kIndex,
    kColdHeader,
    kHeadLog,
    kFamilyCount
  };
  static const char* FamilyName(Family f);

  // Creates the data directory if needed and opens (or creates) the database.
  // Errors: FAILED_PRECONDITION when another process holds the directory's
  // lock, PERMISSION_DENIED / INTERNAL when it cannot be created or written.
  static absl::StatusOr<std::unique_ptr<Store>> Open(const StoreOptions& options);

  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  rocksdb::DB* db() const { return db_.get(); }
  // RocksDB's counters since open (tickers only: block cache, stalls, ...).
  uint64_t Ticker(rocksdb::Tickers ticker) const { return statistics_->getTickerCount(ticker); }
  rocksdb::ColumnFamilyHandle* family(Family f) const { return families_[f]; }
  // Options for writes that must honour the configured durability.
  const rocksdb::WriteOptions& write_options() const { return write_options_; }
  // Options for writes that are always synced (catalog changes).
  const rocksdb::WriteOptions& sync_write_options() const { return sync_write_options_; }

  // OK when writes may go ahead. RESOURCE_EXHAUSTED while the disk is below
  // its reserve; UNAVAILABLE while the database has stopped writes after a
  // failed write (a full or failing disk) and could not resume yet. Each
  // call with space above the reserve tries to resume a stopped database,
  // so writes come back by themselves once an operator frees space.
  absl::Status CheckWritable();

  // Flushes the memtables of every family but `hot` (blocks, their
  // headers, late writes, index and catalog entries: families written in
  // bursts) to SST files, so the write-ahead log files that only their
  // entries kept alive can go. Called after the tiering job moved data.
  absl::Status FlushBurstFamilies();

  // Flushes the WAL to disk and closes the database. Idempotent.
  absl::Status Close();

 private:
  Store() = default;
  // The kBuffered WAL syncer's loop, until Close.
  void SyncWalEvery(int64_t interval_millis);

  std::string data_dir_;
  uint64_t disk_reserve_bytes_ = 0;
  std::function<absl::StatusOr<uint64_t>(const std::string&)> free_space_;
  // Set by RocksDB (an EventListener) whenever any write, flush or
  // compaction puts the database in a background-error state, whichever
  // path met it; cleared once Resume succeeds.
  std::shared_ptr<std::atomic<bool>> stopped_by_error_;
  std::shared_ptr<rocksdb::Statistics> statistics_;
  absl::Mutex resume_mu_;  // one Resume at a time
  absl::Mutex syncer_mu_;
  bool closing_ ABSL_GUARDED_BY(syncer_mu_) = false;
  std::thread wal_syncer_;
  std::unique_ptr<rocksdb::DB> db_;
  std::vector<rocksdb::ColumnFamilyHandle*> families_;  // index: Family
  rocksdb::WriteOptions write_options_;
  rocksdb::WriteOptions sync_write_options_;
};

// Converts a RocksDB status; `context` says what was being done.
absl::Status FromRocks(const rocksdb::Status& s, std::string_view context);

}  // namespace strata
