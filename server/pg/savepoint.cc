#include "server/pg/savepoint.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_replace.h"
#include "re2/re2.h"

namespace strata::pg {

std::optional<absl::StatusOr<SavepointStatement>> ParseSavepointStatement(std::string_view sql) {
  static const RE2 kStatement(
      R"re((?is)\s*(savepoint|release(?:\s+savepoint)?|rollback(?:\s+(?:work|transaction))?\s+to(?:\s+savepoint)?)(?:\s+(.*?))?\s*;?\s*)re");
  std::string verb, name;
  if (!RE2::FullMatch(sql, kStatement, &verb, &name)) return std::nullopt;
  SavepointStatement out;
  verb = absl::AsciiStrToLower(verb);
  out.kind = verb.starts_with("savepoint") ? SavepointStatement::Kind::kSavepoint
             : verb.starts_with("release") ? SavepointStatement::Kind::kRelease
                                           : SavepointStatement::Kind::kRollbackTo;
  static const RE2 kQuoted(R"re("((?:[^"]|"")+)")re");
  static const RE2 kBare(R"re([A-Za-z_][A-Za-z0-9_$]*)re");
  // PostgreSQL's identifiers are at most 63 bytes; a session keeps up to kMaxSavepoints names,
  // so a longer one (a megabyte, ten thousand times) is refused rather than kept.
  if (name.size() > 2 * kMaxSavepointName + 2) {
    return absl::StatusOr<SavepointStatement>(
        absl::InvalidArgumentError("a savepoint's name is at most 63 bytes"));
  }
  std::string quoted;
  if (RE2::FullMatch(name, kQuoted, &quoted)) {
    out.name = absl::StrReplaceAll(quoted, {{"\"\"", "\""}});
  } else if (RE2::FullMatch(name, kBare)) {
    out.name = absl::AsciiStrToLower(name);
  } else {
    return absl::StatusOr<SavepointStatement>(absl::InvalidArgumentError(
        "a savepoint takes a name: SAVEPOINT name, RELEASE SAVEPOINT name, ROLLBACK TO "
        "SAVEPOINT name"));
  }
  if (out.name.size() > kMaxSavepointName) {
    return absl::StatusOr<SavepointStatement>(
        absl::InvalidArgumentError("a savepoint's name is at most 63 bytes"));
  }
  return out;
}

}  // namespace strata::pg
