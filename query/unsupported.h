// Timestream SQL that Strata does not run yet, named in the error instead
// of surfacing as an unknown function or tripping over another rule first
// (create_time_series in a GROUP BY query once said that `time` must be
// grouped). Empty the table as the features land (issue 16, docs/sql.md).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace strata::query {

// The error for a call of `function` (lower case) when it is a Timestream
// function Strata lacks; nullopt for every other name.
std::optional<std::string> UnsupportedFunctionMessage(std::string_view function);

}  // namespace strata::query
