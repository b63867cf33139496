// DELETE FROM t WHERE ...: the points its SELECT * matches, deleted from
// every tier (storage/jobs/deletion.h), or handed to the DeleteSink of a
// cluster node (query/delete_sink.h), which deletes them through the shards'
// logs.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "common/status.h"
#include "common/strings.h"
#include "query/base/error.h"
#include "query/delete_sink.h"
#include "query/plan/planner.h"
#include "query/statements.h"
#include "storage/read/table_state.h"

namespace strata::query {
namespace {

// The rows a DELETE's SELECT * returns, as points of the table: the series
// from the dimension columns (those before measure_name) and measure_name,
// the time from `time`.
class DeleteCollector final : public RowSink {
 public:
  // Past this, a DELETE is refused: its points are held in memory.
  static constexpr size_t kMaxPoints = 5'000'000;

  // `by_series`: also keeps each series' key with its points' times (for a DeleteSink).
  DeleteCollector(const TableInfo& table, const TableState& state, const Schema& columns,
                  QueryContext* context, bool by_series)
      : table_(table), state_(state), context_(context), by_series_(by_series) {
    for (size_t c = 0; c < columns.size(); ++c) {
      if (columns[c].name == kMeasureNameColumn) measure_name_ = static_cast<int>(c);
      if (columns[c].name == kTimeColumn) time_ = static_cast<int>(c);
    }
    for (int c = 0; c < measure_name_; ++c) dimensions_.emplace_back(c, columns[c].name);
  }

  absl::Status Push(Row row) override {
    if (count_ >= kMaxPoints) {
      return absl::ResourceExhaustedError(StrCat("the DELETE matches more than ", kMaxPoints,
                                                 " rows; delete a narrower time range at "
                                                 "a time"));
    }
    if (count_++ % 4096 == 0) {
      RETURN_IF_ERROR(
          context_->Reserve(4096 * (sizeof(PointToDelete) + (by_series_ ? sizeof(int64_t) : 0)),
                            "the rows to delete"));
    }
    NormalizedRecord series;
    series.measure_name = row[measure_name_].s;
    for (const auto& [column, name] : dimensions_) {
      if (!row[column].null) series.dimensions.emplace_back(name, row[column].s);
    }
    if (by_series_) {
      // A cluster's shards find each series by its key (this node may hold none of them).
      auto [it, added] = series_index_.try_emplace(SeriesKey(series), deletions_.size());
      if (added) deletions_.push_back({.series = std::move(series)});
      deletions_[it->second].times_nanos.push_back(row[time_].i);
      return absl::OkStatus();
    }
    const std::optional<uint64_t> id = state_.FindSeries(SeriesKeyView::Of(series));
    if (!id) return absl::OkStatus();  // registered after the scan began: not this DELETE's
    points_.push_back(
        {.pk_hash = PartitionHash(series.measure_name, series.dimensions, table_.partition_key),
         .series = *id,
         .time_nanos = row[time_].i});
    return absl::OkStatus();
  }
  absl::Status Finish() override { return absl::OkStatus(); }
  std::vector<PointToDelete> TakePoints() { return std::move(points_); }
  std::vector<SeriesDeletion> TakeDeletions() { return std::move(deletions_); }

 private:
  const TableInfo& table_;
  const TableState& state_;
  QueryContext* context_;
  const bool by_series_;
  int measure_name_ = -1;
  int time_ = -1;
  std::vector<std::pair<int, std::string>> dimensions_;
  std::vector<PointToDelete> points_;
  size_t count_ = 0;                                       // rows pushed
  absl::flat_hash_map<std::string, size_t> series_index_;  // series key -> its deletions_ entry
  std::vector<SeriesDeletion> deletions_;
};

}  // namespace

absl::Status DeleteRows(Statement stmt, const StatementRun& run) {
  if (run.options.access != nullptr) {
    for (absl::Status allowed : {run.options.access->CheckRead(stmt.database, stmt.table),
                                 run.options.access->CheckWrite(stmt.database, stmt.table)}) {
      if (!allowed.ok()) return SqlError(run.sql, stmt.table_pos, allowed);
    }
  }
  auto table = run.storage.catalog().FindTable(stmt.database, stmt.table);
  if (!table.ok()) return SqlError(run.sql, stmt.table_pos, table.status());
  ASSIGN_OR_RETURN(std::shared_ptr<TableState> state, run.storage.TableStateOf(**table));
  Planner planner(run.storage, run.layouts, run.sql, &run.context, &run.stats);
  ASSIGN_OR_RETURN(std::shared_ptr<Plan> plan, planner.PlanSelect(std::move(stmt.select)));
  if (run.options.describe_only) return run.sink.Columns({{"rows_deleted", DataType::kBigint}});
  DeleteSink* sink = run.options.deletes;
  DeleteCollector collector(**table, *state, plan->output, &run.context, sink != nullptr);
  RETURN_IF_ERROR(run.context.CheckAlive());
  RETURN_IF_ERROR(plan->Run(&run.context, &collector));
  ASSIGN_OR_RETURN(int64_t deleted, sink != nullptr
                                        ? sink->Delete(**table, collector.TakeDeletions())
                                        : run.storage.Delete(**table, collector.TakePoints()));
  run.stats.rows_returned = 0;
  return run.Emit({{"rows_deleted", DataType::kBigint}}, {{Datum::Bigint(deleted)}});
}

}  // namespace strata::query
