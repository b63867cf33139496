// Runs one SQL-logic golden file (format: tests/sql/README.md) against a
// backend: the engine in-process (sql_logic_test) or a real stratad over
// gRPC (e2e). The file's directives and expectations are the same for both.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "storage/catalog/catalog_types.h"
#include "storage/rows/write_types.h"

namespace strata::testing {

class SqlLogicBackend {
 public:
  virtual ~SqlLogicBackend() = default;
  // `clock`: the time everything after it runs at.
  virtual void SetClock(int64_t now_nanos) = 0;
  virtual absl::Status CreateDatabase(const std::string& name) = 0;
  virtual absl::Status CreateTable(const TableSpec& spec) = 0;
  virtual absl::StatusOr<WriteResult> Write(const WriteRequest& request) = 0;
  // The result rows, values rendered as Timestream prints them and joined
  // by " | ", or the query's error.
  virtual absl::StatusOr<std::vector<std::string>> Query(const std::string& sql) = 0;
  // `restart` and `maintain`.
  virtual void Restart() = 0;
  // `legacy-write`: the records as a writer from before the schema rules
  // stored them (tests/support/legacy_writer.h). Only the in-process run
  // can; files using it are not run over gRPC.
  virtual absl::Status LegacyWrite(const WriteRequest& request) = 0;
  // `legacy-rename`: gives a database and its table names from before the
  // 3-character minimum for new names (tests/support/legacy_writer.h).
  // In-process only, like `legacy-write`.
  virtual absl::Status LegacyRename(const std::string& database, const std::string& table,
                                    const std::string& new_database,
                                    const std::string& new_table) = 0;
  virtual void Maintain() = 0;
};

// Reports every mismatch as a GoogleTest failure naming file:line.
void RunSqlLogicFile(const std::string& path, const std::string& name, SqlLogicBackend& backend);

// The *.test files of `dir`, sorted.
std::vector<std::string> SqlLogicFiles(const std::string& dir);

// A GoogleTest-safe name for a file ("seed_iot.test" -> "seed_iot").
std::string SqlLogicTestName(const std::string& file);

}  // namespace strata::testing
