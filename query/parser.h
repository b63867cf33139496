// Parses one statement of Strata's SQL (the Timestream dialect, docs/sql.md)
// into a syntax tree. Errors are INVALID_ARGUMENT with a caret at the
// offending token.
#pragma once

#include <string_view>

#include "absl/status/statusor.h"
#include "query/ast.h"

namespace strata::query {

// Limits that keep every recursive pass over a statement (parser, planner,
// evaluator, destructors) far inside a query thread's stack, whatever the
// client sends. SQLite's default expression depth is 1000.
inline constexpr int kMaxExpressionDepth = 1000;
// Subqueries (FROM and WITH) nested inside each other; each level is planned
// with its own operators.
inline constexpr int kMaxQueryDepth = 64;
// Timestream's quota on the query string.
inline constexpr size_t kMaxQueryBytes = 256 * 1024;

// INVALID_ARGUMENT for text longer than kMaxQueryBytes or nested past the
// limits above.
absl::StatusOr<Statement> Parse(std::string_view sql);

// Duration literal units to nanoseconds ("15m" -> 900e9). Exposed for tests.
int64_t DurationUnitNanos(std::string_view unit);

}  // namespace strata::query
