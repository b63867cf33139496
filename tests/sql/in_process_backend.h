// The SQL engine in-process as a golden-file backend (tests/sql/sql_logic_runner.h): a real
// storage engine in a temporary directory with a manual clock, every read statement run twice,
// its result taken as rows and as column batches, which must agree.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "common/clock.h"
#include "common/strings.h"
#include "gtest/gtest.h"
#include "query/engine.h"
#include "storage/engine.h"
#include "tests/sql/sql_logic_runner.h"
#include "tests/support/legacy_writer.h"
#include "tests/support/temp_dir.h"

namespace strata::testing {

// A query whose second run changes nothing: SELECT (WITH ...) and EXPLAIN.
inline bool IsReadOnly(std::string_view sql) {
  const size_t start = sql.find_first_not_of(" \t\n(");
  if (start == std::string_view::npos) return false;
  const std::string_view head = sql.substr(start);
  for (std::string_view word : {"select", "with", "explain"}) {
    if (head.size() >= word.size() &&
        absl::EqualsIgnoreCase(absl::string_view(head.data(), word.size()),
                               absl::string_view(word.data(), word.size()))) {
      return true;
    }
  }
  return false;
}

// The result as text lines; `batches`: taking it as column batches where
// the plan can give them (the gRPC server's way), else as rows (PostgreSQL's).
class CollectLines : public query::ResultSink {
 public:
  explicit CollectLines(bool batches) : batches_(batches) {}
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
  bool TakesBatches() const override { return batches_; }
  absl::Status Batches(const query::Batch& batch) override {
    std::vector<query::Row> rows(batch.rows);
    for (size_t i = 0; i < batch.rows; ++i) {
      for (const query::Vector& c : batch.columns) rows[i].push_back(c.Get(i));
    }
    return Rows(std::move(rows));
  }
  std::vector<std::string> lines;

 private:
  bool batches_;
};

class InProcess : public SqlLogicBackend {
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
  // Every statement runs twice, its result taken as rows and as batches:
  // both paths through the operators must give the same answer.
  absl::StatusOr<std::vector<std::string>> Query(const std::string& sql) override {
    CollectLines rows(/*batches=*/false);
    auto stats = query_->Execute(sql, {}, &rows);
    if (!stats.ok()) return stats.status();
    if (!IsReadOnly(sql)) return rows.lines;
    CollectLines batches(/*batches=*/true);
    auto again = query_->Execute(sql, {}, &batches);
    if (!again.ok()) return again.status();
    if (batches.lines != rows.lines) {
      return absl::InternalError(StrCat("taken as batches, the result differs from the rows':\n",
                                        absl::StrJoin(batches.lines, "\n"), "\nrather than\n",
                                        absl::StrJoin(rows.lines, "\n")));
    }
    return rows.lines;
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
  TempDir dir_;
  ManualClock clock_{0};
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<query::QueryEngine> query_;
};

}  // namespace strata::testing
