// The nodes a SELECT puts over its source, innermost first: the WHERE
// filter, the aggregation, HAVING, the windows, the projection, DISTINCT,
// the sort (or top n), LIMIT, dropping the helper columns ORDER BY added,
// and OFFSET. Each wires the operator of operators.h (window.h for windows)
// that does its work. Expressions are bound by the planner and owned by the
// plan (Plan::keep_alive), or by the node where it says so.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "query/exec/header_aggregation.h"
#include "query/exec/partition_top_n.h"
#include "query/exec/plan_node.h"
#include "query/exec/window.h"

namespace strata::query {

// A table scan reading its newest buckets first asks, after each bucket,
// whether the rows already held settle the result (TableScan's
// enough_before); the node holding them answers while it runs.
struct NewestFirstStop {
  std::shared_ptr<std::function<bool(int64_t)>> enough_before;  // the scan's question
  int64_t limit = 0;  // the rows (or groups) that settle the result
};

// WHERE over batches.
class FilterNode : public PlanNode {
 public:
  // `owner`, if set, keeps `predicate` alive.
  FilterNode(PlanNodePtr input, const Expr* predicate, std::shared_ptr<const void> owner = nullptr)
      : PlanNode(input->schema(), input->estimated_rows(), {input}),
        predicate_(predicate),
        owner_(std::move(owner)) {}
  std::string Describe() const override;
  int ColumnBelow(int column) const override { return column; }
  absl::Status ProduceBatches(QueryContext* context, BatchSink* sink) const override;

 private:
  const Expr* predicate_;
  std::shared_ptr<const void> owner_;
};

// GROUP BY (or one group): [keys..., aggregates...] per group.
class AggregateNode : public PlanNode {
 public:
  // Reading newest first: the group key `key` (index `key_index`) never
  // decreases with time, column `time_column` of the input.
  struct NewestFirst {
    NewestFirstStop stop;
    const Expr* key = nullptr;
    size_t key_index = 0;
    int time_column = -1;
  };
  AggregateNode(PlanNodePtr input, Schema output, std::vector<const Expr*> keys,
                std::vector<AggregateSpec> aggregates);
  // Whole blocks of the scan below add to the groups by their headers.
  void TakeBlockHeaders(std::shared_ptr<HeaderAggregation> headers) {
    headers_ = std::move(headers);
  }
  void StopScanWhenSettled(NewestFirst newest_first) { newest_first_ = std::move(newest_first); }
  // Any `groups` groups answer the query (SELECT DISTINCT ... LIMIT n, no ORDER BY): the scan
  // stops once that many are found.
  void StopScanAtGroups(int64_t groups) { stop_at_groups_ = groups; }

  std::string Describe() const override;
  int ColumnBelow(int column) const override;
  // The groups as batches (the columnar result path) or as rows.
  absl::Status ProduceBatches(QueryContext* context, BatchSink* sink) const override;
  absl::Status ProduceRows(QueryContext* context, RowSink* sink) const override;

 private:
  absl::Status Run(QueryContext* context, AggregateSink* aggregate) const;

  std::vector<const Expr*> keys_;
  std::vector<AggregateSpec> aggregates_;
  std::shared_ptr<HeaderAggregation> headers_;
  std::optional<NewestFirst> newest_first_;
  int64_t stop_at_groups_ = 0;  // 0: read every row
};

// GROUP BY of grouping sets (ROLLUP, CUBE, GROUPING SETS: query/parse/grouping_sets.h): the
// input read once, each row added to one hash aggregation per set, grouped by that set's
// `keys`. Its rows are [keys..., set mask, aggregates...]: a key outside the set the group
// comes from is NULL, and the mask (BIGINT) has bit k set for each key k outside it, for
// grouping(). The sets' groups leave set by set, each set's in first-seen order. A set of no
// keys makes one row, also for no input.
class GroupingSetsNode : public PlanNode {
 public:
  // `sets`: positions in `keys`; at most 62 keys.
  GroupingSetsNode(PlanNodePtr input, Schema output, std::vector<const Expr*> keys,
                   std::vector<std::vector<uint32_t>> sets, std::vector<AggregateSpec> aggregates);
  // Whole blocks of the scan below add to every set's groups by their headers.
  void TakeBlockHeaders(std::shared_ptr<HeaderAggregation> headers) {
    headers_ = std::move(headers);
  }

  std::string Describe() const override;
  absl::Status ProduceBatches(QueryContext* context, BatchSink* sink) const override;

 private:
  std::vector<const Expr*> keys_;
  std::vector<std::vector<uint32_t>> sets_;
  std::vector<AggregateSpec> aggregates_;
  std::shared_ptr<HeaderAggregation> headers_;
};

// HAVING over the groups.
class HavingNode : public PlanNode {
 public:
  HavingNode(PlanNodePtr input, const Expr* predicate)
      : PlanNode(input->schema(), input->estimated_rows(), {input}), predicate_(predicate) {}
  std::string Describe() const override;
  int ColumnBelow(int column) const override { return column; }
  absl::Status ProduceBatches(QueryContext* context, BatchSink* sink) const override;
  absl::Status ProduceRows(QueryContext* context, RowSink* sink) const override;

 private:
  const Expr* predicate_;
};

// The window calls: the rows narrowed to the columns `keep`, then one
// column per call.
class WindowNode : public PlanNode {
 public:
  // `call_text`: each call as written, for EXPLAIN.
  WindowNode(PlanNodePtr input, std::vector<WindowCall> calls, std::vector<int> keep,
             std::vector<std::string> call_text);
  std::string Describe() const override;
  int ColumnBelow(int column) const override;
  absl::Status ProduceBatches(QueryContext* context, BatchSink* sink) const override;

 private:
  std::vector<WindowCall> calls_;
  std::vector<int> keep_;
  std::vector<std::string> call_text_;
  std::optional<RankLimit> rank_limit_;  // the top rows of each partition only (rn <= n above)
};

// SELECT DISTINCT ON (k) ... ORDER BY k, t DESC: the first row of each key by the rest of
// ORDER BY (among ties, the first to come), found as the rows arrive: row_number() OVER
// (PARTITION BY k ORDER BY t DESC) <= 1 kept by PartitionTopN, so that the sort after it
// orders one row of each key instead of every row.
class FirstOfEachNode : public PlanNode {
 public:
  FirstOfEachNode(PlanNodePtr input, const std::vector<int>& keys,
                  const std::vector<SortKey>& order);
  std::string Describe() const override;
  int ColumnBelow(int column) const override;
  absl::Status ProduceBatches(QueryContext* context, BatchSink* sink) const override;

 private:
  std::vector<ExprPtr> columns_;  // the keys' and the order's columns, read by `spec_`
  WindowCall spec_;               // the keys as its PARTITION BY, the order as its ORDER BY
};

// The select list (and the hidden ORDER BY columns after it).
class ProjectNode : public PlanNode {
 public:
  ProjectNode(PlanNodePtr input, Schema output, std::vector<const Expr*> exprs)
      : PlanNode(std::move(output), input->estimated_rows(), {input}), exprs_(std::move(exprs)) {}
  std::string Describe() const override;
  int ColumnBelow(int column) const override;
  // Vectorized over the input's batches.
  absl::Status ProduceBatches(QueryContext* context, BatchSink* sink) const override;
  absl::Status ProduceRows(QueryContext* context, RowSink* sink) const override;

 private:
  std::vector<const Expr*> exprs_;
};

// SELECT DISTINCT over the first `width` columns.
class DistinctNode : public PlanNode {
 public:
  // Rows distinct in their first `width` columns (SELECT DISTINCT).
  DistinctNode(PlanNodePtr input, int width);
  // The first row of each value of `columns` (SELECT DISTINCT ON).
  DistinctNode(PlanNodePtr input, std::vector<int> columns)
      : PlanNode(input->schema(), input->estimated_rows(), {input}),
        columns_(std::move(columns)),
        on_(true) {}
  std::string Describe() const override;
  int ColumnBelow(int column) const override;
  absl::Status ProduceRows(QueryContext* context, RowSink* sink) const override;

 private:
  std::vector<int> columns_;
  bool on_ = false;
};

// ORDER BY, with LIMIT a top n.
class SortNode : public PlanNode {
 public:
  SortNode(PlanNodePtr input, std::vector<SortKey> keys, std::optional<int64_t> limit);
  // Reading newest first without aggregation: the first `stop.limit` rows
  // past WHERE settle the result.
  void StopScanWhenSettled(NewestFirstStop stop) { stop_ = std::move(stop); }
  std::string Describe() const override;
  int ColumnBelow(int column) const override;
  absl::Status ProduceBatches(QueryContext* context, BatchSink* sink) const override;
  absl::Status ProduceRows(QueryContext* context, RowSink* sink) const override;

 private:
  std::vector<SortKey> keys_;
  std::optional<int64_t> limit_;
  std::optional<NewestFirstStop> stop_;
};

// LIMIT without ORDER BY, or FETCH FIRST n ROWS WITH TIES after a sort by `ties` (rows equal
// to the n-th in those keys are kept too).
class LimitNode : public PlanNode {
 public:
  LimitNode(PlanNodePtr input, int64_t limit, std::vector<SortKey> ties = {})
      : PlanNode(input->schema(), std::min(input->estimated_rows(), limit), {input}),
        limit_(limit),
        ties_(std::move(ties)) {}
  std::string Describe() const override;
  absl::Status ProduceBatches(QueryContext* context, BatchSink* sink) const override;
  absl::Status ProduceRows(QueryContext* context, RowSink* sink) const override;

 private:
  int64_t limit_;
  std::vector<SortKey> ties_;
};

// Drops the columns after the first `width` (those ORDER BY added).
class TruncateNode : public PlanNode {
 public:
  TruncateNode(PlanNodePtr input, Schema output)
      : PlanNode(std::move(output), input->estimated_rows(), {input}) {}
  std::string Describe() const override { return ""; }
  int ColumnBelow(int column) const override { return column; }
  absl::Status ProduceBatches(QueryContext* context, BatchSink* sink) const override;
  absl::Status ProduceRows(QueryContext* context, RowSink* sink) const override;
};

// OFFSET: drops the first `skip` rows.
class OffsetNode : public PlanNode {
 public:
  OffsetNode(PlanNodePtr input, int64_t skip)
      : PlanNode(input->schema(), input->estimated_rows(), {input}), skip_(skip) {}
  std::string Describe() const override;
  absl::Status ProduceBatches(QueryContext* context, BatchSink* sink) const override;
  absl::Status ProduceRows(QueryContext* context, RowSink* sink) const override;

 private:
  int64_t skip_;
};

}  // namespace strata::query
