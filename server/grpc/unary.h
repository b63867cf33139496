// The shape of every unary gRPC handler. The call is authenticated first
// (server/auth/authenticator.h: UNAUTHENTICATED before the request is even
// parsed), and the body gets the caller. Methods are served from raw bytes
// (the generated WithRawCallbackMethod_* bases): ServeUnary parses the
// request itself, so a request protobuf cannot parse (random bytes, invalid
// UTF-8 in a string field) gets INVALID_ARGUMENT "could not parse request",
// as the health service answers, instead of the empty UNIMPLEMENTED that
// gRPC's callback API gives when its own parsing fails. Then it runs one body
// that returns an absl::Status, serializes the response and finishes the
// call with the mapped status. Exceptions never escape a handler: one that
// reaches here is reported as INTERNAL.
#pragma once

#include <exception>
#include <string>

#include "absl/status/status.h"
#include "google/protobuf/arena.h"
#include "google/protobuf/message.h"
#include "grpcpp/server_context.h"
#include "grpcpp/support/byte_buffer.h"
#include "grpcpp/support/server_callback.h"
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

// Parses `bytes` into `message`; INVALID_ARGUMENT naming the message type
// when they are not one.
absl::Status ParseRequest(const grpc::ByteBuffer& bytes, google::protobuf::Message* message);
// The first half of a unary call, for handlers that finish it later: the
// caller, with `request` parsed from `in`.
absl::StatusOr<std::shared_ptr<const Principal>> StartUnary(grpc::CallbackServerContext* context,
                                                            const grpc::ByteBuffer* in,
                                                            Authenticator& auth,
                                                            google::protobuf::Message* request);
// Serializes `message` into `bytes`.
absl::Status SerializeResponse(const google::protobuf::Message& message, grpc::ByteBuffer* bytes);

// The caller of `context`'s call, from its `authorization` metadata.
absl::StatusOr<std::shared_ptr<const Principal>> AuthenticateCall(
    Authenticator& auth, const grpc::ServerContextBase& context);

template <typename Request, typename Response, typename Body>
grpc::ServerUnaryReactor* ServeUnary(grpc::CallbackServerContext* context,
                                     const grpc::ByteBuffer* in, grpc::ByteBuffer* out,
                                     Authenticator& auth, Body&& body) {
  google::protobuf::Arena arena(CallArenaOptions());
  Request& request = *google::protobuf::Arena::CreateMessage<Request>(&arena);
  Response& response = *google::protobuf::Arena::CreateMessage<Response>(&arena);
  absl::StatusOr<std::shared_ptr<const Principal>> caller =
      StartUnary(context, in, auth, &request);
  absl::Status status = caller.status();
  try {
    if (status.ok()) status = body(**caller, &request, &response);
  } catch (const std::exception& e) {
    status = absl::InternalError(std::string("unexpected error: ") + e.what());
  }
  if (status.ok()) status = SerializeResponse(response, out);
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(ToGrpcStatus(status));
  return reactor;
}

// Declares the raw override of unary `Method` that serves it through
// ServeUnary from `absl::Status Method(const Principal&, const Request*,
// Response*)`. The service has an `Authenticator& auth_`.
#define STRATA_SERVE_UNARY(Method, Request, Response)                                            \
  grpc::ServerUnaryReactor* Method(grpc::CallbackServerContext* context,                         \
                                   const grpc::ByteBuffer* in, grpc::ByteBuffer* out) override { \
    return ServeUnary<Request, Response>(                                                        \
        context, in, out, auth_,                                                                 \
        [this](const Principal& caller, const Request* request, Response* response) {            \
          return Method(caller, request, response);                                              \
        });                                                                                      \
  }                                                                                              \
  absl::Status Method(const Principal& caller, const Request* request, Response* response)

}  // namespace strata
