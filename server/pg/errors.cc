#include "server/pg/errors.h"

#include "common/strings.h"

namespace strata::pg {

std::string_view SqlState(const absl::Status& status) {
  const std::string_view m(status.message().data(), status.message().size());
  switch (status.code()) {
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kFailedPrecondition:
    case absl::StatusCode::kOutOfRange:
      if (Contains(m, "current transaction is aborted")) return "25P02";
      if (Contains(m, "can only be used in transaction blocks")) return "25P01";
      if (Contains(m, "invalid input syntax for type")) return "22P02";
      if (Contains(m, "invalid value for parameter")) return "22023";
      if (Contains(m, "Division by zero")) return "22012";
      if (Contains(m, "column \"") && Contains(m, "does not exist")) return "42703";
      if (Contains(m, "is ambiguous")) return "42702";
      if (Contains(m, "function ") && Contains(m, "does not exist")) return "42883";
      if (Contains(m, "not supported")) return "0A000";
      if (Contains(m, "cannot compare") || Contains(m, "must have the type") ||
          Contains(m, "needs a") || Contains(m, "needs booleans") || Contains(m, "cannot cast") ||
          Contains(m, "is not a timestamp")) {
        return "42804";
      }
      if (Contains(m, "unexpected") || Contains(m, "expected ") || Contains(m, "unterminated") ||
          Contains(m, "the statement ends")) {
        return "42601";
      }
      return "42601";
    case absl::StatusCode::kNotFound:
      if (Contains(m, "savepoint \"")) return "3B001";
      if (Contains(m, "table")) return "42P01";
      if (Contains(m, "database")) return "3D000";
      return "42704";
    case absl::StatusCode::kPermissionDenied: return "42501";
    case absl::StatusCode::kUnauthenticated: return "28P01";
    case absl::StatusCode::kResourceExhausted:
      return Contains(m, "memory") ? "53200" : "53000";
    case absl::StatusCode::kCancelled:
    case absl::StatusCode::kDeadlineExceeded: return "57014";
    case absl::StatusCode::kUnimplemented: return "0A000";
    case absl::StatusCode::kUnavailable: return "08006";
    default: return "XX000";
  }
}

}  // namespace strata::pg
