#include "server/grpc/call_queue.h"

namespace strata {

CallQueue::Lease::Lease(CallQueue* queue) : queue_(*queue) {
  absl::MutexLock lock(&queue_.mu_);
  ++queue_.calls_;
}

CallQueue::Lease::~Lease() {
  absl::MutexLock lock(&queue_.mu_);
  --queue_.calls_;
}

CallQueue::CallQueue(grpc::ServerBuilder* builder) : queue_(builder->AddCompletionQueue()) {}

CallQueue::~CallQueue() { Shutdown(); }

void CallQueue::Run(int threads) {
  for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { Poll(); });
}

void CallQueue::Poll() {
  void* tag = nullptr;
  bool ok = false;
  while (queue_->Next(&tag, &ok)) static_cast<Tag*>(tag)->Completed(ok);
}

void CallQueue::Shutdown() {
  if (shut_) return;
  shut_ = true;
  {
    absl::MutexLock lock(&mu_);
    mu_.Await(absl::Condition(
        +[](int64_t* calls) { return *calls == 0; }, &calls_));
  }
  queue_->Shutdown();
  if (threads_.empty()) Poll();  // never run: drained here, as gRPC requires
  for (std::thread& thread : threads_) thread.join();
  threads_.clear();
}

}  // namespace strata
