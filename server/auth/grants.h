// What a token may do (docs/security.md): `admin` (the catalog's databases,
// every table, and tokens), `metrics` (GET /metrics only, for Prometheus),
// or `read` / `write` on every database (`read:*`),
// one database (`read:db`, same as `read:db/*`) or one table
// (`read:db/table`). A slash separates database and table because names may
// contain dots. `write` does not imply `read`: a collector's token can write
// and read nothing back.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace strata {

enum class Action { kRead, kWrite };

struct Grant {
  Action action = Action::kRead;
  std::string database;  // "*": every database
  std::string table;     // "*": every table of `database`
  bool Covers(Action wanted, std::string_view db, std::string_view tbl) const;
};

// Parses one grant ("admin" is not a Grant: see Principal). INVALID_ARGUMENT
// says what a grant looks like.
absl::StatusOr<Grant> ParseGrant(std::string_view text);
std::string FormatGrant(const Grant& grant);
// Parses and normalizes a token's grants ("read:db/*" -> "read:db"),
// dropping duplicates; INVALID_ARGUMENT names the first bad one.
absl::StatusOr<std::vector<std::string>> NormalizeGrants(const std::vector<std::string>& grants);

// Who is calling and what they may do. With authentication off, every call
// is made by Unrestricted().
class Principal {
 public:
  static const Principal& Unrestricted();
  // `grants` as stored (normalized); "admin" makes an administrator.
  static Principal ForToken(std::string name, const std::vector<std::string>& grants);

  const std::string& name() const { return name_; }
  bool admin() const { return admin_; }
  // The read and write grants, as text ("admin" is admin()).
  std::vector<std::string> grant_texts() const;

  bool May(Action action, std::string_view database, std::string_view table) const;
  // Any grant reaching into `database` (to see it listed or described).
  bool MaySee(std::string_view database) const;
  bool MaySee(std::string_view database, std::string_view table) const;

  // PERMISSION_DENIED naming the token, the table and the grant to add.
  absl::Status Require(Action action, std::string_view database, std::string_view table) const;
  // Describing a database (`table` empty) or a table: any grant reaching it.
  absl::Status RequireSee(std::string_view database, std::string_view table = {}) const;
  // Creating, changing or dropping tables of `database`: admin, or write on
  // the whole database.
  absl::Status RequireTableAdmin(std::string_view database, std::string_view what) const;
  // Databases and tokens. `what` names the operation for the message.
  absl::Status RequireAdmin(std::string_view what) const;
  // GET /metrics: admin or the `metrics` grant.
  absl::Status RequireMetrics() const;

 private:
  std::string name_;
  bool admin_ = false;
  bool metrics_ = false;
  std::vector<Grant> grants_;
};

}  // namespace strata
