// Completion queues of gRPC's async API, each driven by a thread of its own.
// Every call of stratad's services is served on them as a state machine:
// each operation a call starts (await a request, write, finish) carries a
// Tag, and the Tag's step runs on its queue's thread when the operation
// completes. A call stays on the queue it came on.
//
// Why: gRPC 1.51's callback API hands every event to threads of its own
// first (and, once any service uses it, those threads poll every socket and
// take the other calls' events too): on 2 cores a one-page query took ~12
// context switches and ~170 µs of server CPU in gRPC alone that way, ~8 and
// ~115 µs on a queue of its own (bench/grpc_threading_bench; docs/benchmarks.md,
// "Where a small query's time goes"). A queue per thread, as gRPC advises:
// two threads sharing one queue wake each other to take turns at polling,
// which gave back most of the gain (single-groupby-1-1-1: 15–20 context
// switches a query against 11–15). And few queues: every queue's thread
// polls the sockets in turn, and an event read for another thread's call
// costs a wake-up (how many: Server::CallQueueCount).
//
// How calls spread: gRPC offers a new call to the queue its connection polls
// first, then to the others, and takes the first that awaits one. So a
// service awaits its next call on a queue only once the call that came there
// has done its step on the queue's thread (a write request decoded and
// handed to the writer): while that thread is busy, the connection's next
// call goes to another queue, and one client's parallel writes use every
// thread.
//
// Shutdown order: the server first (its calls end, or are cancelled at the
// deadline), then the queues, which wait for every call holding a Lease.
#pragma once

#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "grpcpp/completion_queue.h"
#include "grpcpp/impl/service_type.h"
#include "grpcpp/server_builder.h"
#include "grpcpp/server_context.h"
#include "grpcpp/support/byte_buffer.h"

namespace strata {

class CallQueues {
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

  // Held by every call served on the queues until it is destroyed: Shutdown
  // waits for them, since a call's operations need its queue until then.
  class Lease {
   public:
    explicit Lease(CallQueues* queues);
    ~Lease();
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;

   private:
    CallQueues& queues_;
  };

  // Adds `count` queues to `builder`, before the server is built.
  CallQueues(grpc::ServerBuilder* builder, int count);
  ~CallQueues();  // Shutdown, if it was not called

  const std::vector<std::unique_ptr<grpc::ServerCompletionQueue>>& queues() const {
    return queues_;
  }

  // Starts a thread polling each queue, once the server is built and the
  // services await their first calls.
  void Run();
  // After the server's Shutdown: waits for the calls still alive, then drains
  // the queues and joins their threads.
  void Shutdown();

 private:
  static void Poll(grpc::ServerCompletionQueue* queue);

  std::vector<std::unique_ptr<grpc::ServerCompletionQueue>> queues_;
  std::vector<std::thread> threads_;
  absl::Mutex mu_;
  int64_t calls_ ABSL_GUARDED_BY(mu_) = 0;
  bool shut_ = false;
};

// A service of another module served on the queues (a cluster node's
// internal one): registered with the server's builder, then served.
class QueuedService {
 public:
  virtual grpc::Service* service() = 0;
  // Starts awaiting its calls on `queues` (which must outlive them) once the
  // server is built.
  virtual void Serve(CallQueues* queues) = 0;

 protected:
  ~QueuedService() = default;
};

// The `await` of `Method` of `service` (a generated Request<Method> of a
// WithRawMethod_<Method> base: a unary method's responder or a stream's
// writer), asking for its next call on `queue`.
template <typename Service, typename Base, typename Responder>
auto AwaitWith(Service* service,
               void (Base::*request)(grpc::ServerContext*, grpc::ByteBuffer*, Responder*,
                                     grpc::CompletionQueue*, grpc::ServerCompletionQueue*, void*)) {
  return [service, request](grpc::ServerContext* context, grpc::ByteBuffer* in,
                            Responder* responder, grpc::ServerCompletionQueue* queue, void* tag) {
    (service->*request)(context, in, responder, queue, queue, tag);
  };
}

}  // namespace strata
