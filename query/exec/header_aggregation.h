// Aggregating magnetic blocks by their headers. A block holds one series'
// points of one bucket, and its header carries each column's non-NULL count,
// min, max and sum (storage/blocks/block.h). When a query has no residual
// WHERE, groups by series columns and by keys that never decrease with time
// (time, bin(time, c), date_trunc(c, time)), and computes only count, sum,
// avg, min and max of measure columns, a block whose points all fall in the
// scan's range and share one group key adds to that one group exactly what
// its header says: the block is not decoded.
//
// Sums of DOUBLE values: a block's stored sum adds its values in time order
// from 0, as the row-by-row path does, so a group made of one block gets the
// same bits either way; a group spanning several blocks adds their sums, which
// may round differently in the last bits than adding every value in turn
// (the order of a floating-point sum is unspecified, as in Presto).
#pragma once

#include <cstdint>
#include <vector>

#include "query/exec/operators.h"
#include "query/exec/scan_batcher.h"
#include "storage/blocks/block.h"

namespace strata::query {

// Set on a table scan by the plan when its aggregation may take blocks by
// their headers (see HeaderAggregationEligible in planner.cc).
struct HeaderAggregation {
  std::vector<const Expr*> keys;          // bound to the table's schema
  std::vector<AggregateSpec> aggregates;  // each function has a stats_use
  AggregateSink* sink = nullptr;          // the plan's aggregate, while it runs
};

// Reads a scan's whole blocks for a HeaderAggregation. One per scan.
class BlockStatsReader {
 public:
  // The arguments must outlive the reader.
  BlockStatsReader(const TableColumns& table, const HeaderAggregation& plan,
                   const EvalContext& eval);

  // True when the header of `block` answers every aggregate: `keys` then
  // holds the group key all its points share and `stats` the statistics of
  // each aggregate's argument. False when the block must be decoded: points
  // outside the scan's range, more than one group key, or statistics the
  // header lacks.
  bool Read(const WholeBlock& block, Row* keys, std::vector<ColumnStats>* stats);

 private:
  // Makes `series` current; false if it is unknown to the plan.
  bool SelectSeries(uint64_t series);
  // Which of the block's columns feeds each query column (summary_column_): one name lookup
  // per block column, not one per aggregate and block column.
  void MapColumns(const format::BlockSummary& summary);
  // The statistics of query column `column` over the block (MapColumns' block).
  bool StatsOf(int column, const format::BlockSummary& summary, ColumnStats* out) const;

  const TableColumns& table_;
  const HeaderAggregation& plan_;
  const EvalContext& eval_;
  uint64_t last_series_ = UINT64_MAX;
  const SeriesColumns* series_ = nullptr;
  Row row_;  // the current series' column values, and a time
  std::vector<int> summary_column_;  // by query column: its block column, or -1
  std::vector<int> mapped_;          // the query columns summary_column_ maps now
};

}  // namespace strata::query
