// A server-streaming call served on the CallQueues (rpc/call_queues.h) whose
// messages come from a run of its own on a spare thread (common/spare_threads.h):
// a cluster node's fragment of another node's query, or a checkpoint it sends.
// The run writes its messages as they are made: a few wait for the network,
// more make the run wait; a last one goes with the call's status as one
// operation. The asking side's cancellation (or its going away) sets the flag
// the run watches, so no watcher polls the call.
//
// Raw bytes, not messages: a relayed page (a client's page, up to a megabyte)
// is handed to gRPC as it is, not serialized again into its buffer.
//
// Thread-safety: Write from the run's thread; the rest on the queue's.
#pragma once

#include <atomic>
#include <deque>
#include <functional>
#include <memory>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "grpcpp/server_context.h"
#include "grpcpp/support/async_stream.h"
#include "grpcpp/support/byte_buffer.h"
#include "grpcpp/support/status.h"
#include "rpc/call_queues.h"

namespace strata {

class StreamingCall final : public std::enable_shared_from_this<StreamingCall> {
 public:
  // What the run does: the whole call, writing through `call`, until it
  // returns the call's status (OK after a last message written with
  // Write(…, true)).
  using Run = std::function<grpc::Status(StreamingCall& call)>;

  struct Method {
    // Asks gRPC for the method's next call (a generated Request<Method> of a
    // WithRawMethod_<Method> base), its completion reported with `tag`.
    std::function<void(grpc::ServerContext* context, grpc::ByteBuffer* request,
                       grpc::ServerAsyncWriter<grpc::ByteBuffer>* writer,
                       grpc::ServerCompletionQueue* queue, void* tag)>
        await;
    // On the queue's thread, so quick: checks the call and its request and
    // sets `run`, or returns the status that refuses it.
    std::function<grpc::Status(const grpc::ServerContext& context, const grpc::ByteBuffer& request,
                               Run* run)>
        start;
    // Messages queued ahead of the network before the run waits.
    size_t max_queued = 2;
  };

  // Serves `method` on every queue of `queues` (which must outlive its calls)
  // once the server is built.
  static void Serve(CallQueues* queues, Method method);

  // Sends one message; `last` ends the stream. Waits while max_queued wait.
  // False once the asker went away or cancelled the call: the run is to stop.
  bool Write(grpc::ByteBuffer message, bool last);
  // Set when the call is cancelled or a write fails.
  const std::atomic<bool>& cancelled() const { return cancelled_; }

  ~StreamingCall();

 private:
  StreamingCall(std::shared_ptr<const Method> method, CallQueues* queues,
                grpc::ServerCompletionQueue* queue);
  static void Await(std::shared_ptr<const Method> method, CallQueues* queues,
                    grpc::ServerCompletionQueue* queue);

  // The steps, on the queue's thread.
  void Requested(bool ok);
  void WriteDone(bool ok);
  void CallDone(bool ok);

  // The end of the run: its status goes once the queued messages are written.
  void End(grpc::Status status);
  void WriteNextLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void FinishLocked(const grpc::Status& status) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::shared_ptr<const Method> method_;
  CallQueues& queues_;
  grpc::ServerCompletionQueue* const queue_;  // the one the call came on
  CallQueues::Lease lease_;
  grpc::ServerContext context_;
  grpc::ByteBuffer request_;
  grpc::ServerAsyncWriter<grpc::ByteBuffer> writer_{&context_};
  std::atomic<bool> cancelled_{false};
  // gRPC's operations' references to the call, each let go when its step runs.
  std::shared_ptr<StreamingCall> awaiting_ref_;  // the request awaited
  std::shared_ptr<StreamingCall> done_ref_;      // the done notification
  absl::Mutex mu_;
  std::shared_ptr<StreamingCall> op_ref_ ABSL_GUARDED_BY(mu_);  // a write or the finish
  struct Queued {
    grpc::ByteBuffer bytes;
    bool last = false;
  };
  std::deque<Queued> queued_ ABSL_GUARDED_BY(mu_);
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  bool ended_ ABSL_GUARDED_BY(mu_) = false;  // End called: status_ is the call's
  bool done_ ABSL_GUARDED_BY(mu_) = false;   // the finish started (or a last message's write)
  grpc::Status status_ ABSL_GUARDED_BY(mu_);
  CallQueues::StepTag<StreamingCall, &StreamingCall::Requested> requested_tag_{this};
  CallQueues::StepTag<StreamingCall, &StreamingCall::WriteDone> written_tag_{this};
  CallQueues::StepTag<StreamingCall, &StreamingCall::CallDone> done_tag_{this};
};

}  // namespace strata
