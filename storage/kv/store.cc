#include "storage/kv/store.h"

#include <sys/statvfs.h>
#include <unistd.h>

#include <cstdarg>
#include <cstdio>
#include <filesystem>
#include <system_error>

#include "common/status.h"
#include "common/strings.h"
#include "rocksdb/cache.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/listener.h"
#include "rocksdb/slice_transform.h"
#include "rocksdb/table.h"
#include "rocksdb/write_batch.h"
#include "storage/kv/keys.h"
#include "storage/kv/write_gate.h"

namespace strata {
namespace {

// Tells the Store that RocksDB stopped writes (a full or failing disk met
// by a write of any kind, a flush or a compaction).
class BackgroundErrorListener final : public rocksdb::EventListener {
 public:
  explicit BackgroundErrorListener(std::shared_ptr<std::atomic<bool>> stopped)
      : stopped_(std::move(stopped)) {}
  void OnBackgroundError(rocksdb::BackgroundErrorReason, rocksdb::Status* error) override {
    if (error != nullptr && !error->ok()) *stopped_ = true;
  }

 private:
  std::shared_ptr<std::atomic<bool>> stopped_;
};

// RocksDB's messages on stderr, one line each, when the embedder gives no
// logger of its own.
class StderrLogger final : public rocksdb::Logger {
 public:
  using rocksdb::Logger::Logv;
  void Logv(const char* format, va_list ap) override {
    char line[1024];
    vsnprintf(line, sizeof line, format, ap);
    std::fprintf(stderr, "rocksdb: %s\n", line);
  }
};

absl::StatusOr<uint64_t> FreeSpace(const std::string& dir) {
  struct statvfs fs;
  if (statvfs(dir.c_str(), &fs) != 0) return absl::UnavailableError("statvfs failed");
  return static_cast<uint64_t>(fs.f_bavail) * fs.f_frsize;
}

}  // namespace
namespace {

rocksdb::ColumnFamilyOptions FamilyOptions(Store::Family family,
                                           const std::shared_ptr<rocksdb::Cache>& cache) {
  rocksdb::ColumnFamilyOptions options;
  rocksdb::BlockBasedTableOptions table;
  table.block_cache = cache;
  // Index entries delta-coded against a restart every 16 (the default, 1,
  // stores every separator key whole: keys share their table and bucket).
  table.index_block_restart_interval = 16;
  if (family == Store::kCold) {
    // A block of the magnetic store is ~4 KB: RocksDB blocks of 16 KB hold
    // several, each key prefix-coded against its neighbours' and one index
    // entry for them all (1 % of the family on TSBS data).
    table.block_size = 16 << 10;
  }
  options.compression = rocksdb::kLZ4Compression;
  // The memory head's log is read only by iterating it at open: no key is
  // looked up, so it has no filter. (It stays compressed: LZ4 saves only
  // ~16 % of rows of doubles, for ~3 % of the server's CPU under ingest, but
  // most of text values; a flush of an uncompressed 64 MB memtable of them
  // filled the disk-full test's nearly full disk.)
  if (family != Store::kHeadLog) {
    table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
    table.whole_key_filtering = true;
  }
  options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  if (family == Store::kHot || family == Store::kColdDelta) {
    // Points arrive series by series in time order, and a series' keys share
    // the 24-byte prefix [table][bucket][partition][series]: a per-prefix
    // insert hint turns each append into a short step from the last one
    // instead of a search from the top of the memtable's skiplist.
    options.memtable_insert_with_hint_prefix_extractor.reset(
        rocksdb::NewFixedPrefixTransform(24));
  }
  if (family == Store::kCold) {
    // Magnetic blocks are already encoded; ZSTD on the bottom level squeezes
    // what the codecs leave (text dictionaries).
    options.bottommost_compression = rocksdb::kZSTD;
  }
  if (family == Store::kColdHeader) {
    // Block headers repeat their tables' measure names block after block:
    // ZSTD with a dictionary trained on each bottom-level file stores them
    // about once (a third off the family on TSBS data, whose statistics
    // are the rest).
    options.bottommost_compression = rocksdb::kZSTD;
    options.bottommost_compression_opts.enabled = true;
    options.bottommost_compression_opts.max_dict_bytes = 16 << 10;
    options.bottommost_compression_opts.zstd_max_train_bytes = 100 * (16 << 10);
  }
  return options;
}

}  // namespace

const char* Store::FamilyName(Family f) {
  switch (f) {
    case kCatalog: return "catalog";
    case kHot: return "hot";
    case kCold: return "cold";
    case kColdDelta: return "cold_delta";
    case kIndex: return "index";
    case kColdHeader: return "cold_header";
    case kHeadLog: return "head_log";
    case kFamilyCount: break;
  }
  return "?";
}

absl::Status FromRocks(const rocksdb::Status& s, std::string_view context) {
  if (s.ok()) return absl::OkStatus();
  // A full or failing disk is the operator's to fix, not a bug: say so
  // without RocksDB's text, which names server paths.
  if (s.IsNoSpace() || s.subcode() == rocksdb::Status::kSpaceLimit) {
    return absl::ResourceExhaustedError(StrCat(
        "the data directory's disk is full (", context,
        "); writes resume by themselves once space is freed, and acknowledged data is safe"));
  }
  if (s.IsIOError() && !s.IsPathNotFound()) {
    return absl::UnavailableError(StrCat(
        "the data directory's disk failed (", context,
        "); writes resume by themselves once the disk recovers, and acknowledged data is safe"));
  }
  std::string message = StrCat(context, ": ", s.ToString());
  if (s.IsNotFound()) return absl::NotFoundError(message);
  if (s.IsCorruption()) return absl::DataLossError(message);
  if (s.IsInvalidArgument()) return absl::InvalidArgumentError(message);
  if (s.IsBusy() || s.IsTryAgain()) return absl::UnavailableError(message);
  return absl::InternalError(message);
}

absl::Status Store::FlushBurstFamilies() {
  std::vector<rocksdb::ColumnFamilyHandle*> families;
  for (int f = 0; f < kFamilyCount; ++f) {
    if (f != kHeadLog) families.push_back(families_[f]);
  }
  rocksdb::FlushOptions options;
  options.wait = true;
  return FromRocks(db_->Flush(options, families), "flushing the tiering job's writes");
}

absl::StatusOr<std::unique_ptr<Store>> Store::Open(const StoreOptions& options) {
  std::error_code ec;
  std::filesystem::create_directories(options.data_dir, ec);
  if (ec) {
    return absl::PermissionDeniedError(StrCat(
        "cannot create data directory \"", options.data_dir, "\": ", ec.message(),
        "; choose a writable directory with --data-dir or STRATA_DATA_DIR"));
  }
  if (access(options.data_dir.c_str(), W_OK | X_OK) != 0) {
    return absl::PermissionDeniedError(StrCat(
        "data directory \"", options.data_dir,
        "\" is not writable; fix its permissions or choose another with --data-dir"));
  }

  rocksdb::DBOptions db_options;
  if (options.env != nullptr) db_options.env = options.env;
  db_options.create_if_missing = true;
  db_options.create_missing_column_families = true;
  db_options.max_background_jobs = 2;
  db_options.bytes_per_sync = 1 << 20;
  db_options.info_log_level = rocksdb::InfoLogLevel::WARN_LEVEL;
  db_options.info_log = options.info_log ? options.info_log : std::make_shared<StderrLogger>();
  db_options.info_log->SetInfoLogLevel(rocksdb::InfoLogLevel::WARN_LEVEL);
  db_options.keep_log_file_num = 4;
  db_options.max_total_wal_size = options.max_wal_bytes;
  // The Writer's committer is the only thread that writes (docs/
  // storage.md, "Write path"), and insert hints need this off.
  db_options.allow_concurrent_memtable_write = false;
  // Tickers only (no timers or histograms): block cache hits and misses and
  // stall time for /metrics, at the cost of a counter increment each.
  db_options.statistics = rocksdb::CreateDBStatistics();
  db_options.statistics->set_stats_level(rocksdb::StatsLevel::kExceptHistogramOrTimers);
  auto stopped_by_error = std::make_shared<std::atomic<bool>>(false);
  db_options.listeners.push_back(std::make_shared<BackgroundErrorListener>(stopped_by_error));

  std::vector<rocksdb::ColumnFamilyDescriptor> descriptors;
  descriptors.emplace_back(rocksdb::kDefaultColumnFamilyName, rocksdb::ColumnFamilyOptions());
  const std::shared_ptr<rocksdb::Cache> cache = rocksdb::NewLRUCache(options.block_cache_bytes);
  for (int f = 0; f < kFamilyCount; ++f) {
    descriptors.emplace_back(FamilyName(static_cast<Family>(f)),
                             FamilyOptions(static_cast<Family>(f), cache));
  }

  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* raw = nullptr;
  rocksdb::Status s = rocksdb::DB::Open(db_options, options.data_dir, descriptors, &handles, &raw);
  if (!s.ok()) {
    if (s.IsIOError() && s.ToString().find("lock") != std::string::npos) {
      return absl::FailedPreconditionError(StrCat(
          "data directory \"", options.data_dir,
          "\" is locked by another process (is another stratad running on it?): ",
          s.ToString()));
    }
    return FromRocks(s, StrCat("opening the database in \"", options.data_dir, "\""));
  }

  auto store = std::unique_ptr<Store>(new Store());
  store->stopped_by_error_ = std::move(stopped_by_error);
  store->statistics_ = db_options.statistics;
  store->db_ = std::make_unique<WriteGate>(raw, store->stopped_by_error_, handles[1 + kHeadLog]);
  // handles[0] is the unused default family; RocksDB keeps it alive itself.
  store->db_->DestroyColumnFamilyHandle(handles[0]);
  store->families_.assign(handles.begin() + 1, handles.end());
  store->write_options_.sync = options.durability == Durability::kFsync;
  store->sync_write_options_.sync = true;
  store->data_dir_ = options.data_dir;
  store->disk_reserve_bytes_ = options.disk_reserve_bytes;
  store->free_space_ = options.free_space ? options.free_space : FreeSpace;
  if (options.durability == Durability::kBuffered && options.wal_sync_interval_millis > 0) {
    store->wal_syncer_ = std::thread(
        [s = store.get(), interval = options.wal_sync_interval_millis] { s->SyncWalEvery(interval); });
  }
  return store;
}

void Store::SyncWalEvery(int64_t interval_millis) {
  // Only Close takes this lock (to stop the loop), never a writer: writes go
  // on while the log is synced.
  absl::MutexLock lock(&syncer_mu_);
  while (!syncer_mu_.AwaitWithTimeout(absl::Condition(&closing_),
                                      absl::Milliseconds(interval_millis))) {
    // A failure here is a failing disk, which the next write reports; the
    // loop keeps trying. (While the store is stopped the gate refuses it:
    // a sync of the failed log would abort.)
    db_->SyncWAL().PermitUncheckedError();
  }
}

absl::Status Store::CheckWritable() {
  absl::StatusOr<uint64_t> free = free_space_(data_dir_);
  auto paused = [&](std::string_view why) {
    return absl::ResourceExhaustedError(
        StrCat(why, "; writes are paused and resume by themselves once space is freed. Reads "
                    "still work"));
  };
  if (free.ok() && *free < disk_reserve_bytes_) {
    return paused(StrCat("the data directory's disk is nearly full (", *free >> 20,
                         " MiB free, ", disk_reserve_bytes_ >> 20, " MiB kept in reserve)"));
  }
  if (!stopped_by_error_->load()) return absl::OkStatus();
  absl::MutexLock lock(&resume_mu_);
  if (!stopped_by_error_->load()) return absl::OkStatus();
  // After a failed write RocksDB refuses every write until resumed: try now
  // that there is room (it replays nothing, it only clears the error).
  rocksdb::Status resumed = db_->Resume();
  // Busy: RocksDB's own recovery from the failed write (a flush that ran out
  // of space) is still running; NoSpace: it failed again. Either way the disk
  // is what stops writes, as above.
  if (resumed.IsBusy() || resumed.IsNoSpace()) {
    return paused("a write failed for want of disk space and the store is still recovering");
  }
  if (!resumed.ok()) return FromRocks(resumed, "resuming writes");
  *stopped_by_error_ = false;
  return absl::OkStatus();
}

absl::Status Store::Close() {
  if (wal_syncer_.joinable()) {
    {
      absl::MutexLock lock(&syncer_mu_);
      closing_ = true;
    }
    wal_syncer_.join();
  }
  if (!db_) return absl::OkStatus();
  // Not after a failed write: the log writer may have failed an append, and
  // RocksDB (Debian builds it with assertions on) aborts on a sync of such a
  // writer; the sync could not make anything durable anyway. Found by
  // tests/unit/storage/power_cut_test.cc.
  absl::Status status =
      stopped_by_error_->load()
          ? absl::OkStatus()
          : FromRocks(db_->FlushWAL(/*sync=*/true), "flushing the WAL");
  for (auto* handle : families_) {
    db_->DestroyColumnFamilyHandle(handle);
  }
  families_.clear();
  absl::Status closed = FromRocks(db_->Close(), "closing the database");
  db_.reset();
  return status.ok() ? closed : status;
}

Store::~Store() { Close().IgnoreError(); }

}  // namespace strata
