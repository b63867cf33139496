// EXPLAIN ANALYZE: what each plan node did while the query ran. Every node's output passes
// through a counting sink (PlanNode::RunBatches / RunRows when QueryContext::analysis is set)
// that counts its rows and times its consumers, so a node's time is that of its Run calls less
// the time its consumers took with its rows: in a push pipeline the scan's Run call holds the
// whole query, and the time a filter spends is inside the scan's pushes.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "query/exec/operators.h"

namespace strata::query {

class PlanNode;

// One node's runs.
struct NodeRun {
  int64_t rows = 0;              // handed on
  int64_t loops = 0;             // times it ran (a WITH query's plan read twice, a recursive step)
  int64_t total_nanos = 0;       // inside its Run calls
  int64_t downstream_nanos = 0;  // of which: its consumers', inside its sink

  // Its own time and its inputs', without its consumers'.
  int64_t nanos() const { return total_nanos - downstream_nanos; }
};

// The runs of a query's nodes. One query's operators run on one thread.
class PlanAnalysis {
 public:
  NodeRun& Of(const PlanNode* node) { return runs_[node]; }
  // Null for a node that never ran (a branch a LIMIT never reached, a plan made but not run).
  const NodeRun* Find(const PlanNode* node) const;

 private:
  std::map<const PlanNode*, NodeRun> runs_;
};

// The time since `start`, in nanoseconds.
inline int64_t NanosSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() -
                                                              start)
      .count();
}

// `sink` behind a counter of the rows pushed into it and a clock of the time it takes.
std::unique_ptr<BatchSink> Counted(BatchSink* sink, NodeRun* run);
std::unique_ptr<RowSink> Counted(RowSink* sink, NodeRun* run);

// `produce(sink)`, the node's work; under EXPLAIN ANALYZE into `sink` behind a counter, the
// node's run counted and timed.
template <typename Sink, typename Produce>
absl::Status RunAnalyzed(const PlanNode* node, QueryContext* context, Sink* sink, Produce produce) {
  if (context->analysis == nullptr) return produce(sink);
  NodeRun& run = context->analysis->Of(node);
  const auto start = std::chrono::steady_clock::now();
  absl::Status ran = produce(Counted(sink, &run).get());
  run.total_nanos += NanosSince(start);
  ++run.loops;
  return ran;
}

// ` (actual rows=R loops=L time=T ms)`, or ` (never ran)`.
std::string DescribeRun(const NodeRun* run);

}  // namespace strata::query
