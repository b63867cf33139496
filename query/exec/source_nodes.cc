#include "query/exec/source_nodes.h"

#include <algorithm>

#include "common/status.h"
#include "common/strings.h"
#include "query/exec/set_operation.h"

namespace strata::query {
namespace {

TableScan::Spec WithHooks(TableScan::Spec spec, std::shared_ptr<bool> last_point_only,
                          std::shared_ptr<std::function<bool(int64_t)>> enough_before,
                          std::shared_ptr<HeaderAggregation> header_aggregation,
                          std::shared_ptr<std::vector<bool>> columns_read,
                          std::shared_ptr<SeriesRestriction> restrict_series) {
  spec.last_point_only = std::move(last_point_only);
  spec.enough_before = std::move(enough_before);
  spec.header_aggregation = std::move(header_aggregation);
  spec.columns_read = std::move(columns_read);
  spec.restrict_series = std::move(restrict_series);
  return spec;
}

}  // namespace

TableScanNode::TableScanNode(Schema schema, int64_t estimated_rows, TableScan::Spec spec,
                             QueryStats* stats, std::string description)
    : PlanNode(std::move(schema), estimated_rows, {}),
      columns_read_(std::make_shared<std::vector<bool>>(this->schema().size(), false)),
      scan_(WithHooks(spec, last_point_only_, enough_before_, header_aggregation_, columns_read_,
                      restrict_series_)),
      stats_(stats),
      description_(std::move(description)),
      series_columns_(spec.layout->series_columns),
      time_column_(spec.layout->time_column) {}

void TableScanNode::ReadLastPointsOnly() { *last_point_only_ = true; }

std::shared_ptr<HeaderAggregation> TableScanNode::AggregateBlocks(
    std::vector<const Expr*> keys, std::vector<AggregateSpec> aggregates) {
  header_aggregation_->keys = std::move(keys);
  header_aggregation_->aggregates = std::move(aggregates);
  block_aggregates_ = true;
  return header_aggregation_;
}

NewestFirstStop TableScanNode::ReadNewestFirst(int64_t limit) {
  newest_first_ = true;
  return {enough_before_, limit};
}

std::string TableScanNode::Describe() const {
  std::string out = description_;
  if (*last_point_only_) out += " last-point-per-series";
  if (block_aggregates_) out += " block-aggregates";
  if (newest_first_) out += " newest-first";
  if (show_columns_) {
    const std::vector<bool>& read = *columns_read_;
    out += StrCat(" columns=", std::count(read.begin(), read.end(), true), "/", read.size());
  }
  return out;
}

absl::Status TableScanNode::ProduceBatches(QueryContext* context, BatchSink* sink) const {
  return scan_.Run(context, stats_, sink);
}

absl::Status RowsNode::ProduceRows(QueryContext*, RowSink* sink) const {
  for (const Row& row : *rows_) RETURN_IF_ERROR(sink->Push(row));
  return sink->Finish();
}

absl::Status OneRowNode::ProduceBatches(QueryContext*, BatchSink* sink) const {
  Batch one_row;
  one_row.rows = 1;
  RETURN_IF_ERROR(sink->Push(one_row));
  return sink->Finish();
}

absl::Status SubqueryNode::ProduceBatches(QueryContext* context, BatchSink* sink) const {
  return RunBatchPipeline(context, sink,
                          [&](BatchSink* out) { return inner_->root->RunBatches(context, out); });
}

absl::Status SubqueryNode::ProduceRows(QueryContext* context, RowSink* sink) const {
  return inner_->Run(context, sink);
}

std::string KeptRowsNode::Describe() const {
  return StrCat("WithQuery \"", name_, "\" (made once, read again)");
}

namespace {

// Hands each row on and keeps a copy, counted against the query's memory, unless the rows
// would not fit (they are then let go: the next reading runs the query again, as it would
// have without keeping) or the reading stopped the query early (its LIMIT: a prefix).
class KeepRows : public RowSink {
 public:
  KeepRows(QueryContext* context, RowSink* next) : context_(context), next_(next) {}
  absl::Status Push(Row row) override {
    if (keeping_) Keep(row);
    RETURN_IF_ERROR(next_->Push(std::move(row)));
    if (context_->enough.load()) LetGo();
    return absl::OkStatus();
  }
  absl::Status Finish() override { return next_->Finish(); }

  // The rows, if all of them were kept.
  std::shared_ptr<const std::vector<Row>> Kept() {
    if (!keeping_) return nullptr;
    return std::make_shared<const std::vector<Row>>(std::move(rows_));
  }

 private:
  void Keep(const Row& row) {
    const int64_t bytes = RowBytes(row);
    if (!context_->Reserve(bytes, "a WITH query read more than once").ok()) {
      context_->Release(bytes);
      LetGo();
      return;
    }
    bytes_ += bytes;
    rows_.push_back(row);
  }
  void LetGo() {
    context_->Release(bytes_);
    bytes_ = 0;
    rows_ = {};
    keeping_ = false;
  }

  QueryContext* context_;
  RowSink* next_;
  std::vector<Row> rows_;
  int64_t bytes_ = 0;
  bool keeping_ = true;
};

}  // namespace

absl::Status KeptRowsNode::ProduceRows(QueryContext* context, RowSink* sink) const {
  const void* key = inner_.get();
  if (auto it = context->kept_rows.find(key); it != context->kept_rows.end()) {
    const std::shared_ptr<const std::vector<Row>> kept = it->second;
    for (const Row& row : *kept) {
      RETURN_IF_ERROR(context->Tick());
      RETURN_IF_ERROR(sink->Push(row));
      if (context->enough.load()) break;
    }
    return sink->Finish();
  }
  KeepRows keep(context, sink);
  RETURN_IF_ERROR(inner_->Run(context, &keep));
  if (auto kept = keep.Kept()) context->kept_rows.emplace(key, std::move(kept));
  return absl::OkStatus();
}

absl::Status JoinNode::ProduceBatches(QueryContext* context, BatchSink* sink) const {
  return RunJoin(
      *spec_, [&](BatchSink* left) { return input(0).RunBatches(context, left); },
      [&](BatchSink* right) { return input(1).RunBatches(context, right); }, context, sink);
}

UnnestNode::UnnestNode(PlanNodePtr input, Schema schema, std::shared_ptr<const UnnestSpec> spec,
                       std::shared_ptr<const void> owner, std::string description)
    : PlanNode(std::move(schema),
               input->estimated_rows() > INT64_MAX / 16 ? INT64_MAX : input->estimated_rows() * 16,
               {input}),
      spec_(std::move(spec)),
      owner_(std::move(owner)),
      description_(std::move(description)) {}

absl::Status UnnestNode::ProduceBatches(QueryContext* context, BatchSink* sink) const {
  return input().RunBatches(context, MakeUnnest(spec_.get(), context, sink).get());
}

SetOperationNode::SetOperationNode(std::shared_ptr<const Plan> left,
                                   std::shared_ptr<const Plan> right, Schema schema,
                                   SetOperation op, bool all, std::string name)
    : PlanNode(std::move(schema),
               op == SetOperation::kUnion ? left->estimated_rows() + right->estimated_rows()
                                          : left->estimated_rows(),
               {left->root, right->root}),
      left_(std::move(left)),
      right_(std::move(right)),
      op_(op),
      all_(all),
      name_(std::move(name)) {}

absl::Status SetOperationNode::ProduceRows(QueryContext* context, RowSink* sink) const {
  return RunSetOperation(
      op_, all_, [&](RowSink* out) { return left_->Run(context, out); },
      [&](RowSink* out) { return right_->Run(context, out); }, Types(), context, sink);
}

RecursiveUnionNode::RecursiveUnionNode(std::shared_ptr<const Plan> first,
                                       std::shared_ptr<const Plan> step,
                                       std::shared_ptr<WorkingTable> table, Schema schema, bool all)
    : PlanNode(std::move(schema), first->estimated_rows() + step->estimated_rows(),
               {first->root, step->root}),
      first_(std::move(first)),
      step_(std::move(step)),
      table_(std::move(table)),
      all_(all) {}

std::string RecursiveUnionNode::Describe() const {
  return StrCat("Recursive UNION", all_ ? " ALL" : "", " (", table_->name, ")");
}

absl::Status RecursiveUnionNode::ProduceRows(QueryContext* context, RowSink* sink) const {
  return RunRecursiveUnion(
      all_, [&](RowSink* out) { return first_->Run(context, out); },
      [&](RowSink* out) { return step_->Run(context, out); }, table_.get(), Types(), context, sink);
}

std::string WorkingTableNode::Describe() const {
  return StrCat("Rows of the step before (", table_->name, ")");
}

absl::Status WorkingTableNode::ProduceRows(QueryContext* context, RowSink* sink) const {
  if (!table_->reading) {
    return absl::InvalidArgumentError(
        StrCat("the recursive WITH query \"", table_->name,
               "\" is read in a subquery of an expression, which runs before its steps; read it "
               "in FROM (a join or a subquery in FROM)"));
  }
  for (const Row& row : table_->rows) {
    RETURN_IF_ERROR(context->Tick());
    RETURN_IF_ERROR(sink->Push(row));
    if (context->enough.load()) break;
  }
  return sink->Finish();
}

}  // namespace strata::query
