#include "storage/engine.h"

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "common/status.h"
#include "storage/head/head_recovery.h"
#include "storage/jobs/tiering.h"
#include "storage/kv/keys.h"

namespace strata {

absl::StatusOr<std::unique_ptr<Engine>> Engine::Open(const EngineOptions& options) {
  auto engine = std::unique_ptr<Engine>(new Engine());
  engine->clock_ = options.clock != nullptr ? options.clock : SystemClock::Default();
  ASSIGN_OR_RETURN(engine->store_,
                   Store::Open({.data_dir = options.data_dir,
                               .durability = options.durability,
                               .block_cache_bytes = options.block_cache_bytes,
                               .wal_sync_interval_millis = options.wal_sync_interval_millis,
                               .disk_reserve_bytes = options.disk_reserve_bytes,
                               .free_space = options.free_space,
                               .env = options.env,
                               .info_log = options.rocksdb_log}));
  ASSIGN_OR_RETURN(engine->head_, RecoverMemoryHead(*engine->store_));
  RETURN_IF_ERROR(BackfillBlockHeaders(*engine->store_));
  ASSIGN_OR_RETURN(engine->catalog_, Catalog::Load(engine->store_.get(), engine->head_.get(), engine->clock_));
  RETURN_IF_ERROR(engine->catalog_->SweepDroppedTables().status());
  engine->tokens_ = std::make_unique<TokenStore>(engine->store_.get());
  engine->scheduled_queries_ = std::make_unique<ScheduledQueryStore>(engine->store_.get());
  engine->writer_ = std::make_unique<Writer>(engine->store_.get(), engine->head_.get(), engine->catalog_.get(),
                                             engine->clock_, options.seal_after_nanos,
                                             options.write_queue,
                                             2 * options.memory_store_budget_bytes);
  engine->memory_budget_bytes_ = options.memory_store_budget_bytes;
  engine->regroup_min_rows_ = options.regroup_min_rows;
  if (options.memory_store_budget_bytes > 0) {
    engine->relief_ = std::thread(
        [e = engine.get(), budget = options.memory_store_budget_bytes] { e->RelieveMemoryHead(budget); });
  }
  return engine;
}

void Engine::RelieveMemoryHead(int64_t budget) {
  // Checked often (an atomic load): a load fills hundreds of MB a minute,
  // the maintenance interval, and writes are refused past twice the budget
  // until this catches up. Converting down to three quarters of the budget
  // leaves room for the writes that go on meanwhile.
  constexpr absl::Duration kCheckEvery = absl::Milliseconds(20);
  MemoryHead& head = *head_;
  while (true) {
    {
      absl::MutexLock lock(&relief_mu_);
      if (relief_mu_.AwaitWithTimeout(absl::Condition(&closing_), kCheckEvery)) return;
    }
    if (head.bytes() <= budget) continue;
    absl::MutexLock run(&maintenance_mu_);
    // Buckets that could not move (a series too large for a block) stay.
    std::vector<std::pair<uint32_t, uint32_t>> stayed;
    while (head.bytes() > budget / 4 * 3) {
      {
        absl::MutexLock lock(&relief_mu_);
        if (closing_) return;
      }
      auto oldest = head.OldestBucket(stayed);
      if (!oldest) break;
      const auto [table_id, bucket] = *oldest;
      absl::StatusOr<TieringReport> report = ConvertBucketNow(*store_, *head_, *writer_, table_id, bucket);
      if (!report.ok() || report->buckets == 0 || report->series_left_in_memory > 0) {
        stayed.push_back(*oldest);
      }
      if (!report.ok()) {
        // The maintenance loop logs job errors; this one recurs there.
        continue;
      }
      early_conversions_.fetch_add(report->buckets, std::memory_order_relaxed);
      absl::MutexLock lock(&history_mu_);
      history_[table_id].rows_tiered_total += report->rows_moved;
    }
  }
}

LastPoints::RunExclusive Engine::ExclusiveOfWriter() {
  return [writer = writer_.get()](const std::function<absl::Status()>& step) {
    return writer->Exclusive(step);
  };
}

absl::StatusOr<std::optional<std::string>> Engine::ReadCatalogEntry(std::string_view key) {
  std::string value;
  rocksdb::Status s = store_->db()->Get(rocksdb::ReadOptions(), store_->family(Store::kCatalog),
                                        rocksdb::Slice(key.data(), key.size()), &value);
  if (s.IsNotFound()) return std::optional<std::string>();
  RETURN_IF_ERROR(FromRocks(s, "reading a catalog entry"));
  return std::optional<std::string>(std::move(value));
}

absl::Status Engine::Scan(const TableInfo& table, const ScanOptions& options,
                          const std::function<bool(const ScanRow&)>& emit, ScanStats* stats) {
  if (options.last_per_series) {
    // The newest row of each series, from the write path's entries.
    ASSIGN_OR_RETURN(std::shared_ptr<TableState> state, writer_->State(table.id));
    return state->last_points().Scan(*store_, *head_, ExclusiveOfWriter(), table, clock_->NowNanos(),
                                     options, emit, stats);
  }
  return ScanTable(*store_, *head_, table, clock_->NowNanos(), options, emit, stats);
}

absl::Status Engine::FillLastPoints(const TableInfo& table, const std::function<bool()>& stop) {
  ASSIGN_OR_RETURN(std::shared_ptr<TableState> state, writer_->State(table.id));
  return state->last_points().FillMissing(*store_, *head_, ExclusiveOfWriter(), table, clock_->NowNanos(),
                                          SeriesTargetsOf(state->AllSeries(), table.partition_key),
                                          stop);
}

absl::StatusOr<int64_t> Engine::DeleteSeriesWhere(
    const std::function<bool(const SeriesTarget&)>& drop, const std::function<bool()>& stop) {
  // Bounds the points held between deletes (each a few dozen bytes).
  constexpr size_t kPointsPerDelete = 50'000;
  int64_t deleted = 0;
  for (const std::shared_ptr<const TableInfo>& table : catalog_->AllTables()) {
    ASSIGN_OR_RETURN(std::shared_ptr<TableState> state, writer_->State(table->id));
    std::vector<SeriesTarget> targets;
    for (const SeriesTarget& target : SeriesTargetsOf(state->AllSeries(), table->partition_key)) {
      if (drop(target)) targets.push_back(target);
    }
    if (targets.empty()) continue;
    absl::flat_hash_map<uint64_t, uint64_t> pk_hash_of;
    for (const SeriesTarget& target : targets) pk_hash_of[target.series] = target.pk_hash;
    // A bucket's points at a time: deleting while scanning would rewrite what is being read.
    std::vector<PointToDelete> points;
    absl::Status scanned;
    do {
      points.clear();
      ScanOptions options{.series = &targets};
      scanned = Scan(*table, options, [&](const ScanRow& row) {
        points.push_back({pk_hash_of[row.series], row.series, row.time_nanos});
        return points.size() < kPointsPerDelete;
      });
      if (!scanned.ok()) return scanned;
      if (points.empty()) break;
      ASSIGN_OR_RETURN(int64_t n, Delete(*table, points));
      deleted += n;
      if (n == 0) break;  // nothing found again: never loop on rows a delete cannot reach
    } while (!stop());
    if (stop()) break;
  }
  return deleted;
}

std::vector<TableMaintenance> Engine::RunMaintenance() {
  absl::MutexLock run(&maintenance_mu_);
  std::vector<TableMaintenance> results;
  for (const auto& table : catalog_->AllTables()) {
    const int64_t now = clock_->NowNanos();
    TableMaintenance result{.database_name = table->database_name, .table_name = table->name};
    // Tiering writes blocks before it frees rows: not while the disk is in
    // its reserve. Retention only frees space, so it runs regardless.
    absl::Status writable = store_->CheckWritable();
    auto tiering = writable.ok() ? RunTiering(*store_, *head_, *writer_, *table, now)
                                 : absl::StatusOr<TieringReport>(writable);
    if (tiering.ok()) {
      result.tiering = *tiering;
    } else {
      result.status = tiering.status();
    }
    auto retention = RunRetention(*store_, *head_, *writer_, *table, now, &reclaimed_before_[table->id]);
    if (retention.ok()) {
      result.retention = *retention;
    } else if (result.status.ok()) {
      result.status = retention.status();
    }
    {
      absl::MutexLock lock(&history_mu_);
      TableStorageStats& history = history_[table->id];
      history.last_run_nanos = now;
      history.last_tiering = result.tiering;
      history.last_retention = result.retention;
      history.rows_tiered_total += result.tiering.rows_moved;
      history.rows_expired_total += result.retention.rows_dropped;
    }
    results.push_back(std::move(result));
  }
  RegroupHead();
  return results;
}

void Engine::RegroupHead() {
  MemoryHead& head = *head_;
  for (const MemoryHead::BucketToRegroup& due : head.BucketsToRegroup(regroup_min_rows_)) {
    // Both copies live until readers of the old one finish: only when they
    // fit in the budget together with the rest of the head.
    if (memory_budget_bytes_ > 0 && head.bytes() + due.bytes > memory_budget_bytes_) continue;
    std::unique_ptr<MemoryHead::Regrouping> regrouping = head.StartRegroup(due.table_id,
                                                                           due.bucket);
    if (regrouping == nullptr) continue;
    if (writer_->Exclusive([&] { return head.FinishRegroup(*regrouping); })) {
      regroups_.fetch_add(1, std::memory_order_relaxed);
    }
  }
}

absl::StatusOr<int> Engine::SweepDroppedTables() {
  // Not while the memory budget's thread converts a bucket: its blocks for
  // a table dropped meanwhile are swept by the next pass.
  absl::MutexLock run(&maintenance_mu_);
  ASSIGN_OR_RETURN(int swept, catalog_->SweepDroppedTables());
  // Dropped tables' in-memory state too (series registry, caches, last
  // points): freed once no request or query holds it.
  absl::flat_hash_set<uint32_t> live;
  for (const auto& table : catalog_->AllTables()) live.insert(table->id);
  writer_->ForgetStatesExcept(live);
  return swept;
}

std::optional<uint64_t> Engine::RocksDbProperty(const std::string& name, bool all_families) {
  uint64_t value = 0;
  const bool found = all_families ? store_->db()->GetAggregatedIntProperty(name, &value)
                                  : store_->db()->GetIntProperty(name, &value);
  if (!found) return std::nullopt;
  return value;
}

uint64_t Engine::WalBytes() {
  rocksdb::VectorLogPtr files;
  if (!store_->db()->GetSortedWalFiles(files).ok()) return 0;
  uint64_t bytes = 0;
  for (const auto& file : files) bytes += file->SizeFileBytes();
  return bytes;
}

absl::StatusOr<TableStorageStats> Engine::StorageStats(const TableInfo& table) {
  TableStorageStats stats;
  {
    absl::MutexLock lock(&history_mu_);
    if (auto it = history_.find(table.id); it != history_.end()) stats = it->second;
  }
  const std::string begin = keys::TableDataPrefix(table.id);
  const std::string end = keys::TableDataPrefix(table.id + 1);
  const rocksdb::Range range(begin, end);
  const auto [head_bytes, head_rows] = head_->TableUsage(table.id);
  stats.memory_store.bytes = head_bytes;
  stats.memory_store.entries = head_rows;
  for (auto [family, usage] : {std::pair{Store::kCold, &stats.magnetic_blocks},
                               std::pair{Store::kColdDelta, &stats.magnetic_delta}}) {
    rocksdb::ColumnFamilyHandle* handle = store_->family(family);
    rocksdb::SizeApproximationOptions options;
    options.include_memtables = true;
    options.include_files = true;
    uint64_t size = 0, header_size = 0;
    RETURN_IF_ERROR(FromRocks(store_->db()->GetApproximateSizes(options, handle, &range, 1, &size),
                              "estimating table size"));
    if (family == Store::kCold) {
      // A block's header is stored apart from its bodies (stored_blocks.h).
      RETURN_IF_ERROR(FromRocks(store_->db()->GetApproximateSizes(
                                    options, store_->family(Store::kColdHeader), &range, 1,
                                    &header_size),
                                "estimating table size"));
    }
    uint64_t memtable_count = 0, memtable_size = 0;
    store_->db()->GetApproximateMemTableStats(handle, range, &memtable_count, &memtable_size);
    rocksdb::TablePropertiesCollection files;
    RETURN_IF_ERROR(FromRocks(store_->db()->GetPropertiesOfTablesInRange(handle, &range, 1, &files),
                              "reading table file properties"));
    int64_t entries = static_cast<int64_t>(memtable_count);
    for (const auto& [name, properties] : files) {
      entries += static_cast<int64_t>(properties->num_entries) -
                 static_cast<int64_t>(properties->num_deletions);
    }
    usage->bytes = static_cast<int64_t>(size + header_size);
    usage->entries = std::max<int64_t>(entries, 0);
  }
  return stats;
}

absl::Status Engine::CompactAll() {
  rocksdb::CompactRangeOptions options;
  options.bottommost_level_compaction = rocksdb::BottommostLevelCompaction::kForce;
  for (Store::Family family :
       {Store::kHeadLog, Store::kCold, Store::kColdHeader, Store::kColdDelta, Store::kIndex}) {
    RETURN_IF_ERROR(FromRocks(
        store_->db()->CompactRange(options, store_->family(family), nullptr, nullptr),
        "compacting"));
  }
  return absl::OkStatus();
}

absl::Status Engine::Close() {
  if (relief_.joinable()) {
    {
      absl::MutexLock lock(&relief_mu_);
      closing_ = true;
    }
    relief_.join();
  }
  writer_.reset();
  catalog_.reset();
  if (!store_) return absl::OkStatus();
  absl::Status status = store_->Close();
  store_.reset();
  return status;
}

Engine::~Engine() { Close().IgnoreError(); }

}  // namespace strata
