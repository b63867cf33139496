#include "server/ingest_target.h"

#include <memory>
#include <utility>

#include "common/strings.h"

namespace strata {

absl::Status PrepareIngestTable(Engine& engine, const Principal& caller, std::string_view database,
                                std::string_view table, bool auto_create) {
  auto found = engine.catalog().FindTable(database, table);
  if (found.ok()) return caller.Require(Action::kWrite, database, table);
  if (!absl::IsNotFound(found.status())) return found.status();
  if (!auto_create) {
    return absl::NotFoundError(
        StrCat("table \"", database, "\".\"", table, "\" does not exist and stratad runs with "
               "--http-auto-create=false; create it first (strata table create ", database, " ",
               table, ")"));
  }
  if (absl::Status allowed = caller.RequireTableAdmin(database, "create a table on first write");
      !allowed.ok()) {
    return allowed;
  }
  TableSpec spec{.database_name = std::string(database),
                 .table_name = std::string(table),
                 .enable_magnetic_store_writes = true};
  auto created = engine.catalog().CreateTable(spec);
  if (!created.ok() && !absl::IsAlreadyExists(created.status())) return created.status();
  return absl::OkStatus();
}

absl::Status CheckIngestDatabase(Engine& engine, const Principal& caller,
                                 std::string_view database, std::string_view parameter) {
  if (database.empty()) {
    return absl::InvalidArgumentError(
        StrCat("the request names no database: add ?", parameter, "=DATABASE to the URL"));
  }
  if (!caller.MaySee(database)) {
    return caller.Require(Action::kWrite, database, "*");
  }
  auto found = engine.catalog().DescribeDatabase(database);
  if (absl::IsNotFound(found.status())) {
    return absl::NotFoundError(StrCat("database not found: \"", database,
                                      "\"; create it with `strata db create ", database, "`"));
  }
  return found.status();
}

std::future<absl::StatusOr<WriteResult>> WriteInBackground(Engine& engine, WriteSource& source) {
  // The committer fulfils the promise (its callback must not block).
  auto done = std::make_shared<std::promise<absl::StatusOr<WriteResult>>>();
  std::future<absl::StatusOr<WriteResult>> result = done->get_future();
  engine.WriteAsync(source, [done](absl::StatusOr<WriteResult> written) {
    done->set_value(std::move(written));
  });
  return result;
}

}  // namespace strata
