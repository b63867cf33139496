// LIMIT, OFFSET and the dropping of ORDER BY's helper columns over column
// batches: the row operators' (operators.cc) counterparts for a result that
// stays columnar to the sink.
#include "query/exec/operators.h"

namespace strata::query {
namespace {

class BatchLimit : public BatchSink {
 public:
  BatchLimit(int64_t limit, QueryContext* context, BatchSink* next)
      : remaining_(limit), context_(context), next_(next) {
    if (remaining_ <= 0) context_->enough = true;
  }
  absl::Status Push(const Batch& batch) override {
    if (remaining_ <= 0 || batch.rows == 0) return absl::OkStatus();
    const auto rows = static_cast<int64_t>(batch.rows);
    if (rows < remaining_) {
      remaining_ -= rows;
      return next_->Push(batch);
    }
    const auto take = static_cast<size_t>(remaining_);
    remaining_ = 0;
    context_->enough = true;
    return next_->Push(take == batch.rows ? batch : SliceRows(batch, 0, take));
  }
  absl::Status Finish() override { return next_->Finish(); }

 private:
  int64_t remaining_;
  QueryContext* context_;
  BatchSink* next_;
};

class BatchOffset : public BatchSink {
 public:
  BatchOffset(int64_t skip, BatchSink* next) : skip_(skip), next_(next) {}
  absl::Status Push(const Batch& batch) override {
    if (skip_ <= 0) return next_->Push(batch);
    const auto rows = static_cast<int64_t>(batch.rows);
    if (rows <= skip_) {
      skip_ -= rows;
      return absl::OkStatus();
    }
    const auto from = static_cast<size_t>(skip_);
    skip_ = 0;
    return next_->Push(SliceRows(batch, from, batch.rows));
  }
  absl::Status Finish() override { return next_->Finish(); }

 private:
  int64_t skip_;
  BatchSink* next_;
};

class BatchTruncate : public BatchSink {
 public:
  BatchTruncate(int width, BatchSink* next) : width_(width), next_(next) {}
  absl::Status Push(const Batch& batch) override {
    Batch out;
    out.rows = batch.rows;
    out.columns.assign(batch.columns.begin(), batch.columns.begin() + width_);
    return next_->Push(out);
  }
  absl::Status Finish() override { return next_->Finish(); }

 private:
  int width_;
  BatchSink* next_;
};

}  // namespace

std::unique_ptr<BatchSink> MakeBatchLimit(int64_t limit, QueryContext* context, BatchSink* next) {
  return std::make_unique<BatchLimit>(limit, context, next);
}
std::unique_ptr<BatchSink> MakeBatchOffset(int64_t skip, BatchSink* next) {
  return std::make_unique<BatchOffset>(skip, next);
}
std::unique_ptr<BatchSink> MakeBatchTruncate(int width, BatchSink* next) {
  return std::make_unique<BatchTruncate>(width, next);
}

}  // namespace strata::query
