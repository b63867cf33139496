// The one place where engine errors become gRPC statuses.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "grpcpp/support/status.h"

namespace strata {

grpc::Status ToGrpcStatus(const absl::Status& status);

}  // namespace strata
