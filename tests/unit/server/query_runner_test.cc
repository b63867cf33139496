// The query runner every front door uses, on a real engine: admission and a
// full queue, the registry (SHOW QUERIES' list, cancel by owner or admin),
// the timeout, the memory budget and the caller's grants.
#include "server/runner/query_runner.h"

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/server/server_test_base.h"

namespace strata {
namespace {

using ::testing::HasSubstr;

// Keeps the rows of a result.
class RowsSink final : public query::ResultSink {
 public:
  absl::Status Columns(const std::vector<query::ResultColumn>& columns) override {
    columns_ = columns;
    return absl::OkStatus();
  }
  absl::Status Rows(std::vector<query::Row> page) override {
    for (auto& row : page) rows_.push_back(std::move(row));
    return absl::OkStatus();
  }
  std::vector<query::ResultColumn> columns_;
  std::vector<query::Row> rows_;
};

std::shared_ptr<const Principal> Token(std::string name, std::vector<std::string> grants) {
  return std::make_shared<const Principal>(Principal::ForToken(std::move(name), grants));
}

class QueryRunnerTest : public ServerUnitTest {
 protected:
  void SetUp() override {
    ServerUnitTest::SetUp();
    CreateTable("cpu");
    WriteRequest request{.database_name = "mydb", .table_name = "cpu"};
    for (int i = 0; i < 10; ++i) {
      InputRecord r;
      r.dimensions = {{"host", "h" + std::to_string(i)}};
      r.measure_name = "usage";
      r.measure_value_type = MeasureKind::kDouble;
      r.measure_value = Value::Double(i);
      r.time = kNow / 1'000'000 - i * 1000;
      request.records.push_back(std::move(r));
    }
    ASSERT_TRUE(engine_->Write(std::move(request)).ok());
  }

  void StartRunner(QueryLimits limits) {
    limits.slow_query_millis = -1;
    runner_ = std::make_unique<QueryRunner>(engine_.get(), metrics_.get(), limits);
  }

  // Runs `sql` for `caller` on a thread of its own.
  std::future<absl::StatusOr<query::QueryStats>> RunInBackground(
      std::shared_ptr<const Principal> caller, std::string sql,
      std::shared_ptr<std::atomic<bool>> cancel = nullptr, int64_t timeout_millis = 0) {
    return std::async(std::launch::async, [=, this] {
      RowsSink sink;
      return runner_->Run({.caller = caller, .sql = sql, .peer = "test", .cancel = cancel,
                           .timeout_millis = timeout_millis},
                          &sink);
    });
  }

  // Waits until `caller` sees `n` running queries.
  void AwaitRunning(const Principal& caller, size_t n) {
    for (int i = 0; i < 500 && runner_->ListRunning(caller).size() != n; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ASSERT_EQ(runner_->ListRunning(caller).size(), n);
  }

  std::unique_ptr<QueryRunner> runner_;
};

TEST_F(QueryRunnerTest, RunsAStatementIntoTheSinkAndLeavesTheRegistry) {
  StartRunner({});
  RowsSink sink;
  auto stats = runner_->Run({.caller = Token("reader", {"read:mydb"}),
                             .sql = "SELECT count(*) AS n FROM cpu",
                             .default_database = "mydb"},
                            &sink);
  ASSERT_TRUE(stats.ok()) << stats.status();
  ASSERT_EQ(sink.columns_.size(), 1u);
  EXPECT_EQ(sink.columns_[0].name, "n");
  ASSERT_EQ(sink.rows_.size(), 1u);
  EXPECT_EQ(sink.rows_[0][0].i, 10);
  EXPECT_EQ(sink.rows_[0][0].type, query::DataType::kBigint);
  EXPECT_EQ(stats->rows_returned, 1);
  EXPECT_TRUE(runner_->ListRunning(Principal::Unrestricted()).empty());
}

TEST_F(QueryRunnerTest, ChecksTheCallersGrantsOnEveryTableNamed) {
  StartRunner({});
  RowsSink sink;
  auto denied = runner_->Run(
      {.caller = Token("other", {"read:otherdb"}), .sql = "SELECT * FROM mydb.cpu"}, &sink);
  EXPECT_EQ(denied.status().code(), absl::StatusCode::kPermissionDenied) << denied.status();
  EXPECT_TRUE(sink.rows_.empty());
  // A grant on the table itself is enough for it, and for it only.
  auto read = runner_->Run(
      {.caller = Token("table", {"read:mydb/cpu"}), .sql = "SELECT * FROM mydb.cpu"}, &sink);
  EXPECT_TRUE(read.ok()) << read.status();
  CreateTable("mem");
  auto joined = runner_->Run({.caller = Token("table", {"read:mydb/cpu"}),
                              .sql = "SELECT count(*) FROM mydb.cpu, mydb.mem"},
                             &sink);
  EXPECT_EQ(joined.status().code(), absl::StatusCode::kPermissionDenied) << joined.status();
  EXPECT_THAT(joined.status().message(), HasSubstr("mem"));
}

TEST_F(QueryRunnerTest, RefusesAtOnceWhenTheQueueIsFull) {
  // One worker, one queued: a third query of the same token is refused.
  StartRunner({.workers = 1, .queue = 1, .testing_delay_millis = 60'000});
  auto caller = Token("storm", {"read:*"});
  auto cancel = std::make_shared<std::atomic<bool>>(false);
  auto first = RunInBackground(caller, "SELECT 1", cancel);
  AwaitRunning(*caller, 1);
  auto second = RunInBackground(caller, "SELECT 2", cancel);
  AwaitRunning(*caller, 2);
  RowsSink sink;
  auto refused = runner_->Run({.caller = caller, .sql = "SELECT 3", .peer = "test"}, &sink);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(refused.status().message(), HasSubstr("--query-workers"));
  // The refused query never ran, and is not listed.
  EXPECT_EQ(runner_->ListRunning(*caller).size(), 2u);
  EXPECT_TRUE(sink.columns_.empty());
  *cancel = true;
  EXPECT_EQ(first.get().status().code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(second.get().status().code(), absl::StatusCode::kCancelled);
}

TEST_F(QueryRunnerTest, OnlyTheOwnerOrAnAdminSeesAndCancelsAQuery) {
  StartRunner({.testing_delay_millis = 60'000});
  auto owner = Token("owner", {"read:*"});
  auto other = Token("other", {"read:*"});
  auto admin = Token("root", {"admin"});
  auto running = RunInBackground(owner, "SELECT 42");
  AwaitRunning(*owner, 1);
  const std::vector<query::RunningQuery> listed = runner_->ListRunning(*owner);
  EXPECT_EQ(listed[0].text, "SELECT 42");
  EXPECT_EQ(listed[0].token, "owner");
  EXPECT_EQ(listed[0].peer, "test");
  EXPECT_TRUE(runner_->ListRunning(*other).empty());
  EXPECT_EQ(runner_->ListRunning(*admin).size(), 1u);
  EXPECT_FALSE(runner_->Cancel(*other, listed[0].id));
  EXPECT_FALSE(runner_->Cancel(*owner, "no-such-query"));
  EXPECT_TRUE(runner_->Cancel(*admin, listed[0].id));
  auto ended = running.get();
  EXPECT_EQ(ended.status().code(), absl::StatusCode::kCancelled) << ended.status();
  EXPECT_TRUE(runner_->ListRunning(*admin).empty());
}

TEST_F(QueryRunnerTest, TheTimeoutEndsAQuery) {
  StartRunner({.testing_delay_millis = 60'000});
  auto result = RunInBackground(Token("t", {"read:*"}), "SELECT 1", nullptr,
                                /*timeout_millis=*/50)
                    .get();
  EXPECT_EQ(result.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(result.status().message(), HasSubstr("timeout of 50 ms"));
}

TEST_F(QueryRunnerTest, QueriesShareTheServerWideMemoryBudget) {
  StartRunner({.total_memory_bytes = 64 << 10});
  RowsSink sink;
  auto result = runner_->Run(
      {.caller = Token("t", {"read:*"}),
       .sql = "SELECT x FROM UNNEST(sequence(1, 200000)) AS t(x) ORDER BY x DESC"},
      &sink);
  EXPECT_EQ(result.status().code(), absl::StatusCode::kResourceExhausted) << result.status();
  EXPECT_EQ(runner_->memory_budget().used(), 0);
  // A front door's own reservation comes from the same budget.
  EXPECT_TRUE(runner_->memory_budget().Reserve(32 << 10, "a portal").ok());
  EXPECT_FALSE(runner_->memory_budget().Reserve(64 << 10, "another portal").ok());
  runner_->memory_budget().Release(32 << 10);
}

TEST_F(QueryRunnerTest, DescribeOnlyPlansWithoutRunning) {
  StartRunner({.testing_delay_millis = 60'000});
  query::ColumnsSink sink;
  // Not delayed (planning a statement is not a query run): the delay would
  // take it past its timeout.
  auto planned = runner_->Run({.caller = Token("t", {"read:*"}),
                               .sql = "SELECT host, measure_value::double FROM mydb.cpu",
                               .timeout_millis = 2000,
                               .describe_only = true},
                              &sink);
  ASSERT_TRUE(planned.ok()) << planned.status();
  ASSERT_EQ(sink.columns().size(), 2u);
  EXPECT_EQ(sink.columns()[0].name, "host");
}

}  // namespace
}  // namespace strata
