#include "rpc/streaming_call.h"

#include <exception>
#include <utility>

#include "common/spare_threads.h"
#include "common/strings.h"

namespace strata {

void StreamingCall::Serve(CallQueues* queues, Method method) {
  auto shared = std::make_shared<const Method>(std::move(method));
  for (const auto& queue : queues->queues()) Await(shared, queues, queue.get());
}

StreamingCall::StreamingCall(std::shared_ptr<const Method> method, CallQueues* queues,
                             grpc::ServerCompletionQueue* queue)
    : method_(std::move(method)), queues_(*queues), queue_(queue), lease_(queues) {}

StreamingCall::~StreamingCall() = default;

void StreamingCall::Await(std::shared_ptr<const Method> method, CallQueues* queues,
                          grpc::ServerCompletionQueue* queue) {
  auto call = std::shared_ptr<StreamingCall>(new StreamingCall(std::move(method), queues, queue));
  StreamingCall& c = *call;
  c.awaiting_ref_ = call;
  c.done_ref_ = call;  // let go by Requested when no call comes
  c.context_.AsyncNotifyWhenDone(&c.done_tag_);
  c.method_->await(&c.context_, &c.request_, &c.writer_, queue, &c.requested_tag_);
}

void StreamingCall::Requested(bool ok) {
  std::shared_ptr<StreamingCall> self = std::move(awaiting_ref_);
  if (!ok) {
    done_ref_.reset();  // gRPC sends no done notification for a call never begun
    return;
  }
  Run run;
  grpc::Status started;
  try {
    started = method_->start(context_, request_, &run);
  } catch (const std::exception& e) {
    started = grpc::Status(grpc::StatusCode::INTERNAL, StrCat("unexpected error: ", e.what()));
  }
  if (!started.ok()) {
    absl::MutexLock lock(&mu_);
    FinishLocked(started);
  } else if (!SpareThreads::Shared().Run([self, run = std::move(run)] {
               grpc::Status status;
               try {
                 status = run(*self);
               } catch (const std::exception& e) {
                 status = grpc::Status(grpc::StatusCode::INTERNAL,
                                       StrCat("unexpected error: ", e.what()));
               }
               self->End(std::move(status));
             })) {
    End(grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                     "the node could not start a thread for the call; retry"));
  }
  Await(method_, &queues_, queue_);  // once this call's step is done: call_queues.h
}

bool StreamingCall::Write(grpc::ByteBuffer message, bool last) {
  absl::MutexLock lock(&mu_);
  auto room = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return queued_.size() < method_->max_queued || cancelled_.load();
  };
  mu_.Await(absl::Condition(&room));
  if (cancelled_.load() || done_) return false;
  queued_.push_back({std::move(message), last});
  WriteNextLocked();
  return true;
}

void StreamingCall::End(grpc::Status status) {
  absl::MutexLock lock(&mu_);
  ended_ = true;
  status_ = std::move(status);
  WriteNextLocked();
}

void StreamingCall::WriteDone(bool ok) {
  std::shared_ptr<StreamingCall> ref;  // the operation's; let go after the lock
  absl::MutexLock lock(&mu_);
  ref = std::move(op_ref_);
  writing_ = false;
  if (done_) {  // the status went out (or the call ended first)
    queued_.clear();
    return;
  }
  queued_.pop_front();
  if (!ok) cancelled_.store(true);  // the asker is gone
  WriteNextLocked();
}

void StreamingCall::CallDone(bool /*ok*/) {
  std::shared_ptr<StreamingCall> ref;
  absl::MutexLock lock(&mu_);  // wakes a Write waiting for room
  ref = std::move(done_ref_);
  if (context_.IsCancelled()) cancelled_.store(true);
}

void StreamingCall::WriteNextLocked() {
  if (writing_ || done_) return;
  if (!queued_.empty() && !cancelled_.load()) {
    writing_ = true;
    op_ref_ = shared_from_this();
    Queued& next = queued_.front();
    if (next.last) {  // the message and the status as one operation
      done_ = true;   // it stays queued (its bytes are in flight) until WriteDone
      writer_.WriteAndFinish(next.bytes, grpc::WriteOptions(), grpc::Status::OK, &written_tag_);
      return;
    }
    writer_.Write(next.bytes, &written_tag_);
    return;
  }
  if (!ended_) return;
  queued_.clear();
  FinishLocked(cancelled_.load() && status_.ok()
                   ? grpc::Status(grpc::StatusCode::CANCELLED, "the call was cancelled")
                   : status_);
}

// The call's last operation, once and never beside a write (gRPC allows neither).
void StreamingCall::FinishLocked(const grpc::Status& status) {
  if (done_ || writing_) return;
  done_ = true;
  writing_ = true;
  op_ref_ = shared_from_this();
  writer_.Finish(status, &written_tag_);
}

}  // namespace strata
