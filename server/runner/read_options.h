// A query's read choice (query/base/read_choice.h) as the text front doors name its parts:
// the HTTP SQL API's query parameters and PostgreSQL's session settings (`SET
// strata.read_consistency = follower`).
//
//   read_consistency   leader | strong | follower
//   max_staleness_ms   a follower read's bound, 1 .. 3600000
//   max_fragments      fragments of one table at once, 1 .. 64
//   hedge_after_ms     1 .. 3600000
#pragma once

#include <array>
#include <string_view>

#include "absl/status/status.h"
#include "server/runner/query_runner.h"

namespace strata {

inline constexpr std::array<std::string_view, 4> kReadOptionNames = {
    "read_consistency", "max_staleness_ms", "max_fragments", "hedge_after_ms"};

bool IsReadOption(std::string_view name);
// Sets `name`'s part of `request`'s read choice from `value`; INVALID_ARGUMENT naming the
// option and what it takes when `value` is not one of its values.
absl::Status SetReadOption(std::string_view name, std::string_view value,
                           StatementRunner::Request* request);

}  // namespace strata
