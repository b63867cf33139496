#include "cluster/scan_call.h"

#include <utility>

#include "common/spare_threads.h"

namespace strata::cluster {
namespace {

class RefusedScan final : public grpc::ServerWriteReactor<grpc::ByteBuffer> {
 public:
  explicit RefusedScan(grpc::Status status) { Finish(std::move(status)); }
  void OnDone() override { delete this; }
};

}  // namespace

grpc::ServerWriteReactor<grpc::ByteBuffer>* ScanCall::Start(Run run) {
  auto call = std::shared_ptr<ScanCall>(new ScanCall());
  call->self_ = call;
  // The thread's reference keeps the call until its run has ended it; gRPC's until OnDone.
  const bool started = SpareThreads::Shared().Run([call, run = std::move(run)] {
    grpc::Status status = run(*call);
    call->End(std::move(status));
  });
  if (!started) {
    call->End(grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                           "the node could not start a thread for the fragment; retry the query"));
  }
  return call.get();
}

grpc::ServerWriteReactor<grpc::ByteBuffer>* ScanCall::Refuse(grpc::Status status) {
  return new RefusedScan(std::move(status));
}

bool ScanCall::Write(grpc::ByteBuffer answer, bool last) {
  absl::MutexLock lock(&mu_);
  auto room = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return queue_.size() < kMaxQueued || cancelled_.load();
  };
  mu_.Await(absl::Condition(&room));
  if (cancelled_.load() || done_) return false;
  queue_.push_back({std::move(answer), last});
  WriteNextLocked();
  return true;
}

void ScanCall::End(grpc::Status status) {
  absl::MutexLock lock(&mu_);
  ended_ = true;
  status_ = std::move(status);
  WriteNextLocked();
}

void ScanCall::OnWriteDone(bool ok) {
  absl::MutexLock lock(&mu_);
  writing_ = false;
  queue_.pop_front();
  if (!ok) cancelled_.store(true);  // the asking node is gone
  WriteNextLocked();
}

void ScanCall::OnCancel() {
  absl::MutexLock lock(&mu_);  // wakes a Write waiting for room
  cancelled_.store(true);
}

void ScanCall::OnDone() {
  {
    absl::MutexLock lock(&mu_);
    queue_.clear();  // a last answer's bytes, in flight until now
  }
  self_.reset();
}

void ScanCall::WriteNextLocked() {
  if (writing_ || done_) return;
  if (!queue_.empty() && !cancelled_.load()) {
    writing_ = true;
    Queued& next = queue_.front();
    if (next.last) {  // the answer and the status as one operation; it stays queued until OnDone
      done_ = true;
      StartWriteAndFinish(&next.bytes, grpc::WriteOptions(), grpc::Status::OK);
      return;
    }
    StartWrite(&next.bytes);
    return;
  }
  if (!ended_) return;
  queue_.clear();
  done_ = true;
  Finish(cancelled_.load() && status_.ok()
             ? grpc::Status(grpc::StatusCode::CANCELLED, "the fragment's call was cancelled")
             : status_);
}

}  // namespace strata::cluster
