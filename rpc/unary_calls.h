// Unary methods served on the CallQueues (rpc/call_queues.h) from raw
// bytes (the generated WithRawMethod_* bases): each call is awaited on a
// queue, answered on a thread of SpareThreads::Shared() (not on the queue's:
// an answer may wait long, on a backup, a cluster's DDL through etcd, a
// shard's log, and the queue's thread serves every other call on it), then
// finished. The server's services add authentication and typed bodies over
// this (server/grpc/unary.h); a cluster node's internal service its
// membership check (cluster/shard_service.h).
#pragma once

#include <functional>
#include <string_view>

#include "absl/status/status.h"
#include "google/protobuf/message.h"
#include "grpcpp/completion_queue.h"
#include "grpcpp/server_context.h"
#include "grpcpp/support/async_unary_call.h"
#include "grpcpp/support/byte_buffer.h"
#include "grpcpp/support/status.h"
#include "rpc/call_queues.h"

namespace strata {

// Parses `bytes` into `message`; INVALID_ARGUMENT naming the message type and
// ending with `hint` when they are not one.
absl::Status ParseRequest(const grpc::ByteBuffer& bytes, google::protobuf::Message* message,
                          std::string_view hint = "generate the client from proto/strata/v1");
// Serializes `message` into `bytes`.
absl::Status SerializeResponse(const google::protobuf::Message& message, grpc::ByteBuffer* bytes);

// One unary method as the queues serve it.
struct UnaryMethod {
  // Asks gRPC for the method's next call (a generated Request<Method> of a
  // WithRawMethod_<Method> base), its completion reported with `tag`.
  std::function<void(grpc::ServerContext* context, grpc::ByteBuffer* request,
                     grpc::ServerAsyncResponseWriter<grpc::ByteBuffer>* responder,
                     grpc::ServerCompletionQueue* queue, void* tag)>
      await;
  // Answers one call: the response's bytes into `response` and OK, or the
  // status the call fails with. An exception fails the call with INTERNAL.
  std::function<grpc::Status(const grpc::ServerContext& context, const grpc::ByteBuffer& request,
                             grpc::ByteBuffer* response)>
      answer;
};

// Serves `method` on every queue of `queues` (which must outlive its calls),
// once the server is built.
void ServeUnaryMethod(CallQueues* queues, UnaryMethod method);

}  // namespace strata
