// The shape of every unary gRPC handler: run one body that returns an
// absl::Status, finish the call with its mapped status. Exceptions never
// escape a handler: one that reaches here is reported as INTERNAL.
#pragma once

#include <exception>
#include <string>

#include "absl/status/status.h"
#include "grpcpp/support/server_callback.h"
#include "grpcpp/server_context.h"
#include "server/status_map.h"

namespace strata {

template <typename Body>
grpc::ServerUnaryReactor* FinishUnary(grpc::CallbackServerContext* context, Body&& body) {
  absl::Status status;
  try {
    status = body();
  } catch (const std::exception& e) {
    status = absl::InternalError(std::string("unexpected error: ") + e.what());
  }
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(ToGrpcStatus(status));
  return reactor;
}

}  // namespace strata
