#include "server/ops/maintenance_loop.h"

#include "spdlog/spdlog.h"

namespace strata {

void LogMaintenance(const TableMaintenance& r) {
  const auto millis = [](int64_t nanos) { return nanos / 1'000'000; };
  if (!r.status.ok()) {
    spdlog::error("maintenance of \"{}\".\"{}\" failed; it is retried on the next run: {}",
                  r.database_name, r.table_name, std::string(r.status.message()));
  }
  const TieringReport& t = r.tiering;
  if (t.rows_moved > 0 || t.delta_rows_merged > 0) {
    spdlog::info("tiering \"{}\".\"{}\": {} memory-store rows and {} late writes into {} blocks "
                 "over {} buckets in {} ms",
                 r.database_name, r.table_name, t.rows_moved, t.delta_rows_merged,
                 t.blocks_written, t.buckets, millis(t.duration_nanos));
  }
  if (t.series_left_in_memory > 0) {
    spdlog::warn("tiering \"{}\".\"{}\": {} series have more points in one hour than a block "
                 "holds and stay in the memory store until they expire",
                 r.database_name, r.table_name, t.series_left_in_memory);
  }
  const RetentionReport& d = r.retention;
  if (d.buckets_dropped > 0) {
    spdlog::info("retention \"{}\".\"{}\": dropped {} rows in {} expired buckets in {} ms",
                 r.database_name, r.table_name, d.rows_dropped, d.buckets_dropped,
                 millis(d.duration_nanos));
  }
}

void MaintenanceLoop::Start() { thread_ = std::thread([this] { Run(); }); }

void MaintenanceLoop::Stop() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  if (thread_.joinable()) thread_.join();
}

namespace {

// Data directories written before the one-name-one-meaning rule may hold
// conflicting attribute types or names; docs/sql.md says how they read.
// Said once, at start, in the background (it loads every table's registry).
void LogSchemaConflicts(Engine& engine) {
  for (const auto& table : engine.catalog().AllTables()) {
    absl::StatusOr<std::shared_ptr<TableState>> state = engine.TableStateOf(*table);
    if (!state.ok()) continue;  // the table's first query or write reports it
    for (const std::string& conflict : (*state)->LegacyConflicts()) {
      spdlog::warn("\"{}\".\"{}\" was written before one type per attribute name was enforced: "
                   "{} (docs/sql.md, \"One type per column\")",
                   table->database_name, table->name, conflict);
    }
  }
}

}  // namespace

void MaintenanceLoop::FillLastPoints() {
  const auto stopping = [this] {
    absl::MutexLock lock(&mu_);
    return stopping_;
  };
  for (const auto& table : engine_->catalog().AllTables()) {
    if (stopping()) return;
    if (absl::Status s = engine_->FillLastPoints(*table, stopping); !s.ok()) {
      // Not an outage: a last-point query fills what it needs itself.
      spdlog::warn("reading the newest point of each series of \"{}\".\"{}\" at start: {}",
                   table->database_name, table->name, s.ToString());
    }
  }
}

void MaintenanceLoop::Run() {
  LogSchemaConflicts(*engine_);
  FillLastPoints();
  while (true) {
    {
      absl::MutexLock lock(&mu_);
      const absl::Duration wait = absl::Seconds(interval_.count());
      if (mu_.AwaitWithTimeout(absl::Condition(&stopping_), wait)) return;
    }
    for (const TableMaintenance& result : engine_->RunMaintenance()) LogMaintenance(result);
    absl::StatusOr<int> swept = engine_->SweepDroppedTables();
    if (!swept.ok()) {
      spdlog::warn("removing what writes racing DROP TABLE left: {}", swept.status().ToString());
    } else if (*swept > 0) {
      spdlog::info("removed rows written to {} dropped table(s) while they were dropped", *swept);
    }
  }
}

}  // namespace strata
