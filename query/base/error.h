// Errors that point into the SQL text: the message, then the line with a
// caret under the offending column.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace strata::query {

// A place in the query text (0-based offset).
struct Position {
  int offset = -1;
  bool known() const { return offset >= 0; }
};

// INVALID_ARGUMENT: `message` at `pos`, rendered as
//   message
//   LINE 1: SELECT hostx FROM ...
//                  ^
absl::Status SqlError(std::string_view sql, Position pos, std::string_view message);
// Points an error from elsewhere (the catalog's NOT_FOUND) at `pos`,
// keeping its code and message.
absl::Status SqlError(std::string_view sql, Position pos, const absl::Status& status);
// Same, with another status code (NOT_FOUND for unknown tables).
absl::Status SqlError(absl::StatusCode code, std::string_view sql, Position pos,
                      std::string_view message);

// Where an error made by SqlError points (0-based offset into the SQL), for
// front ends that report it apart from the message (PostgreSQL's position).
std::optional<int> SqlErrorOffset(const absl::Status& status);
// `status` pointing `delta` bytes further: an error in a statement nested in
// a longer one (the query of DECLARE ... CURSOR FOR) pointed into the outer text.
absl::Status ShiftSqlErrorOffset(absl::Status status, int delta);
// The message of an error made by SqlError without its LINE/caret lines.
std::string SqlErrorMessage(const absl::Status& status);

}  // namespace strata::query
