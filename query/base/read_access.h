// Who may read what: the server implements it from the caller's token
// (server/auth/grants.h); the engine asks before a statement reads a table (every
// table a FROM, subquery or CTE names), writes one (DELETE) or changes the catalog, and
// filters what SHOW lists. Without one (tests, tools), everything is allowed.
#pragma once

#include <string_view>

#include "absl/status/status.h"

namespace strata::query {

class ReadAccess {
 public:
  virtual ~ReadAccess() = default;
  // OK, or PERMISSION_DENIED saying which grant is missing.
  virtual absl::Status CheckRead(std::string_view database, std::string_view table) const = 0;
  // DELETE changes a table: write on it (besides read, to find the rows).
  virtual absl::Status CheckWrite(std::string_view database, std::string_view table) const = 0;
  // CREATE, ALTER and DROP, as the CatalogService's calls allow them: a database's (`table`
  // false) need an admin token, a table's admin or write on the whole of its database.
  // `what` names the change for the message ("create tables").
  virtual absl::Status CheckCatalogChange(std::string_view database, bool table,
                                          std::string_view what) const = 0;
  // Whether SHOW DATABASES / SHOW TABLES list it.
  virtual bool MaySee(std::string_view database) const = 0;
  virtual bool MaySee(std::string_view database, std::string_view table) const = 0;
};

}  // namespace strata::query
