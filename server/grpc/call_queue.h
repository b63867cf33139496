// A completion queue of gRPC's async API and the threads that drive it. The
// calls served on it (Query, WriteRecords, BulkWriteRecords) are state
// machines: each operation a call starts (await a request, write, finish)
// carries a Tag, and the Tag's step runs on one of these threads when the
// operation completes.
//
// Why: gRPC 1.51's callback API, which the other services use, hands every
// event to threads of its own first: on 2 cores a one-page query took ~12
// context switches and ~170 µs of server CPU in gRPC alone that way, ~8 and
// ~115 µs on a queue of its own (bench/grpc_threading_bench; docs/benchmarks.md,
// "Where a small query's time goes"). One queue shared by the threads rather
// than a queue per thread (gRPC's advice, which saved a small query another
// ~2 context switches here): gRPC gives every call of a connection to the
// same queue, so one client's parallel bulk writes would be decoded on one
// thread.
//
// Shutdown order: the server first (its calls end, or are cancelled at the
// deadline), then the queue, which waits for every call holding a Lease.
#pragma once

#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "grpcpp/completion_queue.h"
#include "grpcpp/server_builder.h"

namespace strata {

class CallQueue {
 public:
  // What runs when an operation started with this tag completes; `ok` is
  // gRPC's (false: the call or the server ended first).
  class Tag {
   public:
    virtual void Completed(bool ok) = 0;

   protected:
    ~Tag() = default;
  };

  // A Tag that runs `Step` of `owner`.
  template <typename Owner, void (Owner::*Step)(bool)>
  class StepTag final : public Tag {
   public:
    explicit StepTag(Owner* owner) : owner_(owner) {}
    void Completed(bool ok) override { (owner_->*Step)(ok); }

   private:
    Owner* const owner_;
  };

  // Held by every call served on the queue until it is destroyed: Shutdown
  // waits for them, since a call's operations need the queue until then.
  class Lease {
   public:
    explicit Lease(CallQueue* queue);
    ~Lease();
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;

   private:
    CallQueue& queue_;
  };

  // Adds the queue to `builder`, before the server is built.
  explicit CallQueue(grpc::ServerBuilder* builder);
  ~CallQueue();  // Shutdown, if it was not called

  grpc::ServerCompletionQueue* queue() { return queue_.get(); }

  // Starts `threads` threads polling the queue, once the server is built and
  // the services have asked for their first calls.
  void Run(int threads);
  // After the server's Shutdown: waits for the calls still alive, then drains
  // the queue and joins its threads.
  void Shutdown();

 private:
  void Poll();

  std::unique_ptr<grpc::ServerCompletionQueue> queue_;
  std::vector<std::thread> threads_;
  absl::Mutex mu_;
  int64_t calls_ ABSL_GUARDED_BY(mu_) = 0;
  bool shut_ = false;
};

}  // namespace strata
