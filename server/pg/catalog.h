// Answers for the statements PostgreSQL clients send that are not Timestream
// SQL (docs/protocols.md): session commands (SET, SHOW, RESET, BEGIN /
// COMMIT / ROLLBACK, which Strata accepts without transactions: every query
// reads committed data), version(), and the catalog queries of psql (\dt,
// \d NAME) and of Grafana's PostgreSQL data source (schemas, tables and
// columns for its pickers; public/app/plugins/datasource/
// grafana-postgresql-datasource/postgresMetaQuery.ts). A Strata database is
// a PostgreSQL schema, a table a table. The engine has information_schema and
// the pg_catalog tables tools read most (query/exec/pg_catalog.h); a query of
// other catalogs, or one of these the engine cannot run, gets an empty result,
// so a tool's optional probes do not fail; anything else is SQL for the engine.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "query/base/datum.h"
#include "query/engine.h"
#include "server/auth/grants.h"
#include "storage/catalog/catalog.h"

namespace strata::pg {

struct CannedResult {
  std::vector<query::ResultColumn> columns;  // none: a command (no RowDescription)
  std::vector<query::Row> rows;
  std::string tag;  // CommandComplete's; empty: "SELECT <rows>"
};

// The parameters a session reports and SHOW answers; SET changes them.
std::map<std::string, std::string> DefaultSettings();

// The columns of a table as SELECT * returns them, checked against the
// caller's grants (the session plans `SELECT *` for it).
using ColumnsOf = std::function<absl::StatusOr<std::vector<query::ResultColumn>>(
    std::string_view database, std::string_view table)>;
// The bytes a table keeps in storage ("system"."tables"' memory, magnetic and late-write
// bytes), or nullopt when that cannot be told.
using TableBytes =
    std::function<std::optional<int64_t>(std::string_view database, std::string_view table)>;

class CatalogAnswers {
 public:
  // `catch_up` is called once, before the first list of databases or tables (a cluster
  // node's copy of the catalog may be a moment behind).
  // `backend_pid`: the session's id, sent in its BackendKeyData (what pg_backend_pid() is).
  // `table_bytes` (none: sizes are not shown) gives psql's \dt+ its Size column.
  CatalogAnswers(const Catalog& catalog, const Principal& caller, ColumnsOf columns_of,
                 std::function<void()> catch_up = {}, int32_t backend_pid = 0,
                 TableBytes table_bytes = {})
      : catalog_(catalog),
        caller_(caller),
        columns_of_(std::move(columns_of)),
        catch_up_(std::move(catch_up)),
        backend_pid_(backend_pid),
        table_bytes_(std::move(table_bytes)) {}

  // nullopt: not one of these statements (run it as SQL).
  std::optional<absl::StatusOr<CannedResult>> Answer(std::string_view sql,
                                                     std::map<std::string, std::string>& settings);

  // Whether `sql` reads PostgreSQL's catalogs (a pg_catalog or information_schema table): a tool's
  // probe, answered by EmptyAnswer when the engine cannot run it, so that a tool's optional
  // question does not fail.
  static bool ReadsCatalog(std::string_view sql);
  // No rows, with the columns of `sql`'s select list as written.
  static CannedResult EmptyAnswer(std::string_view sql);

 private:
  struct TableRef {
    std::string database;
    std::string table;
    uint32_t id = 0;
  };
  // Tables the caller may see, sorted by database and name.
  std::vector<TableRef> Tables() const;
  std::vector<std::string> Databases() const;
  std::optional<TableRef> TableByOid(int64_t oid) const;
  void CatchUpOnce() const;
  // Whether the lower-cased `text` reads a catalog the engine does not have.
  static bool ProbesUnknownCatalog(std::string_view lowered);

  absl::StatusOr<CannedResult> PsqlRelations(std::string_view text) const;
  absl::StatusOr<CannedResult> PsqlSchemas(std::string_view text) const;  // \dn
  static CannedResult PsqlDatabases();                                     // \l
  CannedResult PsqlRoles(std::string_view text) const;                     // \du
  absl::StatusOr<CannedResult> PsqlCompletion(std::string_view text) const;  // Tab
  absl::StatusOr<CannedResult> PsqlFindRelation(std::string_view text) const;
  absl::StatusOr<CannedResult> PsqlRelationDetails(std::string_view text) const;
  absl::StatusOr<CannedResult> PsqlAttributes(std::string_view text) const;
  absl::StatusOr<CannedResult> SqlAlchemyColumns(std::string_view text) const;
  absl::StatusOr<CannedResult> GrafanaTables(std::string_view text) const;
  absl::StatusOr<CannedResult> GrafanaColumns(std::string_view text) const;

  const Catalog& catalog_;
  const Principal& caller_;
  ColumnsOf columns_of_;
  const std::function<void()> catch_up_;
  const int32_t backend_pid_;
  const TableBytes table_bytes_;
  mutable bool caught_up_ = false;
};

}  // namespace strata::pg
