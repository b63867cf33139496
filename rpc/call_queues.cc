#include "rpc/call_queues.h"

#include <pthread.h>

#include <string>

namespace strata {

CallQueues::Lease::Lease(CallQueues* queues) : queues_(*queues) {
  absl::MutexLock lock(&queues_.mu_);
  ++queues_.calls_;
}

CallQueues::Lease::~Lease() {
  absl::MutexLock lock(&queues_.mu_);
  --queues_.calls_;
}

CallQueues::CallQueues(grpc::ServerBuilder* builder, int count) {
  for (int i = 0; i < count; ++i) queues_.push_back(builder->AddCompletionQueue());
}

CallQueues::~CallQueues() { Shutdown(); }

void CallQueues::Run() {
  for (auto& queue : queues_) {
    threads_.emplace_back(
        [queue = queue.get(), name = "grpc-calls-" + std::to_string(threads_.size())] {
          pthread_setname_np(pthread_self(), name.c_str());  // for top -H and perf
          Poll(queue);
        });
  }
}

void CallQueues::Poll(grpc::ServerCompletionQueue* queue) {
  void* tag = nullptr;
  bool ok = false;
  while (queue->Next(&tag, &ok)) static_cast<Tag*>(tag)->Completed(ok);
}

void CallQueues::Shutdown() {
  if (shut_) return;
  shut_ = true;
  {
    absl::MutexLock lock(&mu_);
    mu_.Await(absl::Condition(
        +[](int64_t* calls) { return *calls == 0; }, &calls_));
  }
  for (auto& queue : queues_) queue->Shutdown();
  if (threads_.empty()) {  // never run: drained here, as gRPC requires
    for (auto& queue : queues_) Poll(queue.get());
  }
  for (std::thread& thread : threads_) thread.join();
  threads_.clear();
}

}  // namespace strata
