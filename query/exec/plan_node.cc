#include "query/exec/plan_node.h"

#include <set>

#include "query/exec/plan_analysis.h"

namespace strata::query {
namespace {

// A plan is a tree but for a WITH query's plan, which each of its readings has below it: its
// nodes are printed at the first reading, and only named at the others (printed whole at each,
// WITH queries reading the one before twice made 2^n lines of n).
void AppendExplain(const PlanNode& node, int depth, const PlanAnalysis* analysis,
                   std::set<const PlanNode*>* shown, std::vector<std::string>* lines) {
  std::string line = node.Describe();
  if (!line.empty()) {
    const bool again = !shown->insert(&node).second;
    if (analysis != nullptr && !again) line += DescribeRun(analysis->Find(&node));
    lines->push_back(std::string(depth * 2, ' ') + line + (again ? " (as above)" : ""));
    if (again) return;
    ++depth;
  }
  for (const PlanNodePtr& input : node.inputs()) {
    AppendExplain(*input, depth, analysis, shown, lines);
  }
}

}  // namespace

std::vector<DataType> PlanNode::Types() const {
  std::vector<DataType> types;
  types.reserve(schema_.size());
  for (const ColumnInfo& c : schema_) types.push_back(c.type);
  return types;
}

absl::Status PlanNode::RunBatches(QueryContext* context, BatchSink* sink) const {
  return RunAnalyzed(this, context, sink,
                     [&](BatchSink* out) { return ProduceBatches(context, out); });
}

absl::Status PlanNode::RunRows(QueryContext* context, RowSink* sink) const {
  return RunAnalyzed(this, context, sink, [&](RowSink* out) { return ProduceRows(context, out); });
}

absl::Status PlanNode::ProduceBatches(QueryContext* context, BatchSink* sink) const {
  return ProduceRows(context, MakeRowsToBatches(Types(), context, sink).get());
}

absl::Status PlanNode::ProduceRows(QueryContext* context, RowSink* sink) const {
  return ProduceBatches(context,
                        MakeBatchesToRows(static_cast<int>(schema_.size()), context, sink).get());
}

std::vector<std::string> ExplainLines(const PlanNode& root, const PlanAnalysis* analysis) {
  std::vector<std::string> lines;
  std::set<const PlanNode*> shown;
  AppendExplain(root, 0, analysis, &shown, &lines);
  return lines;
}

absl::Status Plan::Run(QueryContext* context, RowSink* sink) const {
  return RunPipeline(context, sink, [&](RowSink* out) { return root->RunRows(context, out); });
}

absl::Status Plan::RunBatches(QueryContext* context, BatchSink* sink) const {
  // A pipeline of its own, as in Run: its LIMIT's "enough" starts unset.
  const bool outer_enough = context->enough.exchange(false);
  absl::Status ran = root->RunBatches(context, sink);
  context->enough = outer_enough;
  return ran;
}

}  // namespace strata::query
