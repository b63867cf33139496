// The shape of every unary gRPC method of Strata's: served through gRPC's
// async API on the server's CallQueues (server/grpc/call_queues.h), from raw
// bytes (the generated WithRawMethod_* bases). Each call is authenticated
// first (server/auth/authenticator.h: UNAUTHENTICATED before the request is
// even parsed), then its request parsed here, so bytes that are not one
// (random bytes, invalid UTF-8 in a string field) get INVALID_ARGUMENT
// "could not parse request" instead of the empty status gRPC gives when its
// own parsing fails. Then one body runs that returns an absl::Status, and the
// response is serialized and the call finished with the mapped status.
// Exceptions never escape a body: one that does is reported as INTERNAL.
//
// The body runs on a thread of SpareThreads::Shared(), not on the queue's:
// bodies may wait long (a backup, a cluster's DDL through etcd, a scheduled
// query's run), and a queue's thread serves every other call on it.
#pragma once

#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "google/protobuf/arena.h"
#include "google/protobuf/message.h"
#include "grpcpp/completion_queue.h"
#include "grpcpp/server_context.h"
#include "grpcpp/support/async_unary_call.h"
#include "grpcpp/support/byte_buffer.h"
#include "server/auth/authenticator.h"
#include "server/grpc/call_queues.h"
#include "server/grpc/status_map.h"

namespace strata {

// Options for the arena a call's messages live on: a WriteRecords request is
// ~2,000 strings and sub-messages, which one by one were ~10% of the
// server's CPU per record to allocate and free.
inline google::protobuf::ArenaOptions CallArenaOptions() {
  google::protobuf::ArenaOptions options;
  options.start_block_size = 4096;
  options.max_block_size = 64 * 1024;
  return options;
}

// Parses `bytes` into `message`; INVALID_ARGUMENT naming the message type and
// ending with `hint` when they are not one.
absl::Status ParseRequest(const grpc::ByteBuffer& bytes, google::protobuf::Message* message,
                          std::string_view hint = "generate the client from proto/strata/v1");
// Serializes `message` into `bytes`.
absl::Status SerializeResponse(const google::protobuf::Message& message, grpc::ByteBuffer* bytes);

// The caller of `context`'s call, from its `authorization` metadata.
absl::StatusOr<std::shared_ptr<const Principal>> AuthenticateCall(
    Authenticator& auth, const grpc::ServerContextBase& context);

// One unary method as the queues serve it.
struct UnaryMethod {
  // Asks gRPC for the method's next call (a generated Request<Method> of a
  // WithRawMethod_<Method> base), its completion reported with `tag`.
  std::function<void(grpc::ServerContext* context, grpc::ByteBuffer* request,
                     grpc::ServerAsyncResponseWriter<grpc::ByteBuffer>* responder,
                     grpc::ServerCompletionQueue* queue, void* tag)>
      await;
  // Answers one call: the response's bytes into `response`, or the status
  // the call fails with.
  std::function<absl::Status(const grpc::ServerContext& context, const grpc::ByteBuffer& request,
                             grpc::ByteBuffer* response)>
      answer;
};

// Serves `method` on every queue of `queues` (which must outlive its calls),
// once the server is built.
void ServeUnaryMethod(CallQueues* queues, UnaryMethod method);

// Serves `Method` of `service`: `await` is its generated Request<Method>,
// `body` the service's `absl::Status Method(const Principal&, const Request*,
// Response*)`. `service` and `auth` must outlive its calls.
template <typename Service, typename Base, typename Request, typename Response>
void ServeUnary(CallQueues* queues, Authenticator& auth, Service* service,
                void (Base::*await)(grpc::ServerContext*, grpc::ByteBuffer*,
                                    grpc::ServerAsyncResponseWriter<grpc::ByteBuffer>*,
                                    grpc::CompletionQueue*, grpc::ServerCompletionQueue*, void*),
                absl::Status (Service::*body)(const Principal&, const Request*, Response*)) {
  UnaryMethod method;
  method.await = [service, await](grpc::ServerContext* context, grpc::ByteBuffer* request,
                                  grpc::ServerAsyncResponseWriter<grpc::ByteBuffer>* responder,
                                  grpc::ServerCompletionQueue* queue, void* tag) {
    (service->*await)(context, request, responder, queue, queue, tag);
  };
  method.answer = [&auth, service, body](const grpc::ServerContext& context,
                                         const grpc::ByteBuffer& in,
                                         grpc::ByteBuffer* out) -> absl::Status {
    absl::StatusOr<std::shared_ptr<const Principal>> caller = AuthenticateCall(auth, context);
    if (!caller.ok()) return caller.status();
    google::protobuf::Arena arena(CallArenaOptions());
    Request& request = *google::protobuf::Arena::CreateMessage<Request>(&arena);
    Response& response = *google::protobuf::Arena::CreateMessage<Response>(&arena);
    if (absl::Status parsed = ParseRequest(in, &request); !parsed.ok()) return parsed;
    if (absl::Status status = (service->*body)(**caller, &request, &response); !status.ok()) {
      return status;
    }
    return SerializeResponse(response, out);
  };
  ServeUnaryMethod(queues, std::move(method));
}

// Declares the body of unary `Method`, served by ServeUnary from the
// service's Serve.
#define STRATA_SERVE_UNARY(Method, Request, Response) \
  absl::Status Method(const Principal& caller, const Request* request, Response* response)

}  // namespace strata
