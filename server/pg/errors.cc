#include "server/pg/errors.h"

namespace strata::pg {
namespace {

bool Mentions(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

}  // namespace

std::string_view SqlState(const absl::Status& status) {
  const std::string_view m(status.message().data(), status.message().size());
  switch (status.code()) {
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kFailedPrecondition:
    case absl::StatusCode::kOutOfRange:
      if (Mentions(m, "invalid input syntax for type")) return "22P02";
      if (Mentions(m, "Division by zero")) return "22012";
      if (Mentions(m, "column \"") && Mentions(m, "does not exist")) return "42703";
      if (Mentions(m, "is ambiguous")) return "42702";
      if (Mentions(m, "function ") && Mentions(m, "does not exist")) return "42883";
      if (Mentions(m, "not supported")) return "0A000";
      if (Mentions(m, "cannot compare") || Mentions(m, "must have the type") ||
          Mentions(m, "needs a") || Mentions(m, "needs booleans") || Mentions(m, "cannot cast") ||
          Mentions(m, "is not a timestamp")) {
        return "42804";
      }
      if (Mentions(m, "unexpected") || Mentions(m, "expected ") || Mentions(m, "unterminated") ||
          Mentions(m, "the statement ends")) {
        return "42601";
      }
      return "42601";
    case absl::StatusCode::kNotFound:
      if (Mentions(m, "table")) return "42P01";
      if (Mentions(m, "database")) return "3D000";
      return "42704";
    case absl::StatusCode::kPermissionDenied: return "42501";
    case absl::StatusCode::kUnauthenticated: return "28P01";
    case absl::StatusCode::kResourceExhausted:
      return Mentions(m, "memory") ? "53200" : "53000";
    case absl::StatusCode::kCancelled:
    case absl::StatusCode::kDeadlineExceeded: return "57014";
    case absl::StatusCode::kUnimplemented: return "0A000";
    case absl::StatusCode::kUnavailable: return "08006";
    default: return "XX000";
  }
}

}  // namespace strata::pg
