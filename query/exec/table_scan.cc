#include "query/exec/table_scan.h"

#include <algorithm>

#include "common/status.h"
#include "query/base/running_queries.h"
#include "query/exec/scan_batcher.h"

namespace strata::query {

ScanOptions TableScan::RunOptions(std::vector<SeriesTarget>* restricted) const {
  const TableLayout& layout = *spec_.layout;
  ScanOptions options = spec_.options;
  // A join's dynamic filter: only series whose key column has a value the
  // build side holds.
  if (const SeriesRestriction& restriction = *spec_.restrict_series; restriction.values) {
    const Vector& column = layout.series_batch.columns[restriction.column];
    for (size_t i : *spec_.target_index) {
      if (!column.null(i) &&
          restriction.values->contains(
              absl::string_view(column.strings[i].data(), column.strings[i].size()))) {
        restricted->push_back(layout.series[i]);
      }
    }
    options.series = restricted;
  }
  if (*spec_.last_point_only) {
    options.last_per_series = true;
    if (options.series == nullptr) options.series = &layout.series;
  }
  // An eighth of the series or more (a cluster fragment's shards, a long IN list): each
  // bucket read whole, the others' blocks stepped over, costs less than three seeks a series.
  // Every series (a fragment over all the shards, a condition every series meets): no filter.
  constexpr size_t kDenseShare = 8;
  if (options.series != nullptr && !options.last_per_series &&
      options.series->size() >= layout.series.size()) {
    options.series = nullptr;
  }
  options.series_dense = options.series != nullptr && !options.last_per_series &&
                         options.series->size() * kDenseShare >= layout.series.size();
  options.encoded_rows = true;  // the batcher decodes only the columns read
  return options;
}

absl::Status TableScan::Run(QueryContext* context, QueryStats* stats, BatchSink* sink) const {
  const TableLayout& layout = *spec_.layout;
  HeaderAggregation& header = *spec_.header_aggregation;
  const std::function<bool(int64_t)>& enough_before = *spec_.enough_before;
  std::vector<SeriesTarget> restricted;
  ScanOptions options = RunOptions(&restricted);
  absl::Status pushed;
  ScanStats scan_stats;
  ScanBatcher batcher(*layout.columns, *spec_.columns_read, *spec_.bounds);
  // What this scan has published to the query's progress so far.
  int64_t published_rows = 0, published_bytes = 0;
  auto publish = [&] {
    if (context->progress == nullptr) return;
    context->progress->rows_scanned.fetch_add(scan_stats.rows_scanned - published_rows,
                                              std::memory_order_relaxed);
    context->progress->bytes_scanned.fetch_add(scan_stats.bytes_scanned - published_bytes,
                                               std::memory_order_relaxed);
    published_rows = scan_stats.rows_scanned;
    published_bytes = scan_stats.bytes_scanned;
  };
  // Pushes the rows gathered so far; false when the scan must stop.
  auto flush = [&]() {
    publish();
    pushed = context->CheckAlive();
    if (pushed.ok()) pushed = batcher.Flush([&](const Batch& b) { return sink->Push(b); });
    return pushed.ok() && !context->enough.load(std::memory_order_relaxed);
  };
  // Magnetic blocks that need no merge add to the aggregation by their
  // headers when they can, or go straight into the batches, decoding only
  // the columns the query reads.
  BlockStatsReader stats_reader(*layout.columns, header, context->eval);
  Row block_keys;
  std::vector<ColumnStats> block_stats;
  options.whole_block = [&](const WholeBlock& block) {
    if (header.sink != nullptr && stats_reader.Read(block, &block_keys, &block_stats)) {
      // Rows gathered before the block reach the groups first, so groups
      // keep the order the row-by-row path gives them.
      if (batcher.rows() > 0 && !flush()) return BlockUse::kStop;
      pushed = header.sink->AddStats(std::move(block_keys), block_stats);
      return pushed.ok() ? BlockUse::kTaken : BlockUse::kStop;
    }
    absl::StatusOr<bool> go_on = batcher.AddBlock(block, flush);
    if (!go_on.ok()) pushed = go_on.status();
    return go_on.ok() && *go_on ? BlockUse::kTaken : BlockUse::kStop;
  };
  // The memory head's series that need no merge go in without a call per row.
  options.whole_head_series = [&](const HeadSeries& series) {
    absl::StatusOr<bool> go_on = batcher.AddHeadSeries(series, flush);
    if (!go_on.ok()) pushed = go_on.status();
    return go_on.ok() && *go_on ? BlockUse::kTaken : BlockUse::kStop;
  };
  if (enough_before) {
    options.newest_first = true;
    // What the bucket added must reach the operators before they judge.
    options.bucket_done = [&](int64_t bucket_start) {
      if (batcher.rows() > 0 && !flush()) return false;
      return !enough_before(bucket_start);
    };
  }
  absl::Status scanned = spec_.storage->Scan(
      *spec_.table, options,
      [&](const ScanRow& point) {
        absl::StatusOr<bool> full = batcher.Add(point);
        if (!full.ok()) {
          pushed = full.status();
          return false;
        }
        return !*full || flush();
      },
      &scan_stats);
  if (pushed.ok() && scanned.ok() && batcher.rows() > 0) flush();
  publish();
  stats->rows_scanned += scan_stats.rows_scanned;
  stats->bytes_scanned += scan_stats.bytes_scanned;
  stats->buckets_scanned += scan_stats.buckets_scanned;
  stats->buckets_pruned +=
      std::max<int64_t>(0, scan_stats.buckets_in_range - scan_stats.buckets_scanned);
  stats->blocks_scanned += scan_stats.blocks_scanned - batcher.blocks_ruled_out();
  stats->blocks_pruned += scan_stats.blocks_pruned + batcher.blocks_ruled_out();
  RETURN_IF_ERROR(pushed);
  RETURN_IF_ERROR(scanned);
  return sink->Finish();
}

}  // namespace strata::query
