// A query plan as data: a tree of operator nodes (select_nodes.h,
// source_nodes.h), each with its output schema, its inputs and a line that
// describes it. EXPLAIN prints the tree by walking it; running the plan asks
// the root for its rows, and each node wires its push operator
// (operators.h) in front of the caller's sink and asks its inputs for theirs.
// A node holds no run-time state: the same tree may run more than once (an
// uncorrelated subquery's plan, a WITH query named twice), and a later step
// may cut it into fragments that run elsewhere.
//
// A node produces column batches or rows, whichever its operator is made
// for; the other form is adapted at the seam (MakeBatchesToRows,
// MakeRowsToBatches), so a parent asks for what it consumes.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "query/exec/operators.h"
#include "query/expr/expr.h"

namespace strata::query {

class PlanNode;
using PlanNodePtr = std::shared_ptr<const PlanNode>;

class PlanNode {
 public:
  PlanNode(Schema schema, int64_t estimated_rows, std::vector<PlanNodePtr> inputs)
      : schema_(std::move(schema)), estimated_rows_(estimated_rows), inputs_(std::move(inputs)) {}
  virtual ~PlanNode() = default;
  PlanNode(const PlanNode&) = delete;
  PlanNode& operator=(const PlanNode&) = delete;

  const Schema& schema() const { return schema_; }
  const std::vector<PlanNodePtr>& inputs() const { return inputs_; }
  // A guess of the rows it produces, for choosing a join's build side.
  int64_t estimated_rows() const { return estimated_rows_; }

  // The node's EXPLAIN line: its operator and arguments. Empty for a node
  // that only adapts its input (a subquery's boundary, dropping helper
  // columns): EXPLAIN then shows its inputs in its place.
  virtual std::string Describe() const = 0;

  // The column of input 0 that output `column` carries unchanged, when keeping only the output
  // rows with some values in it is the same as keeping only such input rows (a filter, a
  // projection of the column, a window partitioned by it, a grouping by it; not a LIMIT, which
  // would then take other rows): a join's dynamic filter follows it down to the table scan
  // (ScanBelow). -1: none.
  virtual int ColumnBelow(int /*column*/) const { return -1; }

  // Pushes the node's output into `sink` as batches (valid during each
  // Push), then calls sink->Finish(). Under EXPLAIN ANALYZE (QueryContext::analysis) its rows
  // are counted and its time taken on the way (plan_analysis.h).
  absl::Status RunBatches(QueryContext* context, BatchSink* sink) const;
  // Pushes the node's output into `sink` as rows, then calls sink->Finish(); counted alike.
  absl::Status RunRows(QueryContext* context, RowSink* sink) const;

 protected:
  // What the node does, behind RunBatches and RunRows: each node overrides at least one of the
  // two, and the other adapts.
  virtual absl::Status ProduceBatches(QueryContext* context, BatchSink* sink) const;
  virtual absl::Status ProduceRows(QueryContext* context, RowSink* sink) const;

  const PlanNode& input(size_t i = 0) const { return *inputs_[i]; }
  std::vector<DataType> Types() const;

 private:
  Schema schema_;
  int64_t estimated_rows_;
  std::vector<PlanNodePtr> inputs_;
};

// The lines of EXPLAIN: each node's description, its inputs indented two
// spaces under it.
// With `analysis`, each line says what its node did in the run (DescribeRun).
std::vector<std::string> ExplainLines(const PlanNode& root, const PlanAnalysis* analysis = nullptr);

// A planned query: the tree, its output columns, and what the tree's nodes
// point at (the statement's bound expressions).
struct Plan {
  Schema output;
  PlanNodePtr root;
  // Every node from the source to the result runs on batches (no DISTINCT over
  // groups or windows): RunBatches keeps the result columnar.
  bool columnar = false;
  std::vector<std::shared_ptr<const void>> keep_alive;

  // Pushes every result row into `sink`, then calls sink->Finish(). The
  // query is a pipeline of its own (RunPipeline): its LIMIT stops its scans,
  // not those of a query it feeds.
  absl::Status Run(QueryContext* context, RowSink* sink) const;
  // For a columnar plan: the result as batches.
  absl::Status RunBatches(QueryContext* context, BatchSink* sink) const;
  std::vector<std::string> Explain(const PlanAnalysis* analysis = nullptr) const {
    return ExplainLines(*root, analysis);
  }
  int64_t estimated_rows() const { return root->estimated_rows(); }
};

}  // namespace strata::query
