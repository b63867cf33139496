// The one place where engine errors become gRPC statuses.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "grpcpp/support/status.h"

namespace strata {

grpc::Status ToGrpcStatus(const absl::Status& status);

// gRPC's name of a status code ("INVALID_ARGUMENT"), for logs and metrics.
std::string GrpcCodeName(int code);
inline std::string GrpcCodeName(grpc::StatusCode code) { return GrpcCodeName(static_cast<int>(code)); }

}  // namespace strata
