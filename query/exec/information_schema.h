// The SQL standard's information_schema, as tables a query reads like any
// other (any columns, any WHERE, joins): `schemata` (one row per database:
// PostgreSQL clients see a Strata database as a schema), `tables` and
// `columns`, of what the caller may see. psql, Grafana, DBeaver and ORMs
// read these to list what there is.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "query/base/read_access.h"
#include "query/exec/system_tables.h"
#include "query/exec/table_layout.h"
#include "storage/engine.h"

namespace strata::query {

inline constexpr std::string_view kInformationSchema = "information_schema";

// The tables there are, for messages.
std::vector<std::string> InformationSchemaTables();

// `table` read whole (tables the caller may not see left out; `access` null:
// all); NOT_FOUND when there is no such table.
absl::StatusOr<SystemTable> ReadInformationSchema(std::string_view table, Engine& storage,
                                                  TableLayoutCache& layouts,
                                                  const ReadAccess* access);

// Every table the caller may see (`access` null: all), database by database.
absl::StatusOr<std::vector<TableInfo>> VisibleTables(const Catalog& catalog,
                                                     const ReadAccess* access);

// The name PostgreSQL gives a column of `type` ("double precision",
// "timestamp with time zone"): information_schema's data_type, and what
// the PostgreSQL wire reports.
std::string_view PostgresTypeName(DataType type);

}  // namespace strata::query
