#include "query/base/error.h"

#include <algorithm>
#include <string>

#include "absl/strings/cord.h"

#include "common/strings.h"

namespace strata::query {
namespace {

constexpr char kPositionPayload[] = "type.strata.dev/sql-position";

}  // namespace

absl::Status SqlError(absl::StatusCode code, std::string_view sql, Position pos,
                      std::string_view message) {
  if (!pos.known() || pos.offset > static_cast<int>(sql.size())) {
    return absl::Status(code, std::string(message));
  }
  size_t line_start = sql.rfind('\n', pos.offset == 0 ? 0 : pos.offset - 1);
  line_start = (line_start == std::string_view::npos || pos.offset == 0) ? 0 : line_start + 1;
  if (pos.offset > 0 && sql[pos.offset - 1] == '\n') line_start = pos.offset;
  size_t line_end = sql.find('\n', line_start);
  if (line_end == std::string_view::npos) line_end = sql.size();
  int line = 1 + static_cast<int>(std::count(sql.begin(), sql.begin() + line_start, '\n'));
  std::string prefix = StrCat("LINE ", line, ": ");
  std::string text(sql.substr(line_start, line_end - line_start));
  std::replace(text.begin(), text.end(), '\t', ' ');
  size_t column = pos.offset - line_start;
  absl::Status status(code, StrCat(message, "\n", prefix, text, "\n",
                                   std::string(prefix.size() + column, ' '), "^"));
  status.SetPayload(kPositionPayload, absl::Cord(std::to_string(pos.offset)));
  return status;
}

std::optional<int> SqlErrorOffset(const absl::Status& status) {
  auto payload = status.GetPayload(kPositionPayload);
  if (!payload) return std::nullopt;
  return std::stoi(std::string(*payload));
}

absl::Status ShiftSqlErrorOffset(absl::Status status, int delta) {
  if (std::optional<int> offset = SqlErrorOffset(status)) {
    status.SetPayload(kPositionPayload, absl::Cord(std::to_string(*offset + delta)));
  }
  return status;
}

std::string SqlErrorMessage(const absl::Status& status) {
  std::string message(status.message());
  if (!SqlErrorOffset(status)) return message;
  const size_t line = message.rfind("\nLINE ");
  return line == std::string::npos ? message : message.substr(0, line);
}

absl::Status SqlError(std::string_view sql, Position pos, const absl::Status& status) {
  absl::string_view m = status.message();
  return SqlError(status.code(), sql, pos, std::string_view(m.data(), m.size()));
}

absl::Status SqlError(std::string_view sql, Position pos, std::string_view message) {
  return SqlError(absl::StatusCode::kInvalidArgument, sql, pos, message);
}

}  // namespace strata::query
