#include "server/auth/grants.h"

#include <algorithm>

#include "common/strings.h"
#include "common/utf8.h"
#include "storage/catalog/names.h"

namespace strata {
namespace {

constexpr std::string_view kGrantForms =
    "a grant is admin, read:*, read:DB, read:DB/TABLE (or write:… in the same forms), or "
    "metrics";

std::string_view ActionName(Action a) { return a == Action::kRead ? "read" : "write"; }

bool Matches(const std::string& pattern, std::string_view name) {
  return pattern == "*" || pattern == name;
}

}  // namespace

bool Grant::Covers(Action wanted, std::string_view db, std::string_view tbl) const {
  return action == wanted && Matches(database, db) && Matches(table, tbl);
}

absl::StatusOr<Grant> ParseGrant(std::string_view text) {
  auto bad = [&](std::string_view why) {
    return absl::InvalidArgumentError(
        StrCat("grant \"", EchoInput(text, 80), "\" ", why, "; ", kGrantForms));
  };
  const size_t colon = text.find(':');
  if (colon == std::string_view::npos) return bad("has no action");
  Grant grant;
  const std::string_view action = text.substr(0, colon);
  if (action == "read") {
    grant.action = Action::kRead;
  } else if (action == "write") {
    grant.action = Action::kWrite;
  } else {
    return bad(StrCat("has an unknown action \"", EchoInput(action, 20), "\""));
  }
  std::string_view target = text.substr(colon + 1);
  const size_t slash = target.find('/');
  std::string_view database = target.substr(0, slash);
  std::string_view table = slash == std::string_view::npos ? "*" : target.substr(slash + 1);
  if (database.empty() || table.empty()) return bad("names no database or table");
  if (database == "*" && table != "*") return bad("names a table of every database");
  if (database != "*" && !ValidateResourceName("database", database).ok()) {
    return bad("names an invalid database");
  }
  if (table != "*" && !ValidateResourceName("table", table).ok()) {
    return bad("names an invalid table");
  }
  grant.database = database;
  grant.table = table;
  return grant;
}

std::string FormatGrant(const Grant& grant) {
  std::string out = StrCat(ActionName(grant.action), ":", grant.database);
  if (grant.table != "*") out += StrCat("/", grant.table);
  return out;
}

absl::StatusOr<std::vector<std::string>> NormalizeGrants(const std::vector<std::string>& grants) {
  std::vector<std::string> out;
  for (const std::string& text : grants) {
    std::string normal = text;
    if (text != "admin" && text != "metrics") {
      absl::StatusOr<Grant> grant = ParseGrant(text);
      if (!grant.ok()) return grant.status();
      normal = FormatGrant(*grant);
    }
    if (std::find(out.begin(), out.end(), normal) == out.end()) out.push_back(std::move(normal));
  }
  return out;
}

const Principal& Principal::Unrestricted() {
  static const Principal* const everyone = [] {
    auto* p = new Principal();
    p->admin_ = true;
    return p;
  }();
  return *everyone;
}

Principal Principal::ForToken(std::string name, const std::vector<std::string>& grants) {
  Principal p;
  p.name_ = std::move(name);
  for (const std::string& text : grants) {
    if (text == "admin") {
      p.admin_ = true;
    } else if (text == "metrics") {
      p.metrics_ = true;
    } else if (absl::StatusOr<Grant> grant = ParseGrant(text); grant.ok()) {
      p.grants_.push_back(*std::move(grant));  // stored grants were checked when saved
    }
  }
  return p;
}

std::vector<std::string> Principal::grant_texts() const {
  std::vector<std::string> out;
  if (metrics_) out.push_back("metrics");
  for (const Grant& g : grants_) out.push_back(FormatGrant(g));
  return out;
}

bool Principal::May(Action action, std::string_view database, std::string_view table) const {
  if (admin_) return true;
  return std::any_of(grants_.begin(), grants_.end(),
                     [&](const Grant& g) { return g.Covers(action, database, table); });
}

bool Principal::MaySee(std::string_view database) const {
  if (admin_) return true;
  return std::any_of(grants_.begin(), grants_.end(),
                     [&](const Grant& g) { return Matches(g.database, database); });
}

bool Principal::MaySee(std::string_view database, std::string_view table) const {
  return May(Action::kRead, database, table) || May(Action::kWrite, database, table);
}

absl::Status Principal::Require(Action action, std::string_view database,
                                std::string_view table) const {
  if (May(action, database, table)) return absl::OkStatus();
  const std::string needed = FormatGrant({action, std::string(database), std::string(table)});
  return absl::PermissionDeniedError(
      StrCat("token \"", name_, "\" may not ", ActionName(action), " \"", database, "\".\"",
             table, "\": it needs the grant ", needed, " (or ", ActionName(action), ":", database,
             ", ", ActionName(action), ":*); an admin adds it with `strata token grant ", name_,
             " ", needed, "`"));
}

absl::Status Principal::RequireSee(std::string_view database, std::string_view table) const {
  if (table.empty() ? MaySee(database) : MaySee(database, table)) return absl::OkStatus();
  const std::string what =
      table.empty() ? StrCat("database \"", database, "\"")
                    : StrCat("table \"", database, "\".\"", table, "\"");
  return absl::PermissionDeniedError(StrCat("token \"", name_, "\" may not see ", what,
                                            ": it has no read or write grant on it"));
}

absl::Status Principal::RequireTableAdmin(std::string_view database, std::string_view what) const {
  if (May(Action::kWrite, database, "*")) return absl::OkStatus();
  return absl::PermissionDeniedError(
      StrCat("token \"", name_, "\" may not ", what, " in database \"", database,
             "\": that needs admin or the grant write:", database));
}

absl::Status Principal::RequireMetrics() const {
  if (admin_ || metrics_) return absl::OkStatus();
  return absl::PermissionDeniedError(StrCat("token \"", name_, "\" may not read the metrics: "
                                            "that needs the grant metrics (or admin)"));
}

absl::Status Principal::RequireAdmin(std::string_view what) const {
  if (admin_) return absl::OkStatus();
  return absl::PermissionDeniedError(
      StrCat("token \"", name_, "\" may not ", what, ": that needs an admin token"));
}

}  // namespace strata
