// The scheduler against a clock the test moves and a fake query runner: each
// invocation runs once with @scheduled_runtime bound to its time, its rows
// reach the target table through the ingest door, a failed run is retried
// after the retry delay, and a manual run is recorded as such.
#include "server/scheduler/scheduled_queries.h"

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/runner/ingest.h"
#include "tests/unit/server/server_test_base.h"

namespace strata {
namespace {

using query::DataType;
using query::Datum;
using ::testing::HasSubstr;

// Answers every statement with one row: host "h1", the invocation time
// (@scheduled_runtime) and a value; fails the next `failures` runs.
class FakeRunner final : public StatementRunner {
 public:
  absl::StatusOr<query::QueryStats> Run(Request request, query::ResultSink* sink) override {
    {
      absl::MutexLock lock(&mu_);
      if (!request.describe_only)
        runtimes_.push_back(request.parameters.named["scheduled_runtime"].i);
      if (!request.describe_only && failures_ > 0) {
        --failures_;
        return absl::UnavailableError("the fake runner fails this run");
      }
    }
    RETURN_IF_ERROR(sink->Columns({{"host", DataType::kVarchar},
                                   {"minute", DataType::kTimestamp},
                                   {"value", DataType::kDouble}}));
    if (request.describe_only) return query::QueryStats{};
    const Datum runtime = request.parameters.named["scheduled_runtime"];
    std::vector<query::Row> rows;
    rows.push_back({Datum::Varchar("h1"), runtime, Datum::Double(1.5)});
    RETURN_IF_ERROR(sink->Rows(std::move(rows)));
    return query::QueryStats{.rows_returned = 1};
  }
  query::MemoryBudget& memory_budget() override { return budget_; }

  void FailNext(int runs) {
    absl::MutexLock lock(&mu_);
    failures_ = runs;
  }
  // The @scheduled_runtime of each run, in nanoseconds.
  std::vector<int64_t> runtimes() {
    absl::MutexLock lock(&mu_);
    return runtimes_;
  }

 private:
  query::MemoryBudget budget_{1 << 20};
  absl::Mutex mu_;
  int failures_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<int64_t> runtimes_ ABSL_GUARDED_BY(mu_);
};

ScheduledQueryDefinition EveryMinute() {
  return {
      .name = "rollup",
      .query_string =
          "SELECT host, bin(time, 1m) AS minute, avg(measure_value::double) AS "
          "value FROM mydb.cpu WHERE time BETWEEN @scheduled_runtime - 1m AND "
          "@scheduled_runtime GROUP BY 1, 2",
      .schedule_expression = "rate(1 minute)",
      .target = {.database_name = "mydb",
                 .table_name = "rollup",
                 .time_column = "minute",
                 .dimensions = {"host"},
                 .multi = TargetSpec::MultiMeasures{
                     .target_measure_name = "cpu_1m",
                     .attributes = {{.source_column = "value", .type = MeasureKind::kDouble}}}}};
}

class ScheduledQueriesTest : public ServerUnitTest {
 protected:
  void SetUp() override {
    ServerUnitTest::SetUp();
    ingest_ = std::make_unique<Ingest>(engine_.get(), metrics_.get());
    CreateTable("cpu");
    CreateTable("rollup");
    auto scheduled =
        ScheduledQueries::Open(engine_.get(), &runner_, ingest_.get(), auth_.get(),
                               {.retries = 1, .retry_delay_nanos = 30 * kNanosPerSecond});
    ASSERT_TRUE(scheduled.ok()) << scheduled.status();
    scheduled_ = std::move(*scheduled);
    scheduled_->Start();
  }
  void TearDown() override { scheduled_->Stop(); }

  std::shared_ptr<const Principal> Caller() {
    return {std::shared_ptr<void>(), &Principal::Unrestricted()};
  }

  // Moves the clock and lets the scheduler run what is due.
  void Advance(int64_t nanos) {
    clock_.Advance(nanos);
    scheduled_->RunDue();
  }

  // The last run of "rollup" (an empty run if there is none).
  ScheduledQueryRunSummary LastRun() {
    auto described = scheduled_->Describe(Principal::Unrestricted(), "rollup");
    EXPECT_TRUE(described.ok()) << described.status();
    if (!described.ok() || !described->last_run) return {};
    return *described->last_run;
  }

  FakeRunner runner_;
  std::unique_ptr<Ingest> ingest_;
  std::unique_ptr<ScheduledQueries> scheduled_;
};

TEST_F(ScheduledQueriesTest, EachInvocationRunsOnceWithItsTimeAndWritesTheTarget) {
  ASSERT_TRUE(scheduled_->Create(Caller(), EveryMinute()).ok());
  scheduled_->RunDue();
  EXPECT_TRUE(runner_.runtimes().empty()) << "nothing is due before the first minute ends";
  Advance(60 * kNanosPerSecond);
  ASSERT_EQ(runner_.runtimes().size(), 1u);
  EXPECT_EQ(runner_.runtimes()[0], kNow + 60 * kNanosPerSecond);
  // Asked again at the same time: nothing runs twice.
  scheduled_->RunDue();
  EXPECT_EQ(runner_.runtimes().size(), 1u);
  const ScheduledQueryRunSummary last = LastRun();
  EXPECT_EQ(last.status, RunStatus::kAutoTriggerSuccess);
  EXPECT_EQ(last.stats.records_ingested, 1);
  // The row reached the table through the ingest door, counted.
  EXPECT_THAT(metrics_->Render(), HasSubstr("strata_records_ingested_total{tier=\"memory\"} 1"));
}

// On a cluster one node runs the schedules; another (runs_here false) lists them and, once
// told to reload, sees what the runner recorded in the shared store.
TEST_F(ScheduledQueriesTest, OnlyTheRunnerRunsAndAReloadShowsItsRuns) {
  bool runs = false;
  auto follower = ScheduledQueries::Open(engine_.get(), &runner_, ingest_.get(), auth_.get(),
                                         {.runs_here = [&runs] { return runs; }});
  ASSERT_TRUE(follower.ok()) << follower.status();
  (*follower)->Start();
  ASSERT_TRUE(scheduled_->Create(Caller(), EveryMinute()).ok());
  ASSERT_TRUE((*follower)->Reload().ok());
  ASSERT_TRUE((*follower)->Describe(Principal::Unrestricted(), "rollup").ok());
  clock_.Advance(60 * kNanosPerSecond);
  (*follower)->RunDue();
  EXPECT_TRUE(runner_.runtimes().empty()) << "a node that does not run them ran one";
  scheduled_->RunDue();
  ASSERT_EQ(runner_.runtimes().size(), 1u);
  // Told which one changed (a cluster's watch does): that one is read again.
  ASSERT_TRUE((*follower)->Reload("rollup").ok());
  auto seen = (*follower)->Describe(Principal::Unrestricted(), "rollup");
  ASSERT_TRUE(seen.ok() && seen->last_run.has_value());
  EXPECT_EQ(seen->last_run->invocation_nanos, kNow + 60 * kNanosPerSecond);
  // Deleted through the runner: gone from the other after a reload.
  ASSERT_TRUE(scheduled_->Delete(Principal::Unrestricted(), "rollup").ok());
  ASSERT_TRUE((*follower)->Reload("rollup").ok());
  EXPECT_EQ((*follower)->Describe(Principal::Unrestricted(), "rollup").status().code(),
            absl::StatusCode::kNotFound);
  (*follower)->Stop();
}

// The engine's records, whose next LoadAll once `pause` is set waits, after it has read them,
// until the test lets it return: a write may then land between a reload's read and its install.
class PausedFirstLoad final : public ScheduledQueryRecords {
 public:
  explicit PausedFirstLoad(ScheduledQueryRecords* records) : records_(*records) {}
  absl::StatusOr<std::vector<ScheduledQueryRecord>> LoadAll() const override {
    auto all = records_.LoadAll();
    if (pause.exchange(false)) {
      read_.Notify();
      release_.WaitForNotification();
    }
    return all;
  }
  absl::StatusOr<std::optional<ScheduledQueryRecord>> Load(std::string_view name) const override {
    return records_.Load(name);
  }
  absl::Status Put(const ScheduledQueryRecord& record) override { return records_.Put(record); }
  absl::Status Delete(std::string_view name) override { return records_.Delete(name); }
  absl::StatusOr<std::vector<ScheduledQueryRun>> LoadRuns(std::string_view name) const override {
    return records_.LoadRuns(name);
  }
  absl::Status PutRun(const ScheduledQueryRecord& record, const ScheduledQueryRun& run,
                      uint64_t keep_from) override {
    return records_.PutRun(record, run, keep_from);
  }

  mutable std::atomic<bool> pause{false};
  mutable absl::Notification read_;
  absl::Notification release_;

 private:
  ScheduledQueryRecords& records_;
};

// A query created here while a reload (a node taking the runner's role) was between reading
// the records and installing them stays in the schedule and runs (CI, session 81: the reload
// dropped it, and the cluster's runner never ran it).
TEST_F(ScheduledQueriesTest, AQueryCreatedDuringAReloadStaysScheduled) {
  scheduled_->Stop();
  PausedFirstLoad records(&engine_->scheduled_queries());
  auto scheduled = ScheduledQueries::Open(engine_.get(), &runner_, ingest_.get(), auth_.get(),
                                          {.records = &records});
  ASSERT_TRUE(scheduled.ok()) << scheduled.status();
  scheduled_ = std::move(*scheduled);
  scheduled_->Start();
  records.pause = true;
  std::thread reload([this] { EXPECT_TRUE(scheduled_->Reload().ok()); });
  records.read_.WaitForNotification();  // it read the records: none yet
  ASSERT_TRUE(scheduled_->Create(Caller(), EveryMinute()).ok());
  records.release_.Notify();
  reload.join();
  EXPECT_TRUE(scheduled_->Describe(Principal::Unrestricted(), "rollup").ok());
  Advance(60 * kNanosPerSecond);
  EXPECT_EQ(runner_.runtimes().size(), 1u);
}

TEST_F(ScheduledQueriesTest, AFailedRunIsRetriedAfterTheDelay) {
  ASSERT_TRUE(scheduled_->Create(Caller(), EveryMinute()).ok());
  runner_.FailNext(1);
  Advance(60 * kNanosPerSecond);
  ASSERT_EQ(runner_.runtimes().size(), 1u);
  EXPECT_EQ(LastRun().status, RunStatus::kAutoTriggerFailure);
  EXPECT_THAT(LastRun().failure_reason, HasSubstr("fails this run"));
  Advance(10 * kNanosPerSecond);
  EXPECT_EQ(runner_.runtimes().size(), 1u) << "retried before the retry delay";
  Advance(20 * kNanosPerSecond);
  ASSERT_EQ(runner_.runtimes().size(), 2u);
  // The retry is the same invocation.
  EXPECT_EQ(runner_.runtimes()[1], runner_.runtimes()[0]);
  EXPECT_EQ(LastRun().status, RunStatus::kAutoTriggerSuccess);
  EXPECT_EQ(LastRun().attempt, 2);
}

TEST_F(ScheduledQueriesTest, AManualRunIsRecordedAsOne) {
  ASSERT_TRUE(scheduled_->Create(Caller(), EveryMinute()).ok());
  const int64_t at = kNow - 3600 * kNanosPerSecond;
  auto run = scheduled_->Execute(Principal::Unrestricted(), "rollup", at);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->status, RunStatus::kManualTriggerSuccess);
  ASSERT_EQ(runner_.runtimes().size(), 1u);
  EXPECT_EQ(runner_.runtimes()[0], at);
}

}  // namespace
}  // namespace strata
