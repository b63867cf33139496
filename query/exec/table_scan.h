// The scan of one table as an operator: the series and time range the
// planner chose, and the fast paths the plan turns on before it runs (the
// newest row per series, newest buckets first, block headers added to an
// aggregation, a join's series restriction, the columns read). It reads the
// memory head and the magnetic blocks through Engine::Scan and pushes column
// batches into a sink (query/exec/scan_batcher.h), counting what it read.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "query/base/result.h"
#include "query/exec/hash_join.h"
#include "query/exec/header_aggregation.h"
#include "query/exec/operators.h"
#include "query/exec/table_layout.h"
#include "query/expr/block_bounds.h"
#include "storage/engine.h"

namespace strata::query {

class TableScan {
 public:
  struct Spec {
    Engine* storage = nullptr;
    std::shared_ptr<const TableInfo> table;
    std::shared_ptr<const TableLayout> layout;
    ScanOptions options;  // the time range and the series chosen (null: all)
    // The chosen series and their rows in the layout's series batch.
    std::shared_ptr<std::vector<SeriesTarget>> targets;
    std::shared_ptr<std::vector<size_t>> target_index;
    // Measure-value bounds that rule out whole magnetic blocks.
    std::shared_ptr<std::vector<ValueBound>> bounds;
    // Set by the plan before the scan runs (Planner::Source says how).
    std::shared_ptr<bool> last_point_only;
    std::shared_ptr<std::function<bool(int64_t)>> enough_before;
    std::shared_ptr<HeaderAggregation> header_aggregation;
    std::shared_ptr<std::vector<bool>> columns_read;
    std::shared_ptr<SeriesRestriction> restrict_series;
  };

  explicit TableScan(Spec spec) : spec_(std::move(spec)) {}

  // Pushes the table's rows into `sink` as batches, then calls Finish; adds
  // what it read to `stats` and to the query's progress.
  absl::Status Run(QueryContext* context, QueryStats* stats, BatchSink* sink) const;

 private:
  // The options of this run: the join's restriction and the last-point
  // path applied (`restricted` holds the series a restriction leaves).
  ScanOptions RunOptions(std::vector<SeriesTarget>* restricted) const;

  Spec spec_;
};

}  // namespace strata::query
