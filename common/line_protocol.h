// InfluxDB line protocol, one line at a time:
//
//   measurement[,tag=value...] field=value[,field=value...] [timestamp]
//
// with InfluxDB's escaping (backslash before comma, space and equals sign in
// names and tag values; before quote and backslash in string fields) and
// field types: 1.5 / 1e3 DOUBLE, 1i and 1u BIGINT, "text" VARCHAR,
// t/T/true/True/TRUE and f/F/false/False/FALSE BOOLEAN. The timestamp is an
// integer in the caller's precision. Used by `strata import --format lp` and
// by stratad's /write endpoints, so both read a file the same way.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "common/value.h"

namespace strata {

struct LinePoint {
  std::string measurement;
  std::vector<std::pair<std::string, std::string>> tags;
  std::vector<std::pair<std::string, Value>> fields;
  std::optional<int64_t> timestamp;  // absent: the writer's clock decides
};

// One line (without its newline). nullopt for a blank or `#` comment line;
// INVALID_ARGUMENT for a malformed one, naming the problem and the 1-based
// column where the offending token starts.
absl::StatusOr<std::optional<LinePoint>> ParseLinePoint(std::string_view line);
// The same into *point, reusing its strings and vectors (a loader parses
// millions of lines); false for a blank or comment line.
absl::StatusOr<bool> ParseLinePointInto(std::string_view line, LinePoint* point);

}  // namespace strata
