#include "server/grpc/status_map.h"

#include "gtest/gtest.h"

namespace strata {
namespace {

TEST(StatusMapTest, MapsEveryCodeAndKeepsTheMessage) {
  struct Case {
    absl::Status in;
    grpc::StatusCode out;
  };
  const std::vector<Case> cases = {
      {absl::InvalidArgumentError("m"), grpc::StatusCode::INVALID_ARGUMENT},
      {absl::NotFoundError("m"), grpc::StatusCode::NOT_FOUND},
      {absl::AlreadyExistsError("m"), grpc::StatusCode::ALREADY_EXISTS},
      {absl::FailedPreconditionError("m"), grpc::StatusCode::FAILED_PRECONDITION},
      {absl::ResourceExhaustedError("m"), grpc::StatusCode::RESOURCE_EXHAUSTED},
      {absl::DeadlineExceededError("m"), grpc::StatusCode::DEADLINE_EXCEEDED},
      {absl::CancelledError("m"), grpc::StatusCode::CANCELLED},
      {absl::PermissionDeniedError("m"), grpc::StatusCode::PERMISSION_DENIED},
      {absl::UnauthenticatedError("m"), grpc::StatusCode::UNAUTHENTICATED},
      {absl::UnavailableError("m"), grpc::StatusCode::UNAVAILABLE},
      {absl::UnimplementedError("m"), grpc::StatusCode::UNIMPLEMENTED},
      {absl::InternalError("m"), grpc::StatusCode::INTERNAL},
      {absl::DataLossError("m"), grpc::StatusCode::DATA_LOSS},
      {absl::AbortedError("m"), grpc::StatusCode::ABORTED},
      {absl::OutOfRangeError("m"), grpc::StatusCode::OUT_OF_RANGE},
      {absl::UnknownError("m"), grpc::StatusCode::UNKNOWN},
  };
  for (const Case& c : cases) {
    grpc::Status mapped = ToGrpcStatus(c.in);
    EXPECT_EQ(mapped.error_code(), c.out) << c.in;
    EXPECT_EQ(mapped.error_message(), "m");
  }
  EXPECT_TRUE(ToGrpcStatus(absl::OkStatus()).ok());
}

}  // namespace
}  // namespace strata
