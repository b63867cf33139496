// The query runner every front door uses, on a real engine: admission and a
// full queue, the registry (SHOW QUERIES' list, cancel by owner or admin),
// the timeout, the memory budget and the caller's grants.
#include "server/runner/query_runner.h"

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/strings.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "storage/read/table_state.h"
#include "tests/unit/server/server_test_base.h"

namespace strata {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

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
    WriteTenHosts("cpu");
  }

  // The table "pinned", partitioned by its host dimension, with WriteTenHosts' points; its
  // partition key.
  PartitionKey CreatePinnedTable() {
    const PartitionKey key{.type = PartitionKeyType::kDimension, .name = "host"};
    EXPECT_TRUE(
        engine_->catalog()
            .CreateTable({.database_name = "mydb", .table_name = "pinned", .partition_key = key})
            .ok());
    WriteTenHosts("pinned");
    return key;
  }

  // One usage point for each of hosts h0..h9, h<i> i seconds old, with the value i.
  void WriteTenHosts(const std::string& table) {
    WriteRequest request{.database_name = "mydb", .table_name = table};
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
  // (Up to 30 s: under a full parallel test run a thread can wait seconds to be scheduled.)
  void AwaitRunning(const Principal& caller, size_t n) {
    for (int i = 0; i < 3000 && runner_->ListRunning(caller).size() != n; ++i) {
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
  std::future<absl::StatusOr<query::QueryStats>> first, second;
  // Whatever fails, the queries end before their futures are waited for, and no third query
  // is queued behind a minute's delay.
  struct CancelAtExit {
    std::atomic<bool>& cancel;
    ~CancelAtExit() { cancel = true; }
  } cancel_at_exit{*cancel};
  first = RunInBackground(caller, "SELECT 1", cancel);
  ASSERT_NO_FATAL_FAILURE(AwaitRunning(*caller, 1));
  second = RunInBackground(caller, "SELECT 2", cancel);
  ASSERT_NO_FATAL_FAILURE(AwaitRunning(*caller, 2));
  // Listed is not yet queued: a third query sent between the two took the queue's place and
  // waited out the first's minute (CI, session 52: the test's 120 s timeout).
  for (int i = 0; i < 3000 && runner_->queued() != 1; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(runner_->queued(), 1);
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

// A small leader read as the runner drives it: what the plan said it reads, and the
// confirmation, which asks one other node.
class NotedLocalRead final : public query::LocalLeaderRead {
 public:
  static constexpr uint32_t kShards = 4;
  explicit NotedLocalRead(std::function<absl::Status()> confirm) : confirm_(std::move(confirm)) {}
  uint32_t shard_count() const override { return kShards; }
  void TableResolved() override { ++resolved; }
  void Reading(const std::optional<std::set<uint32_t>>& read) override {
    ++tables_read;
    if (!plan_only) ++asked_while_reading;
    if (read.has_value()) {
      shards.insert(read->begin(), read->end());
    } else {
      every = true;
    }
  }
  void ReadingEvery() override { every = true; }
  void PlanOnly() override { plan_only = true; }
  absl::Status Confirm() override { return confirm_(); }
  int leaders_asked() const override { return 1; }
  std::string Describe() const override {
    return every ? "noted: every shard" : StrCat("noted: ", shards.size(), " shards");
  }
  // Whether the read depends on every shard, as LocalLeaderRead's contract has it.
  bool DependsOnEvery() const { return every || resolved > tables_read; }

  int resolved = 0;
  int tables_read = 0;
  // Reading calls that would have asked leaders (before any PlanOnly).
  int asked_while_reading = 0;
  bool plan_only = false;
  bool every = false;
  std::set<uint32_t> shards;

 private:
  std::function<absl::Status()> confirm_;
};

// A cluster node's small leader read (docs/cluster.md, "A small leader read"): a statement's
// shape that scanned few rows is prepared as `small` the next time; its answer is held until
// `confirm` passes, and when it does not, nothing of it went out and the query is read again
// as prepared without `small`.
TEST_F(QueryRunnerTest, ASmallLeaderReadIsHeldUntilConfirmedAndReadAgainWhenNot) {
  StartRunner({});
  std::vector<bool> prepared_small;
  int confirms = 0;
  bool replicas_current = false;
  runner_->SetClusterMode(
      [&](const query::ReadChoice&, std::chrono::milliseconds, bool, bool small) {
        prepared_small.push_back(small);
        query::PreparedReads reads;  // this engine holds every row: no ShardReads
        if (small) {
          reads.local_leader_read = std::make_shared<NotedLocalRead>([&]() -> absl::Status {
            ++confirms;
            if (replicas_current) return absl::OkStatus();
            return absl::FailedPreconditionError("a replica was behind");
          });
        }
        return absl::StatusOr<query::PreparedReads>(std::move(reads));
      },
      /*deletes=*/nullptr, /*ddl=*/nullptr, query::ReadChoice(), /*small_read_rows=*/5,
      /*catch_up_catalog=*/nullptr);
  struct CountingSink final : public query::ResultSink {
    absl::Status Columns(const std::vector<query::ResultColumn>&) override {
      ++columns;
      return absl::OkStatus();
    }
    absl::Status Rows(std::vector<query::Row> page) override {
      for (auto& row : page) values.push_back(row[0].i);
      return absl::OkStatus();
    }
    int columns = 0;
    std::vector<int64_t> values;
  };
  auto run = [&](const std::string& sql) {
    CountingSink sink;
    auto stats = runner_->Run(
        {.caller = Token("t", {"read:*"}), .sql = sql, .default_database = "mydb"}, &sink);
    EXPECT_TRUE(stats.ok()) << sql << ": " << stats.status();
    EXPECT_EQ(sink.columns, 1) << sql;
    return sink.values;
  };
  // One host's rows: 1 scanned, small. The first run of its shape is not.
  EXPECT_EQ(run("SELECT count(*) FROM cpu WHERE host = 'h1'"), std::vector<int64_t>{1});
  EXPECT_EQ(prepared_small, std::vector<bool>{false});
  // Another host, the same shape: read as small, refused, read again; one answer went out.
  EXPECT_EQ(run("SELECT count(*) FROM cpu WHERE host = 'h2'"), std::vector<int64_t>{1});
  EXPECT_EQ(prepared_small, (std::vector<bool>{false, true, false}));
  EXPECT_EQ(confirms, 1);
  replicas_current = true;
  EXPECT_EQ(run("SELECT count(*) FROM cpu WHERE host = 'h3'"), std::vector<int64_t>{1});
  EXPECT_EQ(prepared_small, (std::vector<bool>{false, true, false, true}));
  EXPECT_EQ(confirms, 2);
  // Every host's rows: 10 scanned, more than 5: never small.
  prepared_small.clear();
  for (int i = 0; i < 2; ++i) EXPECT_EQ(run("SELECT count(*) FROM cpu"), std::vector<int64_t>{10});
  EXPECT_EQ(prepared_small, (std::vector<bool>{false, false}));
  // A failure is confirmed too before it goes out (a replica behind may fail where its leader
  // would not): h8 and h9 divide by one, h9 alone by zero.
  const std::string divide = "SELECT 1 / (count(*) - 1) FROM cpu WHERE host >= ";
  EXPECT_EQ(run(divide + "'h8'"), std::vector<int64_t>{1});
  replicas_current = false;
  prepared_small.clear();
  RowsSink sink;
  auto failed = runner_->Run(
      {.caller = Token("t", {"read:*"}), .sql = divide + "'h9'", .default_database = "mydb"},
      &sink);
  EXPECT_FALSE(failed.ok());
  EXPECT_EQ(prepared_small, (std::vector<bool>{true, false})) << "refused, then read again";
  EXPECT_EQ(confirms, 3);
  const std::string metrics = metrics_->Render();
  EXPECT_THAT(metrics, HasSubstr("strata_local_leader_reads_total{outcome=\"behind\"} 2"));
  EXPECT_THAT(metrics, HasSubstr("strata_local_leader_reads_total{outcome=\"confirmed\"} 1"));
  EXPECT_THAT(metrics, HasSubstr("strata_local_leader_read_questions_total 3"));
}

// An EXPLAIN is planned as its statement would run now: once the statement's shape is known
// small, on this node's replicas, which a line above the plan says (with the shards whose
// leaders the answer waits for). It neither confirms (no rows to hold) nor teaches the runner
// a size: an EXPLAIN scans nothing, which would make any statement look small. Nor does it
// ask the leaders it names: its read is plan-only before the plan is made.
TEST_F(QueryRunnerTest, AnExplainShowsWhereItsStatementWouldBeRead) {
  CreatePinnedTable();
  StartRunner({});
  std::vector<bool> prepared_small;
  int confirms = 0;
  std::shared_ptr<NotedLocalRead> last_read;
  runner_->SetClusterMode(
      [&](const query::ReadChoice&, std::chrono::milliseconds, bool, bool small) {
        prepared_small.push_back(small);
        query::PreparedReads reads;
        if (small) {
          last_read = std::make_shared<NotedLocalRead>([&] {
            ++confirms;
            return absl::OkStatus();
          });
          reads.local_leader_read = last_read;
        }
        return absl::StatusOr<query::PreparedReads>(std::move(reads));
      },
      /*deletes=*/nullptr, /*ddl=*/nullptr, query::ReadChoice(), /*small_read_rows=*/5,
      /*catch_up_catalog=*/nullptr);
  auto lines = [&](const std::string& sql) {
    RowsSink sink;
    auto stats = runner_->Run(
        {.caller = Token("t", {"read:*"}), .sql = sql, .default_database = "mydb"}, &sink);
    EXPECT_TRUE(stats.ok()) << sql << ": " << stats.status();
    std::vector<std::string> out;
    for (const query::Row& row : sink.rows_) out.push_back(row[0].s);
    return out;
  };
  const std::string one_host = "SELECT count(*) FROM pinned WHERE host = 'h1'";
  // Never run: its size unknown, so read at the leaders, and no line about replicas.
  std::vector<std::string> plan = lines("EXPLAIN " + one_host);
  ASSERT_FALSE(plan.empty());
  EXPECT_THAT(plan.front(), Not(HasSubstr("noted")));
  // Run twice, the EXPLAIN above not counting as a run: small only the second time.
  lines(one_host);
  lines(one_host);
  EXPECT_EQ(prepared_small, (std::vector<bool>{false, false, true}));
  EXPECT_EQ(confirms, 1);
  ASSERT_NE(last_read, nullptr);
  EXPECT_FALSE(last_read->plan_only);
  EXPECT_EQ(last_read->asked_while_reading, 1);
  // Now its EXPLAIN, another host's, is planned as the small read it would be.
  plan = lines("EXPLAIN SELECT count(*) FROM pinned WHERE host = 'h2'");
  ASSERT_GE(plan.size(), 2u);
  EXPECT_EQ(plan.front(), "noted: 1 shards");  // the one h2's partition key hashes to
  EXPECT_EQ(prepared_small.back(), true);
  EXPECT_EQ(confirms, 1) << "an EXPLAIN confirms nothing";
  EXPECT_TRUE(last_read->plan_only);
  EXPECT_EQ(last_read->asked_while_reading, 0) << "an EXPLAIN asks no leader";
  // A star's columns are every shard's.
  lines("SELECT * FROM pinned WHERE host = 'h1'");
  EXPECT_EQ(lines("EXPLAIN SELECT * FROM pinned WHERE host = 'h3'").front(), "noted: every shard");
  // An EXPLAIN of a statement whose shape never ran stays unknown after it: still not small.
  const std::string all_hosts = "SELECT max(measure_value::double) FROM cpu";
  lines("EXPLAIN " + all_hosts);
  lines("EXPLAIN " + all_hosts);
  prepared_small.clear();
  lines(all_hosts);
  EXPECT_EQ(prepared_small, std::vector<bool>{false});
}

// The plan of a small leader read names the shards its rows come from: those a condition on
// the table's DIMENSION partition key pins, or every shard when the answer may depend on any
// (no such condition, a star's columns, information_schema, an error, another partition key).
TEST_F(QueryRunnerTest, ASmallLeaderReadsPlanNamesTheShardsItReads) {
  const PartitionKey key = CreatePinnedTable();
  auto shard_of = [&](const std::string& host) {
    return ShardOf(PartitionHash("", host, key), NotedLocalRead::kShards);
  };

  StartRunner({});
  std::shared_ptr<NotedLocalRead> last;
  runner_->SetClusterMode(
      [&](const query::ReadChoice&, std::chrono::milliseconds, bool, bool small) {
        query::PreparedReads reads;
        if (small) {
          last = std::make_shared<NotedLocalRead>([] { return absl::OkStatus(); });
          reads.local_leader_read = last;
        }
        return absl::StatusOr<query::PreparedReads>(std::move(reads));
      },
      /*deletes=*/nullptr, /*ddl=*/nullptr, query::ReadChoice(), /*small_read_rows=*/5,
      /*catch_up_catalog=*/nullptr);
  // Each statement twice: its shape's first run fans out and finds it small.
  auto noted = [&](const std::string& sql, const std::string& then = "") {
    for (const std::string& run : {sql, then.empty() ? sql : then}) {
      last = nullptr;
      RowsSink sink;
      (void)runner_->Run({.caller = Token("t", {"read:*"}), .sql = run, .default_database = "mydb"},
                         &sink);
    }
    return last;
  };
  struct Case {
    std::string sql;
    bool every;
    std::set<uint32_t> shards;  // when not every
  };
  const std::vector<Case> cases = {
      {"SELECT count(*) FROM pinned WHERE host = 'h1'", false, {shard_of("h1")}},
      {"SELECT max(measure_value::double) FROM pinned WHERE 'h2' = host AND time > ago(1h)",
       false,
       {shard_of("h2")}},
      {"SELECT count(*) FROM pinned WHERE host IN ('h3', 'h4')",
       false,
       {shard_of("h3"), shard_of("h4")}},
      {"SELECT count(*) FROM pinned WHERE host IN ('h3', 'h4') AND host = 'h4'",
       false,
       {shard_of("h4")}},
      {"SELECT count(*) FROM pinned WHERE host >= 'h8'", true, {}},
      {"SELECT count(*) FROM pinned WHERE host = 'h1' OR host = 'h2'", true, {}},
      {"SELECT * FROM pinned WHERE host = 'h1'", true, {}},
      {"SELECT count(*) FROM cpu WHERE host = 'h1'", true, {}},
      {"SELECT count(*) FROM pinned a JOIN pinned b ON a.host = b.host WHERE a.host = 'h1'",
       true,
       {}},
      {"SELECT count(*) FROM information_schema.columns WHERE table_name = 'nothing'", true, {}},
  };
  for (const Case& c : cases) {
    std::shared_ptr<NotedLocalRead> read = noted(c.sql);
    ASSERT_NE(read, nullptr) << c.sql << ": not read as small";
    EXPECT_EQ(read->DependsOnEvery(), c.every) << c.sql;
    if (!c.every) {
      EXPECT_EQ(read->shards, c.shards) << c.sql;
    }
  }
  // An error depends on every shard (h9 alone divides by zero; h8 and h9 by one).
  const std::string divide = "SELECT 1 / (count(*) - 1) FROM pinned WHERE host IN ";
  std::shared_ptr<NotedLocalRead> failed = noted(divide + "('h8', 'h9')", divide + "('h9', 'h9')");
  ASSERT_NE(failed, nullptr);
  EXPECT_TRUE(failed->every);
  // No table: nothing to ask.
  std::shared_ptr<NotedLocalRead> none = noted("SELECT 1");
  ASSERT_NE(none, nullptr);
  EXPECT_FALSE(none->DependsOnEvery());
  EXPECT_TRUE(none->shards.empty());
}

}  // namespace
}  // namespace strata
