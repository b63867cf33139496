// PostgreSQL's pg_catalog, as tables a query reads like any other (any columns, any WHERE,
// joins), for the tools that read it rather than information_schema (SQLAlchemy's
// reflection, pandas' to_sql, DBeaver, pgAdmin): pg_namespace (a Strata database is a
// schema, beside pg_catalog and information_schema), pg_class (a table a relation of kind
// 'r'), pg_attribute (its columns), pg_type (the types of query/base/postgres_types.h),
// pg_database (the one database, "strata"), and the catalogs of what Strata does not keep
// (defaults, comments, enums, indexes, constraints, sequences, inheritance) with their
// columns and no rows. Each lists what the caller may see. A bare name (`FROM pg_class`)
// is pg_catalog's, as PostgreSQL searches pg_catalog first.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "query/base/read_access.h"
#include "query/exec/information_schema.h"
#include "query/exec/system_tables.h"
#include "query/exec/table_layout.h"
#include "storage/engine.h"

namespace strata::query {

inline constexpr std::string_view kPgCatalog = "pg_catalog";

// A table's OID: its id in the catalog (never reused) above PostgreSQL's own range. The
// PostgreSQL wire's answers to psql (server/pg/catalog.h) name tables by the same OIDs.
inline int64_t PgTableOid(uint32_t table_id) { return 16384 + int64_t{table_id}; }
// A database's OID as a schema (pg_namespace.oid): far above the tables'.
inline int64_t PgSchemaOid(uint32_t database_id) { return 1'000'000'000 + int64_t{database_id}; }

// Whether a table's column of that name is never NULL (pg_attribute.attnotnull): its time
// and measure name, which every record has.
inline bool IsAlwaysSet(std::string_view column) {
  return column == "time" || column == "measure_name";
}

// The tables there are (pg_class, pg_namespace, ...), for messages and for bare names.
std::vector<std::string> PgCatalogTables();
bool IsPgCatalogTable(std::string_view name);

// `table` read whole (tables the caller may not see left out; `access` null: all);
// NOT_FOUND when there is no such table. `cluster` as ReadInformationSchema's.
absl::StatusOr<SystemTable> ReadPgCatalog(std::string_view table, Engine& storage,
                                          TableLayoutCache& layouts, const ReadAccess* access,
                                          const ClusterColumns& cluster = {});

}  // namespace strata::query
