#include "server/runner/ingest.h"

#include <exception>
#include <memory>
#include <utility>

#include "common/status.h"
#include "common/strings.h"

namespace strata {

void Ingest::WriteAsync(const Principal& caller, WriteSource& source, Writer::WriteDone done) {
  absl::Status allowed =
      caller.Require(Action::kWrite, source.database_name(), source.table_name());
  if (!allowed.ok()) {
    done(allowed);
    return;
  }
  auto counted = [this, done = std::move(done)](absl::StatusOr<WriteResult> result) {
    if (result.ok()) Count(*result);
    done(std::move(result));
  };
  if (sink_ != nullptr) {
    sink_->WriteAsync(source, std::move(counted));
  } else {
    engine_.WriteAsync(source, std::move(counted));
  }
}

absl::Status Ingest::CheckAdmission() {
  if (sink_ != nullptr) return absl::OkStatus();
  return engine_.writer().CheckAdmission();
}

void Ingest::Count(const WriteResult& result) {
  // Runs on the committer thread, which must not see an exception: a
  // counter that cannot be updated (bad_alloc adding a label) is not worth
  // failing a committed write over.
  try {
    metrics_.CountWrite(result);
  } catch (const std::exception&) {
  }
}

std::future<absl::StatusOr<WriteResult>> Ingest::WriteInBackground(const Principal& caller,
                                                                   WriteSource& source) {
  // The committer fulfils the promise (its callback must not block).
  auto promise = std::make_shared<std::promise<absl::StatusOr<WriteResult>>>();
  std::future<absl::StatusOr<WriteResult>> result = promise->get_future();
  WriteAsync(caller, source, [promise](absl::StatusOr<WriteResult> written) {
    promise->set_value(std::move(written));
  });
  return result;
}

absl::StatusOr<WriteResult> Ingest::Write(const Principal& caller, WriteRequest request) {
  InputWriteSource source(request);
  return WriteInBackground(caller, source).get();
}

absl::Status Ingest::PrepareTable(const Principal& caller, std::string_view database,
                                  std::string_view table, bool auto_create) {
  auto found = engine_.catalog().FindTable(database, table);
  if (found.ok()) return caller.Require(Action::kWrite, database, table);
  if (!absl::IsNotFound(found.status())) return found.status();
  if (!auto_create) {
    return absl::NotFoundError(
        StrCat("table \"", database, "\".\"", table, "\" does not exist and stratad runs with "
               "--http-auto-create=false; create it first (strata table create ", database, " ",
               table, ")"));
  }
  RETURN_IF_ERROR(caller.RequireTableAdmin(database, "create a table on first write"));
  TableSpec spec{.database_name = std::string(database),
                 .table_name = std::string(table),
                 .enable_magnetic_store_writes = true};
  auto created = ddl_.CreateTable(spec);
  if (!created.ok() && !absl::IsAlreadyExists(created.status())) return created.status();
  return absl::OkStatus();
}

absl::Status Ingest::CheckDatabase(const Principal& caller, std::string_view database,
                                   std::string_view parameter) {
  if (database.empty()) {
    return absl::InvalidArgumentError(
        StrCat("the request names no database: add ?", parameter, "=DATABASE to the URL"));
  }
  if (!caller.MaySee(database)) return caller.Require(Action::kWrite, database, "*");
  auto found = engine_.catalog().DescribeDatabase(database);
  if (absl::IsNotFound(found.status())) {
    return absl::NotFoundError(StrCat("database not found: \"", database,
                                      "\"; create it with `strata db create ", database, "`"));
  }
  return found.status();
}

}  // namespace strata
