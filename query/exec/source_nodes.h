// The nodes rows come from: a table scan, rows already at hand (a system
// table, the one row of SELECT without FROM), a subquery or WITH query, a
// join of two inputs, UNNEST over an input, UNION / INTERSECT / EXCEPT, and a
// recursive WITH query with the rows its steps read.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "query/base/result.h"
#include "query/exec/hash_join.h"
#include "query/exec/header_aggregation.h"
#include "query/exec/plan_node.h"
#include "query/exec/select_nodes.h"
#include "query/exec/set_operation.h"
#include "query/exec/table_scan.h"
#include "query/exec/unnest.h"
#include "query/parse/ast.h"

namespace strata::query {

// One table's scan (table_scan.h). The planner turns its fast paths on
// before the plan runs; EXPLAIN names those it turned on.
class TableScanNode : public PlanNode {
 public:
  // `spec` without its hooks (the node makes them); `description` names the
  // table, the time range and the series read. Reads are added to `stats`.
  TableScanNode(Schema schema, int64_t estimated_rows, TableScan::Spec spec, QueryStats* stats,
                std::string description);

  int series_columns() const { return series_columns_; }
  int time_column() const { return time_column_; }

  // Only the newest row of each series (LastPointEligible in the planner).
  void ReadLastPointsOnly();
  bool last_points_only() const { return *last_point_only_; }
  // Whole blocks add to the aggregation `keys`/`aggregates` by their
  // headers; the aggregate node takes the returned hook.
  std::shared_ptr<HeaderAggregation> AggregateBlocks(std::vector<const Expr*> keys,
                                                     std::vector<AggregateSpec> aggregates);
  // Newest buckets first, stopping once the node above holding `limit` rows
  // (or groups) says no older row can change the result.
  NewestFirstStop ReadNewestFirst(int64_t limit);
  // Which columns the query reads (all false until the planner marks them);
  // EXPLAIN shows their count once ShowColumnsRead is called.
  std::vector<bool>& columns_read() { return *columns_read_; }
  void ShowColumnsRead() { show_columns_ = true; }
  // A join's dynamic filter narrows the series to those whose series column
  // holds one of the build side's key values.
  std::shared_ptr<SeriesRestriction> series_restriction() const { return restrict_series_; }

  std::string Describe() const override;
  absl::Status ProduceBatches(QueryContext* context, BatchSink* sink) const override;

 private:
  std::shared_ptr<bool> last_point_only_ = std::make_shared<bool>(false);
  std::shared_ptr<std::function<bool(int64_t)>> enough_before_ =
      std::make_shared<std::function<bool(int64_t)>>();
  std::shared_ptr<HeaderAggregation> header_aggregation_ = std::make_shared<HeaderAggregation>();
  std::shared_ptr<std::vector<bool>> columns_read_;
  std::shared_ptr<SeriesRestriction> restrict_series_ = std::make_shared<SeriesRestriction>();
  TableScan scan_;
  QueryStats* stats_;
  std::string description_;
  int series_columns_;
  int time_column_;
  bool block_aggregates_ = false;
  bool newest_first_ = false;
  bool show_columns_ = false;
};

// Rows already at hand (a system table), pushed as batches.
class RowsNode : public PlanNode {
 public:
  RowsNode(Schema schema, std::shared_ptr<const std::vector<Row>> rows, std::string description)
      : PlanNode(std::move(schema), static_cast<int64_t>(rows->size()), {}),
        rows_(std::move(rows)),
        description_(std::move(description)) {}
  std::string Describe() const override { return description_; }
  absl::Status ProduceRows(QueryContext* context, RowSink* sink) const override;

 private:
  std::shared_ptr<const std::vector<Row>> rows_;
  std::string description_;
};

// One row of no columns (SELECT without FROM, FROM UNNEST(...) alone).
class OneRowNode : public PlanNode {
 public:
  OneRowNode() : PlanNode({}, 1, {}) {}
  std::string Describe() const override { return "Values (one row)"; }
  absl::Status ProduceBatches(QueryContext* context, BatchSink* sink) const override;
};

// A subquery or WITH query in FROM: the inner plan's rows under the names
// of `schema`, the inner query a pipeline of its own (Plan::Run).
class SubqueryNode : public PlanNode {
 public:
  // `own_plan`: no other node reads `inner` (a FROM subquery's; a WITH query's may be read
  // again elsewhere, where a join's dynamic filter on its scan must not reach).
  SubqueryNode(std::shared_ptr<const Plan> inner, Schema schema, bool own_plan = false)
      : PlanNode(std::move(schema), inner->estimated_rows(), {inner->root}),
        inner_(std::move(inner)),
        own_plan_(own_plan) {}
  std::string Describe() const override { return ""; }
  int ColumnBelow(int column) const override { return own_plan_ ? column : -1; }
  // Its own pipeline either way (RunPipeline): batches stay batches, so a subquery that runs on
  // them (a window's, an aggregation's) feeds the query around it without a row made for each.
  absl::Status ProduceBatches(QueryContext* context, BatchSink* sink) const override;
  absl::Status ProduceRows(QueryContext* context, RowSink* sink) const override;

 private:
  std::shared_ptr<const Plan> inner_;
  bool own_plan_;
};

// A WITH query read more than once: its rows are kept as the first reading runs it (in
// QueryContext::kept_rows, by the plan) and the other readings replay them, as PostgreSQL runs
// a WITH query once: a random() in it reads the same at each, an aggregation runs once. When
// the rows would not fit the query's memory, or the first reading stopped early (a LIMIT),
// nothing is kept and the next reading runs the query again.
class KeptRowsNode : public PlanNode {
 public:
  KeptRowsNode(std::shared_ptr<const Plan> inner, Schema schema, std::string name)
      : PlanNode(std::move(schema), inner->estimated_rows(), {inner->root}),
        inner_(std::move(inner)),
        name_(std::move(name)) {}
  std::string Describe() const override;
  absl::Status ProduceRows(QueryContext* context, RowSink* sink) const override;

 private:
  std::shared_ptr<const Plan> inner_;
  std::string name_;
};

// A join of inputs 0 (left) and 1 (right): hash_join.h.
class JoinNode : public PlanNode {
 public:
  // `owner` keeps the keys and condition `spec` points at alive.
  JoinNode(PlanNodePtr left, PlanNodePtr right, Schema schema, int64_t estimated_rows,
           std::shared_ptr<const JoinSpec> spec, std::shared_ptr<const void> owner,
           std::string description)
      : PlanNode(std::move(schema), estimated_rows, {std::move(left), std::move(right)}),
        spec_(std::move(spec)),
        owner_(std::move(owner)),
        description_(std::move(description)) {}
  std::string Describe() const override { return description_; }
  absl::Status ProduceBatches(QueryContext* context, BatchSink* sink) const override;

 private:
  std::shared_ptr<const JoinSpec> spec_;
  std::shared_ptr<const void> owner_;
  std::string description_;
};

// UNNEST over its input's rows (unnest.h).
class UnnestNode : public PlanNode {
 public:
  // `owner` keeps the arguments `spec` points at alive.
  UnnestNode(PlanNodePtr input, Schema schema, std::shared_ptr<const UnnestSpec> spec,
             std::shared_ptr<const void> owner, std::string description);
  std::string Describe() const override { return description_; }
  absl::Status ProduceBatches(QueryContext* context, BatchSink* sink) const override;

 private:
  std::shared_ptr<const UnnestSpec> spec_;
  std::shared_ptr<const void> owner_;
  std::string description_;
};

// UNION / INTERSECT / EXCEPT of two plans (set_operation.h), each a
// pipeline of its own.
class SetOperationNode : public PlanNode {
 public:
  SetOperationNode(std::shared_ptr<const Plan> left, std::shared_ptr<const Plan> right,
                   Schema schema, SetOperation op, bool all, std::string name);
  std::string Describe() const override { return name_; }
  absl::Status ProduceRows(QueryContext* context, RowSink* sink) const override;

 private:
  std::shared_ptr<const Plan> left_, right_;
  SetOperation op_;
  bool all_;
  std::string name_;
};

// WITH RECURSIVE's `first UNION [ALL] step` (RunRecursiveUnion), each plan a pipeline of its
// own; `step` reads `table` through a WorkingTableNode.
class RecursiveUnionNode : public PlanNode {
 public:
  RecursiveUnionNode(std::shared_ptr<const Plan> first, std::shared_ptr<const Plan> step,
                     std::shared_ptr<WorkingTable> table, Schema schema, bool all);
  std::string Describe() const override;
  absl::Status ProduceRows(QueryContext* context, RowSink* sink) const override;

 private:
  std::shared_ptr<const Plan> first_, step_;
  // Filled while the node runs: the tree may run more than once, one run at a time (a query's
  // operators run on one thread), each starting from `first` again.
  std::shared_ptr<WorkingTable> table_;
  bool all_;
};

// The rows of a recursive WITH query's step before, read by its next step.
class WorkingTableNode : public PlanNode {
 public:
  WorkingTableNode(Schema schema, std::shared_ptr<WorkingTable> table)
      : PlanNode(std::move(schema), 1, {}), table_(std::move(table)) {}
  std::string Describe() const override;
  absl::Status ProduceRows(QueryContext* context, RowSink* sink) const override;

 private:
  std::shared_ptr<WorkingTable> table_;
};

}  // namespace strata::query
