// Runs the SQL-logic golden files in tests/sql/ (format: tests/sql/README.md)
// against the engine in-process, with a manual clock.
#include "common/clock.h"
#include "gtest/gtest.h"
#include "query/engine.h"
#include "storage/engine.h"
#include "tests/sql/sql_logic_runner.h"
#include "tests/support/legacy_writer.h"
#include "tests/support/temp_dir.h"

namespace strata {
namespace {

class Collect : public query::ResultSink {
 public:
  absl::Status Columns(const std::vector<query::ResultColumn>&) override {
    return absl::OkStatus();
  }
  absl::Status Rows(std::vector<query::Row> page) override {
    for (const query::Row& row : page) {
      std::string line;
      for (size_t i = 0; i < row.size(); ++i) line += (i ? " | " : "") + row[i].ToString();
      lines.push_back(line);
    }
    return absl::OkStatus();
  }
  std::vector<std::string> lines;
};

class InProcess : public testing::SqlLogicBackend {
 public:
  InProcess() { Restart(); }

  void SetClock(int64_t now_nanos) override { clock_.Set(now_nanos); }
  absl::Status CreateDatabase(const std::string& name) override {
    return engine_->catalog().CreateDatabase(name, "").status();
  }
  absl::Status CreateTable(const TableSpec& spec) override {
    return engine_->catalog().CreateTable(spec).status();
  }
  absl::StatusOr<WriteResult> Write(const WriteRequest& request) override {
    return engine_->Write(request);
  }
  absl::StatusOr<std::vector<std::string>> Query(const std::string& sql) override {
    Collect sink;
    auto stats = query_->Execute(sql, {}, &sink);
    if (!stats.ok()) return stats.status();
    return sink.lines;
  }
  void Restart() override {
    query_.reset();
    engine_.reset();
    auto engine = Engine::Open({.data_dir = dir_.Sub("data"), .clock = &clock_});
    ASSERT_TRUE(engine.ok()) << engine.status();
    engine_ = std::move(*engine);
    query_ = std::make_unique<query::QueryEngine>(engine_.get());
  }
  absl::Status LegacyWrite(const WriteRequest& request) override {
    auto table = engine_->catalog().FindTable(request.database_name, request.table_name);
    if (!table.ok()) return table.status();
    const TableInfo info = **table;
    query_.reset();
    engine_.reset();
    absl::Status written = testing::LegacyWrite(dir_.Sub("data"), info, request);
    Restart();
    return written;
  }
  absl::Status LegacyRename(const std::string& database, const std::string& table,
                            const std::string& new_database,
                            const std::string& new_table) override {
    auto db = engine_->catalog().DescribeDatabase(database);
    if (!db.ok()) return db.status();
    auto found = engine_->catalog().FindTable(database, table);
    if (!found.ok()) return found.status();
    const TableInfo info = **found;
    query_.reset();
    engine_.reset();
    absl::Status renamed =
        testing::LegacyRename(dir_.Sub("data"), *db, info, new_database, new_table);
    Restart();
    return renamed;
  }
  void Maintain() override {
    // The tiering and retention jobs at the current clock.
    for (const TableMaintenance& r : engine_->RunMaintenance()) {
      ASSERT_TRUE(r.status.ok()) << r.status;
    }
  }

 private:
  testing::TempDir dir_;
  ManualClock clock_{0};
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<query::QueryEngine> query_;
};

class SqlLogicTest : public ::testing::TestWithParam<std::string> {};

TEST_P(SqlLogicTest, Run) {
  InProcess backend;
  testing::RunSqlLogicFile(std::string(STRATA_SQL_TEST_DIR) + "/" + GetParam(), GetParam(),
                           backend);
}

INSTANTIATE_TEST_SUITE_P(Sql, SqlLogicTest,
                         ::testing::ValuesIn(testing::SqlLogicFiles(STRATA_SQL_TEST_DIR)),
                         [](const auto& info) { return testing::SqlLogicTestName(info.param); });

}  // namespace
}  // namespace strata
