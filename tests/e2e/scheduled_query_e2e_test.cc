// Scheduled queries over the wire, on a server whose clock stands still
// (--testing-fixed-time) and moves only by TestingService.SetClock: one run
// per invocation, catch-up after a restart (once), manual re-runs that write
// no duplicates, a late write corrected by the next invocation's recompute
// window, and failing runs recorded with their error and retried.
#include "absl/time/civil_time.h"
#include "absl/time/time.h"
#include "google/protobuf/util/time_util.h"
#include "gtest/gtest.h"
#include "strata/v1/auth.grpc.pb.h"
#include "strata/v1/catalog.grpc.pb.h"
#include "strata/v1/scheduled_query.grpc.pb.h"
#include "strata/v1/write.grpc.pb.h"
#include "tests/support/query_helpers.h"
#include "tests/support/stratad_process.h"
#include "tests/support/write_helpers.h"

namespace strata {
namespace {

using google::protobuf::util::TimeUtil;

int64_t Millis(int h, int m, int s = 0) {
  return absl::ToUnixMillis(
      absl::FromCivil(absl::CivilSecond(2026, 1, 1, h, m, s), absl::UTCTimeZone()));
}

std::string TimeOfDay(int h, int m, int s = 0) {
  return absl::FormatTime("%Y-%m-%d %H:%M:%S", absl::FromUnixMillis(Millis(h, m, s)),
                          absl::UTCTimeZone());
}

// Per-minute min/max/avg/count per host, recomputing the last 5 minutes at
// each invocation so a late write is corrected by the next run.
constexpr char kRollup[] =
    "SELECT host, bin(time, 1m) AS minute, min(measure_value::double) AS min_cpu, "
    "max(measure_value::double) AS max_cpu, avg(measure_value::double) AS avg_cpu, "
    "count(*) AS samples FROM devops.cpu "
    "WHERE time >= @scheduled_runtime - 5m AND time < @scheduled_runtime "
    "GROUP BY host, bin(time, 1m)";

v1::ScheduledQuery Rollup(const std::string& name, const std::string& sql = kRollup) {
  v1::ScheduledQuery q;
  q.set_name(name);
  q.set_query_string(sql);
  q.set_schedule_expression("rate(1 minute)");
  auto* target = q.mutable_target_configuration();
  target->set_database_name("devops");
  target->set_table_name("cpu_1m");
  target->set_time_column("minute");
  target->add_dimension_mappings()->set_name("host");
  auto* multi = target->mutable_multi_measure_mappings();
  multi->set_target_multi_measure_name("cpu_stats");
  for (const char* column : {"min_cpu", "max_cpu", "avg_cpu"}) {
    auto* a = multi->add_multi_measure_attribute_mappings();
    a->set_source_column(column);
    a->set_measure_value_type(v1::MEASURE_VALUE_TYPE_DOUBLE);
  }
  auto* count = multi->add_multi_measure_attribute_mappings();
  count->set_source_column("samples");
  count->set_measure_value_type(v1::MEASURE_VALUE_TYPE_BIGINT);
  return q;
}

class ScheduledQueryE2ETest : public ::testing::Test {
 protected:
  virtual std::vector<std::string> ServerArgs() const {
    return {"--testing-fixed-time", TimeOfDay(0, 0, 30)};
  }

  void SetUp() override {
    ASSERT_TRUE(server_.Start(ServerArgs())) << server_.error();
    Connect();
    ASSERT_TRUE(testing::CreateDatabaseAndTable(server_.channel(), "devops", "cpu").ok());
    CreateTable("cpu_1m");
  }

  void CreateTable(const std::string& table, const std::string& database = "devops",
                   bool magnetic_writes = false) {
    auto catalog = v1::CatalogService::NewStub(server_.channel());
    grpc::ClientContext context;
    v1::CreateTableRequest request;
    request.set_database_name(database);
    request.set_table_name(table);
    request.mutable_magnetic_store_write_properties()->set_enable_magnetic_store_writes(
        magnetic_writes);
    v1::CreateTableResponse response;
    grpc::Status status = catalog->CreateTable(&context, request, &response);
    ASSERT_TRUE(status.ok()) << status.error_message();
  }

  void Connect() {
    scheduled_ = v1::ScheduledQueryService::NewStub(server_.channel());
    testing_ = v1::TestingService::NewStub(server_.channel());
  }

  void WriteCpu(const std::string& host, int64_t millis, double value) {
    auto writer = v1::WriteService::NewStub(server_.channel());
    grpc::ClientContext context;
    v1::WriteRecordsResponse response;
    grpc::Status status = writer->WriteRecords(
        &context, testing::WriteRequest("devops", "cpu", {testing::CpuRecord(host, millis, value)}),
        &response);
    ASSERT_TRUE(status.ok()) << status.error_message();
  }

  grpc::Status Create(const v1::ScheduledQuery& q) {
    grpc::ClientContext context;
    v1::CreateScheduledQueryRequest request;
    *request.mutable_scheduled_query() = q;
    v1::CreateScheduledQueryResponse response;
    return scheduled_->CreateScheduledQuery(&context, request, &response);
  }

  v1::ScheduledQuery Describe(const std::string& name) {
    grpc::ClientContext context;
    v1::DescribeScheduledQueryRequest request;
    request.set_name(name);
    v1::DescribeScheduledQueryResponse response;
    grpc::Status status = scheduled_->DescribeScheduledQuery(&context, request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response.scheduled_query();
  }

  void SetClock(int h, int m, int s = 0) {
    grpc::ClientContext context;
    v1::SetClockRequest request;
    *request.mutable_time() = TimeUtil::MillisecondsToTimestamp(Millis(h, m, s));
    v1::SetClockResponse response;
    grpc::Status status = testing_->SetClock(&context, request, &response);
    ASSERT_TRUE(status.ok()) << status.error_message();
  }

  v1::ScheduledQueryRunSummary Execute(const std::string& name, int h, int m) {
    grpc::ClientContext context;
    v1::ExecuteScheduledQueryRequest request;
    request.set_name(name);
    *request.mutable_invocation_time() = TimeUtil::MillisecondsToTimestamp(Millis(h, m));
    v1::ExecuteScheduledQueryResponse response;
    grpc::Status status = scheduled_->ExecuteScheduledQuery(&context, request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response.run();
  }

  std::string Query(const std::string& sql) {
    testing::QueryResult result = testing::RunQuery(server_.channel(), sql);
    EXPECT_TRUE(result.status.ok()) << sql << ": " << result.status.error_message();
    return testing::RowsText(result.rows);
  }

  // The rollup table: host | minute (ns) | min | max | avg | count.
  std::string Rollups() {
    return Query(
        "SELECT host, time, min_cpu, max_cpu, avg_cpu, samples FROM devops.cpu_1m ORDER BY "
        "time, host");
  }

  std::string Runs(const std::string& name) {
    return Query("SELECT invocation_time, trigger, attempt, status, query_result_rows, "
                 "records_ingested FROM system.scheduled_query_runs WHERE scheduled_query = '" +
                 name + "' ORDER BY trigger_time, invocation_time");
  }

  static std::string Ns(int h, int m) { return std::to_string(Millis(h, m) * 1'000'000); }

  testing::StratadProcess server_;
  std::unique_ptr<v1::ScheduledQueryService::Stub> scheduled_;
  std::unique_ptr<v1::TestingService::Stub> testing_;
};

TEST_F(ScheduledQueryE2ETest, RunsOncePerInvocationAndCatchesUpOnceAfterARestart) {
  WriteCpu("h1", Millis(0, 0, 0), 10);
  WriteCpu("h1", Millis(0, 0, 20), 30);
  WriteCpu("h2", Millis(0, 0, 10), 5);
  ASSERT_TRUE(Create(Rollup("cpu_1m")).ok());
  v1::ScheduledQuery described = Describe("cpu_1m");
  EXPECT_EQ(described.state(), v1::SCHEDULED_QUERY_STATE_ENABLED);
  EXPECT_EQ(TimeUtil::TimestampToMilliseconds(described.next_invocation_time()), Millis(0, 1));
  EXPECT_EQ(Runs("cpu_1m"), "");

  SetClock(0, 1);
  EXPECT_EQ(Rollups(), "h1|" + Ns(0, 0) + "|10|30|20|2\nh2|" + Ns(0, 0) + "|5|5|5|1\n");
  EXPECT_EQ(Runs("cpu_1m"), Ns(0, 1) + "|schedule|1|AUTO_TRIGGER_SUCCESS|2|2\n");
  described = Describe("cpu_1m");
  EXPECT_EQ(TimeUtil::TimestampToMilliseconds(described.previous_invocation_time()), Millis(0, 1));
  EXPECT_EQ(TimeUtil::TimestampToMilliseconds(described.next_invocation_time()), Millis(0, 2));
  EXPECT_EQ(described.last_run_summary().execution_stats().records_ingested(), 2);

  // Half a minute later: nothing is due.
  SetClock(0, 1, 30);
  WriteCpu("h2", Millis(0, 1, 10), 7);
  SetClock(0, 2);
  EXPECT_EQ(Query("SELECT count(*) FROM system.scheduled_query_runs"), "2\n");
  EXPECT_EQ(Query("SELECT samples FROM devops.cpu_1m WHERE host = 'h2' ORDER BY time"), "1\n1\n");

  // Down from 00:02 to 00:05: the three missed invocations run once each, in order.
  ASSERT_EQ(server_.Stop(), 0);
  ASSERT_TRUE(server_.Start({"--testing-fixed-time", TimeOfDay(0, 5)})) << server_.error();
  Connect();
  SetClock(0, 5);
  EXPECT_EQ(Query("SELECT invocation_time, count(*) FROM system.scheduled_query_runs "
                  "GROUP BY invocation_time ORDER BY invocation_time"),
            Ns(0, 1) + "|1\n" + Ns(0, 2) + "|1\n" + Ns(0, 3) + "|1\n" + Ns(0, 4) + "|1\n" +
                Ns(0, 5) + "|1\n");
  // The history survived the restart; the rollups are unchanged (no duplicates).
  EXPECT_EQ(Query("SELECT count(*) FROM devops.cpu_1m"), "3\n");
  SetClock(0, 5, 59);
  EXPECT_EQ(Query("SELECT count(*) FROM system.scheduled_query_runs"), "5\n");
}

TEST_F(ScheduledQueryE2ETest, ManualRerunsWriteNoDuplicatesAndLateWritesAreRecomputed) {
  WriteCpu("h1", Millis(0, 0, 0), 10);
  ASSERT_TRUE(Create(Rollup("rollup")).ok());
  SetClock(0, 1);
  const std::string first = Rollups();
  ASSERT_EQ(first, "h1|" + Ns(0, 0) + "|10|10|10|1\n");

  // The same invocation again: the same records at the same version, a no-op.
  v1::ScheduledQueryRunSummary rerun = Execute("rollup", 0, 1);
  EXPECT_EQ(rerun.run_status(), v1::MANUAL_TRIGGER_SUCCESS) << rerun.failure_reason();
  EXPECT_EQ(rerun.execution_stats().records_rejected(), 0);
  EXPECT_EQ(Rollups(), first);

  // A late point in the 00:00 bucket: the 00:02 invocation recomputes that
  // bucket at a higher version and replaces the rollup.
  WriteCpu("h1", Millis(0, 0, 40), 50);
  SetClock(0, 2);
  EXPECT_EQ(Rollups(), "h1|" + Ns(0, 0) + "|10|50|30|2\n");
  EXPECT_EQ(Query("SELECT count(*) FROM devops.cpu_1m"), "1\n");

  // Another late point, then a re-run of the older invocation: it computes
  // other values than the stored rollup's newer version holds, so the target
  // keeps them and the run says why.
  WriteCpu("h1", Millis(0, 0, 50), 90);
  rerun = Execute("rollup", 0, 1);
  EXPECT_EQ(rerun.execution_stats().records_rejected(), 1);
  ASSERT_EQ(rerun.rejected_rows_size(), 1);
  EXPECT_TRUE(rerun.rejected_rows(0).has_existing_version());
  EXPECT_EQ(rerun.rejected_rows(0).existing_version(), Millis(0, 2));
  EXPECT_EQ(Rollups(), "h1|" + Ns(0, 0) + "|10|50|30|2\n");
  EXPECT_NE(Query("SELECT rejected_rows FROM system.scheduled_query_runs WHERE records_rejected > 0")
                .find("row 0: "),
            std::string::npos);

  // A backfill as if invoked at 00:03 recomputes at a newer version.
  EXPECT_EQ(Execute("rollup", 0, 3).run_status(), v1::MANUAL_TRIGGER_SUCCESS);
  EXPECT_EQ(Rollups(), "h1|" + Ns(0, 0) + "|10|90|50|3\n");
  EXPECT_EQ(Query("SELECT trigger, count(*) FROM system.scheduled_query_runs GROUP BY trigger "
                  "ORDER BY trigger"),
            "manual|3\nschedule|2\n");
}

TEST_F(ScheduledQueryE2ETest, FailingRunsAreRecordedRetriedAndDoNotBlockOthers) {
  WriteCpu("h1", Millis(0, 0, 0), 10);
  CreateTable("scratch");
  {
    auto writer = v1::WriteService::NewStub(server_.channel());
    grpc::ClientContext context;
    v1::WriteRecordsResponse response;
    ASSERT_TRUE(writer->WriteRecords(&context, testing::WriteRequest("devops", "scratch",
                                        {testing::CpuRecord("h9", Millis(0, 0), 1)}),
                                     &response).ok());
  }
  ASSERT_TRUE(Create(Rollup("healthy")).ok());
  ASSERT_TRUE(Create(Rollup("broken", "SELECT host, bin(time, 1m) AS minute, "
                                      "min(measure_value::double) AS min_cpu, "
                                      "max(measure_value::double) AS max_cpu, "
                                      "avg(measure_value::double) AS avg_cpu, count(*) AS samples "
                                      "FROM devops.scratch WHERE time < @scheduled_runtime "
                                      "GROUP BY host, bin(time, 1m)"))
                  .ok());
  // The source table goes away after creation.
  {
    auto catalog = v1::CatalogService::NewStub(server_.channel());
    grpc::ClientContext context;
    v1::DeleteTableRequest request;
    request.set_database_name("devops");
    request.set_table_name("scratch");
    v1::DeleteTableResponse response;
    ASSERT_TRUE(catalog->DeleteTable(&context, request, &response).ok());
  }
  SetClock(0, 1);
  EXPECT_EQ(Runs("healthy"), Ns(0, 1) + "|schedule|1|AUTO_TRIGGER_SUCCESS|1|1\n");
  EXPECT_EQ(Runs("broken"), Ns(0, 1) + "|schedule|1|AUTO_TRIGGER_FAILURE|0|0\n");
  v1::ScheduledQuery broken = Describe("broken");
  ASSERT_EQ(broken.recently_failed_runs_size(), 1);
  EXPECT_NE(broken.recently_failed_runs(0).failure_reason().find("scratch"), std::string::npos)
      << broken.recently_failed_runs(0).failure_reason();
  // Retried after the delay (60 s, then 120 s), then given up and on to the
  // next invocation; the healthy one ran every minute meanwhile (an
  // unchanged rollup counts as ingested: an idempotent write).
  SetClock(0, 2);
  SetClock(0, 4);
  EXPECT_EQ(Runs("broken"), Ns(0, 1) + "|schedule|1|AUTO_TRIGGER_FAILURE|0|0\n" + Ns(0, 1) +
                                "|schedule|2|AUTO_TRIGGER_FAILURE|0|0\n" + Ns(0, 1) +
                                "|schedule|3|AUTO_TRIGGER_FAILURE|0|0\n" + Ns(0, 2) +
                                "|schedule|1|AUTO_TRIGGER_FAILURE|0|0\n");
  EXPECT_EQ(Runs("healthy"), Ns(0, 1) + "|schedule|1|AUTO_TRIGGER_SUCCESS|1|1\n" + Ns(0, 2) +
                                 "|schedule|1|AUTO_TRIGGER_SUCCESS|1|1\n" + Ns(0, 3) +
                                 "|schedule|1|AUTO_TRIGGER_SUCCESS|1|1\n" + Ns(0, 4) +
                                 "|schedule|1|AUTO_TRIGGER_SUCCESS|1|1\n");
  EXPECT_EQ(Describe("broken").recently_failed_runs_size(), 4);
  // 00:02 waits for its retry.
  EXPECT_EQ(TimeUtil::TimestampToMilliseconds(Describe("broken").next_invocation_time()),
            Millis(0, 2));
}

TEST_F(ScheduledQueryE2ETest, CreationRefusesMistakesNamingWhatIsWrong) {
  // The query plans against the table's columns as its data made them.
  EXPECT_NE(Create(Rollup("early")).error_message().find("column \"host\" does not exist"),
            std::string::npos);
  WriteCpu("h1", Millis(0, 0, 0), 10);
  struct Case {
    std::function<void(v1::ScheduledQuery&)> change;
    grpc::StatusCode code;
    const char* message;
  };
  const Case cases[] = {
      {[](auto& q) { q.set_name("bad name"); }, grpc::INVALID_ARGUMENT, "1..64 characters"},
      {[](auto& q) { q.set_schedule_expression("every minute"); }, grpc::INVALID_ARGUMENT,
       "rate(5 minutes)"},
      {[](auto& q) { q.set_query_string("SELEC 1"); }, grpc::INVALID_ARGUMENT, "SELEC"},
      {[](auto& q) { q.set_query_string("SHOW TABLES FROM devops"); }, grpc::INVALID_ARGUMENT,
       "one SELECT"},
      {[](auto& q) { q.set_query_string(std::string(kRollup) + " HAVING max(nope) > 1"); },
       grpc::INVALID_ARGUMENT, "nope"},
      {[](auto& q) { q.mutable_target_configuration()->set_table_name("missing"); },
       grpc::INVALID_ARGUMENT, "\"devops\".\"missing\" does not exist"},
      {[](auto& q) { q.mutable_target_configuration()->set_time_column("host"); },
       grpc::INVALID_ARGUMENT, "time column \"host\" is varchar"},
      {[](auto& q) {
         q.mutable_target_configuration()->mutable_multi_measure_mappings()
             ->mutable_multi_measure_attribute_mappings()->RemoveLast();
       },
       grpc::INVALID_ARGUMENT, "\"samples\" is not mapped"},
      {[](auto& q) {
         auto* p = q.add_parameters();
         p->set_name("scheduled_runtime");
         p->mutable_value()->set_bigint_value(1);
       },
       grpc::INVALID_ARGUMENT, "reserved"},
      {[](auto& q) { q.mutable_error_report_configuration()->set_max_rejected_rows(5000); },
       grpc::INVALID_ARGUMENT, "0..1000"},
  };
  for (const Case& c : cases) {
    v1::ScheduledQuery q = Rollup("q");
    c.change(q);
    grpc::Status status = Create(q);
    EXPECT_EQ(status.error_code(), c.code) << c.message << ": " << status.error_message();
    EXPECT_NE(status.error_message().find(c.message), std::string::npos)
        << status.error_message();
  }
  // A named parameter, and a duplicate name.
  v1::ScheduledQuery with_parameter =
      Rollup("parameterized", std::string(kRollup) + " HAVING count(*) >= @min_samples");
  auto* p = with_parameter.add_parameters();
  p->set_name("min_samples");
  p->mutable_value()->set_bigint_value(1);
  ASSERT_TRUE(Create(with_parameter).ok());
  EXPECT_EQ(Create(with_parameter).error_code(), grpc::ALREADY_EXISTS);
  EXPECT_EQ(Query("SELECT name, state, schedule_expression, target_table FROM "
                  "system.scheduled_queries"),
            "parameterized|ENABLED|rate(1 minute)|cpu_1m\n");
  // Disabled: no runs, and no next invocation.
  {
    grpc::ClientContext context;
    v1::UpdateScheduledQueryRequest request;
    request.set_name("parameterized");
    request.set_state(v1::SCHEDULED_QUERY_STATE_DISABLED);
    v1::UpdateScheduledQueryResponse response;
    ASSERT_TRUE(scheduled_->UpdateScheduledQuery(&context, request, &response).ok());
    EXPECT_FALSE(response.scheduled_query().has_next_invocation_time());
  }
  SetClock(0, 3);
  EXPECT_EQ(Runs("parameterized"), "");
  {
    grpc::ClientContext context;
    v1::DeleteScheduledQueryRequest request;
    request.set_name("parameterized");
    v1::DeleteScheduledQueryResponse response;
    ASSERT_TRUE(scheduled_->DeleteScheduledQuery(&context, request, &response).ok());
  }
  EXPECT_EQ(Query("SELECT count(*) FROM system.scheduled_queries"), "0\n");
  testing::QueryResult unknown = testing::RunQuery(server_.channel(), "SELECT * FROM system.nope");
  EXPECT_NE(unknown.status.error_message().find("scheduled_query_runs"), std::string::npos)
      << unknown.status.error_message();
}

class ScheduledQueryCatchUpE2ETest : public ScheduledQueryE2ETest {
 protected:
  std::vector<std::string> ServerArgs() const override {
    return {"--testing-fixed-time", TimeOfDay(0, 0, 30), "--scheduled-query-max-catch-up", "2"};
  }
};

TEST_F(ScheduledQueryCatchUpE2ETest, MissedInvocationsBeyondTheLimitAreRecordedAsSkipped) {
  WriteCpu("h1", Millis(0, 4, 30), 10);
  ASSERT_TRUE(Create(Rollup("rollup")).ok());
  // Six invocations are due at once (00:01 .. 00:06): the newest two run,
  // the four before them are one skipped entry.
  SetClock(0, 6);
  EXPECT_EQ(Runs("rollup"), Ns(0, 4) + "|schedule|0|AUTO_TRIGGER_SKIPPED|0|0\n" + Ns(0, 5) +
                                "|schedule|1|AUTO_TRIGGER_SUCCESS|1|1\n" + Ns(0, 6) +
                                "|schedule|1|AUTO_TRIGGER_SUCCESS|1|1\n");
  EXPECT_NE(Query("SELECT failure_reason FROM system.scheduled_query_runs WHERE status = "
                  "'AUTO_TRIGGER_SKIPPED'")
                .find("4 invocations from 2026-01-01T00:01:00.000Z to 2026-01-01T00:04:00.000Z"),
            std::string::npos);

  // The target table goes away: the next run fails saying so.
  {
    auto catalog = v1::CatalogService::NewStub(server_.channel());
    grpc::ClientContext context;
    v1::DeleteTableRequest request;
    request.set_database_name("devops");
    request.set_table_name("cpu_1m");
    v1::DeleteTableResponse response;
    ASSERT_TRUE(catalog->DeleteTable(&context, request, &response).ok());
  }
  SetClock(0, 7);
  EXPECT_NE(Describe("rollup").last_run_summary().failure_reason().find(
                "the target table \"devops\".\"cpu_1m\" does not exist"),
            std::string::npos)
      << Describe("rollup").last_run_summary().failure_reason();
}

// The patterns of docs/scheduled-queries.md, with its exact statements.
v1::ScheduledQuery Pattern(const std::string& name, const std::string& schedule,
                           const std::string& sql, const std::string& database,
                           const std::string& time_column, std::vector<std::string> dimensions,
                           const std::string& measure_name,
                           std::vector<std::pair<std::string, v1::MeasureValueType>> measures) {
  v1::ScheduledQuery q;
  q.set_name(name);
  q.set_schedule_expression(schedule);
  q.set_query_string(sql);
  auto* target = q.mutable_target_configuration();
  target->set_database_name(database);
  target->set_table_name(name);
  target->set_time_column(time_column);
  for (const std::string& d : dimensions) target->add_dimension_mappings()->set_name(d);
  target->mutable_multi_measure_mappings()->set_target_multi_measure_name(measure_name);
  for (const auto& [column, type] : measures) {
    auto* a = target->mutable_multi_measure_mappings()->add_multi_measure_attribute_mappings();
    a->set_source_column(column);
    a->set_measure_value_type(type);
  }
  return q;
}

TEST_F(ScheduledQueryE2ETest, SeedPatternsOutOfTheBox) {
  constexpr auto kDouble = v1::MEASURE_VALUE_TYPE_DOUBLE;
  constexpr auto kBigint = v1::MEASURE_VALUE_TYPE_BIGINT;
  WriteCpu("h1", Millis(0, 0, 10), 10);
  WriteCpu("h1", Millis(0, 0, 20), 30);
  WriteCpu("h2", Millis(0, 0, 15), 5);
  ASSERT_TRUE(testing::CreateDatabaseAndTable(server_.channel(), "iot", "readings").ok());
  CreateTable("device_last", "iot");
  CreateTable("cpu_1h");
  CreateTable("cpu_daily", "devops", /*magnetic_writes=*/true);
  ASSERT_TRUE(Create(Pattern("cpu_1h", "rate(1 hour)",
                             "SELECT host, bin(time, 1h) AS hour, min(measure_value::double) AS "
                             "min_cpu, max(measure_value::double) AS max_cpu, "
                             "avg(measure_value::double) AS avg_cpu, count(*) AS samples "
                             "FROM devops.cpu WHERE time >= @scheduled_runtime - 2h AND time < "
                             "@scheduled_runtime GROUP BY host, bin(time, 1h)",
                             "devops", "hour", {"host"}, "cpu_stats",
                             {{"min_cpu", kDouble}, {"max_cpu", kDouble}, {"avg_cpu", kDouble},
                              {"samples", kBigint}}))
                  .ok());
  ASSERT_TRUE(Create(Pattern("cpu_daily", "cron(5 0 * * ? *)",
                             "SELECT host, measure_name AS metric, bin(@scheduled_runtime, 1d) - "
                             "1d AS day, min(measure_value::double) AS min_value, "
                             "max(measure_value::double) AS max_value, avg(measure_value::double) "
                             "AS avg_value, count(*) AS samples FROM devops.cpu WHERE time >= "
                             "bin(@scheduled_runtime, 1d) - 1d AND time < bin(@scheduled_runtime, "
                             "1d) GROUP BY host, measure_name",
                             "devops", "day", {"host", "metric"}, "daily_stats",
                             {{"min_value", kDouble}, {"max_value", kDouble},
                              {"avg_value", kDouble}, {"samples", kBigint}}))
                  .ok());
  SetClock(1, 0);
  EXPECT_EQ(Query("SELECT host, time, min_cpu, max_cpu, avg_cpu, samples FROM devops.cpu_1h "
                  "ORDER BY host"),
            "h1|" + Ns(0, 0) + "|10|30|20|2\nh2|" + Ns(0, 0) + "|5|5|5|1\n");

  // Last value per device: one row per device per day, updated in place.
  SetClock(1, 30);
  auto reading = [&](const std::string& device, int64_t millis, double value) {
    v1::Record r = testing::CpuRecord(device, millis, value);
    r.mutable_dimensions(0)->set_name("device_id");
    r.set_measure_name("temperature");
    auto writer = v1::WriteService::NewStub(server_.channel());
    grpc::ClientContext context;
    v1::WriteRecordsResponse response;
    ASSERT_TRUE(writer->WriteRecords(&context, testing::WriteRequest("iot", "readings", {r}),
                                     &response)
                    .ok());
  };
  reading("d1", Millis(1, 10), 21.5);
  reading("d1", Millis(1, 20), 22.5);
  reading("d2", Millis(1, 15), 19);
  ASSERT_TRUE(Create(Pattern("device_last", "rate(5 minutes)",
                             "SELECT device_id, bin(@scheduled_runtime - 1ms, 1d) AS day, "
                             "max(time) AS last_time, max_by(measure_value::double, time) AS "
                             "last_value FROM iot.readings WHERE time >= @scheduled_runtime - 1h "
                             "AND time < @scheduled_runtime GROUP BY device_id",
                             "iot", "day", {"device_id"}, "last_reading",
                             {{"last_time", v1::MEASURE_VALUE_TYPE_TIMESTAMP},
                              {"last_value", kDouble}}))
                  .ok());
  SetClock(1, 35);
  reading("d1", Millis(1, 36), 23);
  SetClock(1, 40);
  const std::string day = Ns(0, 0);
  EXPECT_EQ(Query("SELECT device_id, time, last_time, last_value FROM iot.device_last ORDER BY "
                  "device_id"),
            "d1|" + day + "|" + std::to_string(Millis(1, 36) * 1'000'000) + "|23\nd2|" + day +
                "|" + std::to_string(Millis(1, 15) * 1'000'000) + "|19\n");

  // Daily statistics of yesterday, at 00:05 UTC (a day-old record: the
  // table takes magnetic writes).
  grpc::ClientContext context;
  v1::SetClockRequest request;
  *request.mutable_time() = TimeUtil::MillisecondsToTimestamp(Millis(0, 5) + 86'400'000);
  v1::SetClockResponse response;
  ASSERT_TRUE(testing_->SetClock(&context, request, &response).ok());
  EXPECT_EQ(Query("SELECT host, metric, time, min_value, max_value, avg_value, samples FROM "
                  "devops.cpu_daily ORDER BY host"),
            "h1|cpu|" + day + "|10|30|20|2\nh2|cpu|" + day + "|5|5|5|1\n");
  // Created at 00:00:30: its runs were 2026-01-01 00:05 (over an empty day)
  // and 2026-01-02 00:05.
  EXPECT_EQ(Query("SELECT query_result_rows FROM system.scheduled_query_runs WHERE "
                  "scheduled_query = 'cpu_daily' ORDER BY invocation_time"),
            "0\n2\n");
  EXPECT_EQ(Query("SELECT count(*) FROM devops.cpu_1h"), "2\n");
}

// With tokens: a scheduled query belongs to the token that made it, runs
// with that token's grants, and fails visibly once the token is revoked.
TEST(ScheduledQueryAuthTest, RunsAsItsOwnerAndOthersDoNotSeeIt) {
  testing::StratadProcess server;
  ASSERT_TRUE(server.Start({"--auth", "on", "--testing-fixed-time", TimeOfDay(0, 0, 30)}))
      << server.error();
  const std::string admin = server.AdminToken();
  auto as = [](const std::string& token) {
    auto context = std::make_unique<grpc::ClientContext>();
    context->AddMetadata("authorization", "Bearer " + token);
    return context;
  };
  auto catalog = v1::CatalogService::NewStub(server.channel());
  {
    v1::CreateDatabaseRequest request;
    request.set_database_name("devops");
    v1::CreateDatabaseResponse response;
    ASSERT_TRUE(catalog->CreateDatabase(as(admin).get(), request, &response).ok());
  }
  for (const char* table : {"cpu", "cpu_1m"}) {
    v1::CreateTableRequest request;
    request.set_database_name("devops");
    request.set_table_name(table);
    v1::CreateTableResponse response;
    ASSERT_TRUE(catalog->CreateTable(as(admin).get(), request, &response).ok());
  }
  {
    v1::WriteRecordsResponse response;
    ASSERT_TRUE(v1::WriteService::NewStub(server.channel())
                    ->WriteRecords(as(admin).get(),
                                   testing::WriteRequest("devops", "cpu",
                                                         {testing::CpuRecord("h1", Millis(0, 0), 10)}),
                                   &response)
                    .ok());
  }
  auto auth = v1::AuthService::NewStub(server.channel());
  auto token = [&](const std::string& name, std::vector<std::string> grants) {
    v1::CreateTokenRequest request;
    request.set_name(name);
    for (const std::string& g : grants) request.add_grants(g);
    v1::CreateTokenResponse response;
    EXPECT_TRUE(auth->CreateToken(as(admin).get(), request, &response).ok());
    return response.secret();
  };
  const std::string owner = token("rollups", {"read:devops/cpu", "write:devops/cpu_1m"});
  const std::string other = token("other", {"read:devops"});
  const std::string writer = token("writer", {"write:devops/cpu_1m"});
  auto scheduled = v1::ScheduledQueryService::NewStub(server.channel());
  v1::CreateScheduledQueryRequest create;
  *create.mutable_scheduled_query() = Rollup("cpu_1m");
  v1::CreateScheduledQueryResponse created;
  // Without write on the target, or without read on the source: refused as
  // a permission, not as a bad definition.
  EXPECT_EQ(scheduled->CreateScheduledQuery(as(other).get(), create, &created).error_code(),
            grpc::PERMISSION_DENIED);
  EXPECT_EQ(scheduled->CreateScheduledQuery(as(writer).get(), create, &created).error_code(),
            grpc::PERMISSION_DENIED);
  ASSERT_TRUE(scheduled->CreateScheduledQuery(as(owner).get(), create, &created).ok());
  EXPECT_EQ(created.scheduled_query().owner(), "rollups");

  v1::DescribeScheduledQueryRequest describe;
  describe.set_name("cpu_1m");
  v1::DescribeScheduledQueryResponse described;
  EXPECT_EQ(scheduled->DescribeScheduledQuery(as(other).get(), describe, &described).error_code(),
            grpc::NOT_FOUND);
  const std::string count = "SELECT count(*) FROM system.scheduled_queries";
  EXPECT_EQ(testing::RowsText(testing::RunQuery(server.channel(), count, 0, other).rows), "0\n");
  EXPECT_EQ(testing::RowsText(testing::RunQuery(server.channel(), count, 0, owner).rows), "1\n");
  EXPECT_EQ(testing::RowsText(testing::RunQuery(server.channel(), count, 0, admin).rows), "1\n");

  // Runs are made as the owner: they work while it lives...
  auto testing_stub = v1::TestingService::NewStub(server.channel());
  v1::SetClockRequest clock;
  *clock.mutable_time() = TimeUtil::MillisecondsToTimestamp(Millis(0, 1));
  v1::SetClockResponse moved;
  ASSERT_TRUE(testing_stub->SetClock(as(admin).get(), clock, &moved).ok());
  EXPECT_EQ(testing::RowsText(
                testing::RunQuery(server.channel(), "SELECT samples FROM devops.cpu_1m", 0, admin)
                    .rows),
            "1\n");
  // ... and fail saying why once it is revoked.
  {
    v1::RevokeTokenRequest request;
    request.set_token("rollups");
    v1::RevokeTokenResponse response;
    ASSERT_TRUE(auth->RevokeToken(as(admin).get(), request, &response).ok());
  }
  v1::ExecuteScheduledQueryRequest execute;
  execute.set_name("cpu_1m");
  *execute.mutable_invocation_time() = TimeUtil::MillisecondsToTimestamp(Millis(0, 1));
  v1::ExecuteScheduledQueryResponse executed;
  ASSERT_TRUE(scheduled->ExecuteScheduledQuery(as(admin).get(), execute, &executed).ok());
  EXPECT_EQ(executed.run().run_status(), v1::MANUAL_TRIGGER_FAILURE);
  EXPECT_NE(executed.run().failure_reason().find("the token \"rollups\" was revoked"),
            std::string::npos)
      << executed.run().failure_reason();
  // Moving the clock is for admins.
  EXPECT_EQ(testing_stub->SetClock(as(other).get(), clock, &moved).error_code(),
            grpc::PERMISSION_DENIED);
}

TEST(ScheduledQueryClockTest, TheClockMovesOnlyOnATestServer) {
  testing::StratadProcess server;
  ASSERT_TRUE(server.Start()) << server.error();
  auto stub = v1::TestingService::NewStub(server.channel());
  grpc::ClientContext context;
  v1::SetClockRequest request;
  v1::SetClockResponse response;
  grpc::Status status = stub->SetClock(&context, request, &response);
  EXPECT_EQ(status.error_code(), grpc::FAILED_PRECONDITION);
  EXPECT_NE(status.error_message().find("--testing-fixed-time"), std::string::npos);
}

}  // namespace
}  // namespace strata
