#include "query/exec/plan_analysis.h"

#include <cstdio>
#include <utility>

#include "common/strings.h"

namespace strata::query {
namespace {

using Clock = std::chrono::steady_clock;

class CountedBatches final : public BatchSink {
 public:
  CountedBatches(BatchSink* next, NodeRun* run) : next_(next), run_(run) {}
  absl::Status Push(const Batch& batch) override {
    run_->rows += static_cast<int64_t>(batch.rows);
    const Clock::time_point start = Clock::now();
    absl::Status pushed = next_->Push(batch);
    run_->downstream_nanos += NanosSince(start);
    return pushed;
  }
  absl::Status Finish() override {
    const Clock::time_point start = Clock::now();
    absl::Status finished = next_->Finish();
    run_->downstream_nanos += NanosSince(start);
    return finished;
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
    const Clock::time_point start = Clock::now();
    absl::Status pushed = next_->Push(std::move(row));
    run_->downstream_nanos += NanosSince(start);
    return pushed;
  }
  absl::Status Finish() override {
    const Clock::time_point start = Clock::now();
    absl::Status finished = next_->Finish();
    run_->downstream_nanos += NanosSince(start);
    return finished;
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

std::unique_ptr<BatchSink> CountBatches(BatchSink* sink, NodeRun* run) {
  return std::make_unique<CountedBatches>(sink, run);
}

std::unique_ptr<RowSink> CountRows(RowSink* sink, NodeRun* run) {
  return std::make_unique<CountedRows>(sink, run);
}

std::string DescribeRun(const NodeRun* run) {
  if (run == nullptr) return " (never ran)";
  char time[32];
  std::snprintf(time, sizeof(time), "%.3f", static_cast<double>(run->nanos()) / 1e6);
  return StrCat(" (actual rows=", run->rows, " loops=", run->loops, " time=", time, " ms)");
}

}  // namespace strata::query
