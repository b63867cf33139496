// The shape of every unary gRPC method of Strata's services: served on the
// server's CallQueues from raw bytes, answered on a spare thread
// (rpc/unary_calls.h). Each call is authenticated first
// (server/auth/authenticator.h: UNAUTHENTICATED before the request is even
// parsed), then its request parsed here, so bytes that are not one (random
// bytes, invalid UTF-8 in a string field) get INVALID_ARGUMENT "could not
// parse request" instead of the empty status gRPC gives when its own parsing
// fails. Then one body runs that returns an absl::Status, and the response is
// serialized and the call finished with the mapped status.
#pragma once

#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "google/protobuf/arena.h"
#include "grpcpp/server_context.h"
#include "rpc/call_queues.h"
#include "rpc/unary_calls.h"
#include "server/auth/authenticator.h"
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

// The caller of `context`'s call, from its `authorization` metadata.
absl::StatusOr<std::shared_ptr<const Principal>> AuthenticateCall(
    Authenticator& auth, const grpc::ServerContextBase& context);

// Serves `Method` of `service`: `request` is its generated Request<Method>,
// `body` the service's `absl::Status Method(const Principal&, const Request*,
// Response*)`. `service` and `auth` must outlive its calls.
template <typename Service, typename Base, typename Request, typename Response>
void ServeUnary(CallQueues* queues, Authenticator& auth, Service* service,
                void (Base::*request)(grpc::ServerContext*, grpc::ByteBuffer*,
                                      grpc::ServerAsyncResponseWriter<grpc::ByteBuffer>*,
                                      grpc::CompletionQueue*, grpc::ServerCompletionQueue*, void*),
                absl::Status (Service::*body)(const Principal&, const Request*, Response*)) {
  auto answer = [&auth, service, body](const grpc::ServerContext& context,
                                       const grpc::ByteBuffer& in, grpc::ByteBuffer* out) {
    absl::StatusOr<std::shared_ptr<const Principal>> caller = AuthenticateCall(auth, context);
    if (!caller.ok()) return ToGrpcStatus(caller.status());
    google::protobuf::Arena arena(CallArenaOptions());
    Request& parsed = *google::protobuf::Arena::CreateMessage<Request>(&arena);
    Response& response = *google::protobuf::Arena::CreateMessage<Response>(&arena);
    absl::Status status = ParseRequest(in, &parsed);
    if (status.ok()) status = (service->*body)(**caller, &parsed, &response);
    if (status.ok()) status = SerializeResponse(response, out);
    return ToGrpcStatus(status);
  };
  ServeUnaryMethod(queues, {.await = AwaitWith(service, request), .answer = std::move(answer)});
}

// Declares the body of unary `Method`, served by ServeUnary from the
// service's Serve.
#define STRATA_SERVE_UNARY(Method, Request, Response) \
  absl::Status Method(const Principal& caller, const Request* request, Response* response)

}  // namespace strata
