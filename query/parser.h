// Parses one statement of Strata's SQL (the Timestream dialect, docs/sql.md)
// into a syntax tree. Errors are INVALID_ARGUMENT with a caret at the
// offending token.
#pragma once

#include <string_view>

#include "absl/status/statusor.h"
#include "query/ast.h"

namespace strata::query {

absl::StatusOr<Statement> Parse(std::string_view sql);

// Duration literal units to nanoseconds ("15m" -> 900e9). Exposed for tests.
int64_t DurationUnitNanos(std::string_view unit);

}  // namespace strata::query
