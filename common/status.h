// Error handling vocabulary shared by every module: absl::Status and
// absl::StatusOr<T>, plus the two macros that keep call sites short.
// No exception crosses a module boundary; a Status message names its subject
// and says what to do.
#pragma once

#include <iterator>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define STRATA_CONCAT_INNER_(a, b) a##b
#define STRATA_CONCAT_(a, b) STRATA_CONCAT_INNER_(a, b)

// Returns from the current function when `expr` (an absl::Status) is not OK.
#define RETURN_IF_ERROR(expr)                    \
  do {                                           \
    ::absl::Status strata_status_ = (expr);      \
    if (!strata_status_.ok()) return strata_status_; \
  } while (0)

// `ASSIGN_OR_RETURN(auto x, F())`: binds the value of an absl::StatusOr or
// returns its error.
#define ASSIGN_OR_RETURN(lhs, expr) \
  ASSIGN_OR_RETURN_IMPL_(STRATA_CONCAT_(strata_statusor_, __LINE__), lhs, expr)
#define ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                           \
  if (!tmp.ok()) return tmp.status();          \
  lhs = std::move(tmp).value()

namespace strata {

// The name of a status code ("INVALID_ARGUMENT") for logs and metrics; absl
// and gRPC number their codes alike, so it serves both.
inline std::string_view StatusCodeName(int code) {
  static constexpr std::string_view kNames[] = {
      "OK",        "CANCELLED",          "UNKNOWN",             "INVALID_ARGUMENT",
      "DEADLINE_EXCEEDED", "NOT_FOUND",  "ALREADY_EXISTS",      "PERMISSION_DENIED",
      "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED",   "OUT_OF_RANGE",
      "UNIMPLEMENTED", "INTERNAL",        "UNAVAILABLE",         "DATA_LOSS",
      "UNAUTHENTICATED"};
  if (code < 0 || code >= static_cast<int>(std::size(kNames))) return "UNKNOWN";
  return kNames[code];
}
inline std::string_view StatusCodeName(absl::StatusCode code) {
  return StatusCodeName(static_cast<int>(code));
}

}  // namespace strata
