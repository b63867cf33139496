// Tables the server answers from its own state rather than storage, named
// "system"."<table>" in SQL (docs/sql.md, "System tables"): the run history
// of scheduled queries, for one. The server implements it per caller (rows
// the caller may see); the planner reads a table whole and runs the rest of
// the statement over it as over a subquery.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "query/base/result.h"
#include "storage/catalog/catalog_types.h"

namespace strata::query {

// The catalog refuses it as a new database's name.
inline constexpr std::string_view kSystemDatabase = kSystemDatabaseName;

struct SystemTable {
  std::vector<ResultColumn> columns;
  std::vector<Row> rows;
};

class SystemTables {
 public:
  virtual ~SystemTables() = default;
  // The tables there are, for messages.
  virtual std::vector<std::string> Names() const = 0;
  // NOT_FOUND when there is no such table.
  virtual absl::StatusOr<SystemTable> Read(std::string_view table) const = 0;
};

}  // namespace strata::query
