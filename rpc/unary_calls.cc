#include "rpc/unary_calls.h"

#include <exception>
#include <memory>
#include <utility>

#include "common/spare_threads.h"
#include "common/strings.h"
#include "grpcpp/impl/codegen/proto_utils.h"
#include "grpcpp/support/proto_buffer_reader.h"

namespace strata {
namespace {

// One call of a unary method: awaited on one of the queues, answered on a
// spare thread, finished, then deleted when its finish completes (the only
// operation it has in flight by then).
class UnaryCall final {
 public:
  // Asks gRPC for `method`'s next call on `queue`.
  static void Await(std::shared_ptr<const UnaryMethod> method, CallQueues* queues,
                    grpc::ServerCompletionQueue* queue) {
    auto* call = new UnaryCall(std::move(method), queues, queue);
    call->method_->await(&call->context_, &call->request_, &call->responder_, queue,
                         &call->requested_tag_);
  }

 private:
  UnaryCall(std::shared_ptr<const UnaryMethod> method, CallQueues* queues,
            grpc::ServerCompletionQueue* queue)
      : method_(std::move(method)), queues_(*queues), queue_(queue), lease_(queues) {}

  // A request came (ok), or the server is shutting down and none will.
  void Requested(bool ok) {
    if (!ok) {
      delete this;  // never begun: nothing in flight
      return;
    }
    // The next call awaited first: once the answer runs, this call may be
    // finished and gone at any moment.
    Await(method_, &queues_, queue_);
    if (!SpareThreads::Shared().Run([this] { Answer(); })) {
      Finish(grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                          "no thread to answer the call: the server is at its thread limit "
                          "(ulimit -u, a container's pids limit); retry when fewer calls are "
                          "in flight"));
    }
  }

  void Answer() {
    grpc::Status status;
    try {
      status = method_->answer(context_, request_, &response_);
    } catch (const std::exception& e) {
      status = grpc::Status(grpc::StatusCode::INTERNAL, StrCat("unexpected error: ", e.what()));
    }
    Finish(status);
  }

  void Finish(const grpc::Status& status) {
    if (status.ok()) {
      responder_.Finish(response_, grpc::Status::OK, &finished_tag_);
    } else {
      responder_.FinishWithError(status, &finished_tag_);
    }
  }

  void Finished(bool /*ok*/) { delete this; }

  const std::shared_ptr<const UnaryMethod> method_;
  CallQueues& queues_;
  grpc::ServerCompletionQueue* const queue_;  // the one the call came on
  CallQueues::Lease lease_;
  grpc::ServerContext context_;
  grpc::ByteBuffer request_;
  grpc::ByteBuffer response_;
  grpc::ServerAsyncResponseWriter<grpc::ByteBuffer> responder_{&context_};
  CallQueues::StepTag<UnaryCall, &UnaryCall::Requested> requested_tag_{this};
  CallQueues::StepTag<UnaryCall, &UnaryCall::Finished> finished_tag_{this};
};

}  // namespace

void ServeUnaryMethod(CallQueues* queues, UnaryMethod method) {
  auto shared = std::make_shared<const UnaryMethod>(std::move(method));
  for (const auto& queue : queues->queues()) UnaryCall::Await(shared, queues, queue.get());
}

absl::Status ParseRequest(const grpc::ByteBuffer& bytes, google::protobuf::Message* message,
                          std::string_view hint) {
  grpc::ByteBuffer copy(bytes);  // the reader consumes its buffer
  grpc::ProtoBufferReader reader(&copy);
  if (!reader.status().ok() || !message->ParseFromZeroCopyStream(&reader)) {
    return absl::InvalidArgumentError(StrCat("could not parse request: the bytes are not a ",
                                             message->GetTypeName(),
                                             " (strings must be valid UTF-8); ", hint));
  }
  return absl::OkStatus();
}

absl::Status SerializeResponse(const google::protobuf::Message& message, grpc::ByteBuffer* bytes) {
  bool own = false;
  grpc::Status status =
      grpc::SerializationTraits<google::protobuf::Message>::Serialize(message, bytes, &own);
  if (!status.ok()) return absl::InternalError("could not serialize the response");
  return absl::OkStatus();
}

}  // namespace strata
