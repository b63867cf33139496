#include "query/exec/plan_analysis.h"

#include <cstdio>
#include <utility>

#include "common/strings.h"

namespace strata::query {
namespace {

// Runs `downstream` (the consumer's work), adding its time to the run's.
template <typename Downstream>
absl::Status Timed(NodeRun* run, Downstream downstream) {
  const auto start = std::chrono::steady_clock::now();
  absl::Status status = downstream();
  run->downstream_nanos += NanosSince(start);
  return status;
}

class CountedBatches final : public BatchSink {
 public:
  CountedBatches(BatchSink* next, NodeRun* run) : next_(next), run_(run) {}
  absl::Status Push(const Batch& batch) override {
    run_->rows += static_cast<int64_t>(batch.rows);
    return Timed(run_, [&] { return next_->Push(batch); });
  }
  absl::Status Finish() override {
    return Timed(run_, [&] { return next_->Finish(); });
  }

 private:
  BatchSink* next_;
  NodeRun* run_;
};

class CountedRows final : public RowSink {
 public:
  CountedRows(RowSink* next, NodeRun* run) : next_(next), run_(run) {}
  absl::Status Push(Row row) override {
    ++run_->rows;
    return Timed(run_, [&] { return next_->Push(std::move(row)); });
  }
  absl::Status Finish() override {
    return Timed(run_, [&] { return next_->Finish(); });
  }

 private:
  RowSink* next_;
  NodeRun* run_;
};

}  // namespace

const NodeRun* PlanAnalysis::Find(const PlanNode* node) const {
  const auto it = runs_.find(node);
  return it == runs_.end() ? nullptr : &it->second;
}

std::unique_ptr<BatchSink> Counted(BatchSink* sink, NodeRun* run) {
  return std::make_unique<CountedBatches>(sink, run);
}

std::unique_ptr<RowSink> Counted(RowSink* sink, NodeRun* run) {
  return std::make_unique<CountedRows>(sink, run);
}

std::string DescribeRun(const NodeRun* run) {
  if (run == nullptr) return " (never ran)";
  char time[32];
  std::snprintf(time, sizeof(time), "%.3f", static_cast<double>(run->nanos()) / 1e6);
  return StrCat(" (actual rows=", run->rows, " loops=", run->loops, " time=", time, " ms)");
}

}  // namespace strata::query
