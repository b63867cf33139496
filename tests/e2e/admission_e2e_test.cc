// Admission control and the server-wide query memory budget over real gRPC:
// a full worker queue refuses at once, a client that stops reading does not
// keep its query past the timeout, result pages count against the budget,
// and a burst of heavy queries with slow consumers leaves the server up.
#include <algorithm>
#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include "grpc/health/v1/health.grpc.pb.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "gtest/gtest.h"
#include "strata/v1/query.grpc.pb.h"
#include "strata/v1/write.grpc.pb.h"
#include "tests/support/query_helpers.h"
#include "tests/support/stratad_process.h"
#include "tests/support/write_helpers.h"

namespace strata {
namespace {

using std::chrono::steady_clock;

class AdmissionE2ETest : public ::testing::Test {
 protected:
  static constexpr int kHosts = 50, kPoints = 200;
  // 10,000 rows of 4 KB: 40 MB, more than any flow-control window holds, so
  // a client that reads nothing really holds its query.
  const std::string kWide = "SELECT *, '" + std::string(4000, 'x') + "' AS pad FROM mydb.tbl";
  const std::string kTenMegabyteRow = "SELECT lpad('', 10000000, 'x') AS t";

  void StartServer(const std::vector<std::string>& args) {
    ASSERT_TRUE(server_.Start(args)) << server_.error();
    ASSERT_TRUE(testing::CreateDatabaseAndTable(server_.channel(), "mydb", "tbl").ok());
    auto writer = v1::WriteService::NewStub(server_.channel());
    const int64_t now = testing::NowMillis();
    for (int p = 0; p < kPoints; ++p) {
      std::vector<v1::Record> records;
      for (int h = 0; h < kHosts; ++h) {
        records.push_back(
            testing::CpuRecord("host" + std::to_string(h), now - 60'000 - p * 1000, h + p));
      }
      grpc::ClientContext context;
      v1::WriteRecordsResponse response;
      ASSERT_TRUE(
          writer->WriteRecords(&context, testing::WriteRequest("mydb", "tbl", records), &response)
              .ok());
    }
  }

  // Its own connection: a client that stops reading fills its connection's
  // flow-control window, which must not stall the test's other calls.
  std::shared_ptr<grpc::Channel> NewConnection() {
    grpc::ChannelArguments args;
    args.SetInt("strata.test.connection", next_connection_++);
    // A fixed 64 KB receive window: with BDP probing, gRPC grows it (to
    // megabytes on a fast loopback) and a held query could send its whole
    // result and free its worker, which made the admission tests flaky.
    args.SetInt(GRPC_ARG_HTTP2_BDP_PROBE, 0);
    return grpc::CreateCustomChannel(server_.address(), grpc::InsecureChannelCredentials(), args);
  }

  // A query whose client reads nothing: it holds a worker (blocked on flow
  // control) or waits in the queue.
  struct HeldQuery {
    std::shared_ptr<grpc::Channel> channel;
    std::unique_ptr<v1::QueryService::Stub> stub;
    std::unique_ptr<grpc::ClientContext> context = std::make_unique<grpc::ClientContext>();
    std::unique_ptr<grpc::ClientReader<v1::QueryResponse>> reader;
  };
  // `shared_connection`: on the test's own connection, for queries held by
  // --testing-query-delay-ms rather than by a client that does not read.
  HeldQuery Hold(const std::string& sql, int64_t timeout_millis = 0,
                 bool shared_connection = false) {
    HeldQuery held;
    held.channel = shared_connection ? server_.channel() : NewConnection();
    held.stub = v1::QueryService::NewStub(held.channel);
    v1::QueryRequest request;
    request.set_query_string(sql);
    request.set_page_size(1);
    request.set_timeout_millis(timeout_millis);
    // A client-side deadline far past any query's timeout, so a test that
    // goes wrong fails instead of hanging.
    held.context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
    held.reader = held.stub->Query(held.context.get(), request);
    return held;
  }

  // Reads what is left (gRPC's Finish waits for every message to be read)
  // and returns the status and the rows that arrived.
  static std::pair<grpc::Status, int> Drain(HeldQuery& held) {
    int rows = 0;
    v1::QueryResponse message;
    while (held.reader->Read(&message)) rows += message.page().rows_size();
    return {held.reader->Finish(), rows};
  }

  bool Serving() {
    auto stub = grpc::health::v1::Health::NewStub(server_.channel());
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
    grpc::health::v1::HealthCheckRequest request;
    grpc::health::v1::HealthCheckResponse response;
    return stub->Check(&context, request, &response).ok() &&
           response.status() == grpc::health::v1::HealthCheckResponse::SERVING;
  }

  testing::StratadProcess server_;
  int next_connection_ = 0;
};

TEST_F(AdmissionE2ETest, AFullQueueRefusesAtOnceAndFreesWhenQueriesEnd) {
  // Every query first waits 60 s on its worker (--testing-query-delay-ms),
  // within its own timeout: the four held queries ask for 60 s and fill both
  // workers and the queue of two; probes get the default 1 s, so one that
  // is admitted gives its place back a second later. (The held queries used
  // to be held by clients that do not read, on four new connections; about
  // one run in ten under the full suite, none of the four showed on the
  // server within 20 s. Not understood; see the session note that changed
  // this.)
  StartServer({"--query-workers", "2", "--query-queue", "2", "--testing-query-delay-ms", "60000",
               "--query-timeout-seconds", "1"});
  std::vector<HeldQuery> held;
  for (int i = 0; i < 4; ++i) {
    held.push_back(Hold("SELECT 1", /*timeout_millis=*/60'000, /*shared_connection=*/true));
  }
  // Let the held calls take their places before the probes compete for them.
  std::this_thread::sleep_for(std::chrono::seconds(1));
  testing::QueryResult refused;
  const auto give_up = steady_clock::now() + std::chrono::seconds(20);
  do {
    refused = testing::RunQuery(server_.channel(), "SELECT 1");
  } while (refused.status.error_code() != grpc::StatusCode::RESOURCE_EXHAUSTED &&
           steady_clock::now() < give_up);
  ASSERT_EQ(refused.status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED)
      << refused.status.error_message();
  EXPECT_NE(refused.status.error_message().find("--query-queue"), std::string::npos)
      << refused.status.error_message();

  for (HeldQuery& h : held) h.context->TryCancel();
  for (HeldQuery& h : held) Drain(h);
  // Admitted again: the probe gets a worker and runs into its 1 s timeout.
  testing::QueryResult after;
  const auto again = steady_clock::now() + std::chrono::seconds(20);
  do {
    after = testing::RunQuery(server_.channel(), "SELECT 1");
  } while (after.status.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED &&
           steady_clock::now() < again);
  EXPECT_EQ(after.status.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED)
      << after.status.error_message();
  EXPECT_NE(after.status.error_message().find("ran past its timeout"), std::string::npos)
      << after.status.error_message();
}

TEST_F(AdmissionE2ETest, AClientThatStopsReadingDoesNotKeepItsQueryPastTheTimeout) {
  StartServer({});
  HeldQuery held = Hold(kWide, /*timeout_millis=*/1000);
  v1::QueryResponse first;
  ASSERT_TRUE(held.reader->Read(&first));
  ASSERT_TRUE(first.has_metadata());
  // The client stops reading for longer than the query's 1 s timeout. The
  // server gives the query up instead of waiting for the client: what the
  // client finds when it reads again (within the 5 s the status is held for)
  // is the start of the result, then the timeout.
  std::this_thread::sleep_for(std::chrono::seconds(3));
  auto [status, rows] = Drain(held);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED) << status.error_message();
  EXPECT_LT(rows, kHosts * kPoints);
}

TEST_F(AdmissionE2ETest, CancellingAQueryWhoseClientStoppedReadingEndsTheCall) {
  StartServer({});
  HeldQuery held = Hold(kWide);
  v1::QueryResponse first;
  ASSERT_TRUE(held.reader->Read(&first));
  auto stub = v1::QueryService::NewStub(server_.channel());
  grpc::ClientContext context;
  v1::CancelQueryRequest request;
  request.set_query_id(first.metadata().query_id());
  v1::CancelQueryResponse response;
  ASSERT_TRUE(stub->CancelQuery(&context, request, &response).ok());
  auto [status, rows] = Drain(held);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::CANCELLED) << status.error_message();
  EXPECT_LT(rows, kHosts * kPoints);
}

TEST_F(AdmissionE2ETest, AStopWhileAClientHoldsItsQueryEndsTheCallAndExitsCleanly) {
  // Query is served on the server's own completion queue (rpc/call_queues.h), which a
  // stop drains only once every call on it has ended: a stream the client does not read must
  // not hold the stop past its grace.
  StartServer({"--shutdown-grace-seconds", "2"});
  HeldQuery held = Hold(kWide, /*timeout_millis=*/60'000);
  v1::QueryResponse first;
  ASSERT_TRUE(held.reader->Read(&first));
  ASSERT_TRUE(first.has_metadata());
  EXPECT_EQ(server_.Stop(), 0);  // within Stop's 30 s, or it is killed and fails here
  EXPECT_NE(server_.log().find("stratad stopped cleanly"), std::string::npos) << server_.log();
  auto [status, rows] = Drain(held);
  EXPECT_FALSE(status.ok());
  EXPECT_LT(rows, kHosts * kPoints);
}

TEST_F(AdmissionE2ETest, ResultPagesCountAgainstTheServerBudget) {
  // A page holds at least one row (pages are cut at 1 MiB: ResultPagesAreCutByBytes), and one
  // of 10 MB takes more than the 8 MiB the server has for all queries: refused with the budget
  // named, and the server still answers.
  StartServer({"--query-memory-total-mb", "8"});
  testing::QueryResult big = testing::RunQuery(server_.channel(), kTenMegabyteRow);
  ASSERT_EQ(big.status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED)
      << big.status.error_message();
  EXPECT_NE(big.status.error_message().find("--query-memory-total-mb"), std::string::npos)
      << big.status.error_message();
  testing::QueryResult small = testing::RunQuery(server_.channel(), "SELECT count(*) FROM mydb.tbl");
  ASSERT_TRUE(small.status.ok()) << small.status.error_message();
  EXPECT_EQ(small.rows.at(0).data(0).bigint_value(), kHosts * kPoints);
}

TEST_F(AdmissionE2ETest, AColumnarPageCountsAgainstTheServerBudgetWhileItFills) {
  // The same 10 MB page, filled from batches for a columnar request: refused while it grows,
  // not only once it is complete.
  StartServer({"--query-memory-total-mb", "8"});
  auto stub = v1::QueryService::NewStub(server_.channel());
  grpc::ClientContext context;
  v1::QueryRequest request;
  request.set_query_string(kTenMegabyteRow);
  request.set_columnar(true);
  auto reader = stub->Query(&context, request);
  v1::QueryResponse response;
  int64_t rows = 0;
  while (reader->Read(&response)) rows += response.column_page().row_count();
  grpc::Status status = reader->Finish();
  ASSERT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << status.error_message();
  EXPECT_NE(status.error_message().find("the result page being filled"), std::string::npos)
      << status.error_message();
  EXPECT_EQ(rows, 0);
  testing::QueryResult small = testing::RunQuery(server_.channel(), "SELECT count(*) FROM mydb.tbl");
  ASSERT_TRUE(small.status.ok()) << small.status.error_message();
  EXPECT_EQ(small.rows.at(0).data(0).bigint_value(), kHosts * kPoints);
}

TEST_F(AdmissionE2ETest, TheSyntaxTreeCountsAgainstTheQueryMemory) {
  // 30,000 select items in 90 KB of SQL: fine for the parser's limits, but
  // their syntax tree needs more than the 1 MiB this server gives a query.
  StartServer({"--query-memory-mb", "1"});
  std::string sql = "SELECT 1";
  for (int i = 0; i < 30'000; ++i) sql += ",1";
  testing::QueryResult r = testing::RunQuery(server_.channel(), sql);
  ASSERT_EQ(r.status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << r.status.error_message();
  EXPECT_NE(r.status.error_message().find("syntax tree"), std::string::npos)
      << r.status.error_message();
  EXPECT_TRUE(testing::RunQuery(server_.channel(), "SELECT 1, 2").status.ok());
}

TEST_F(AdmissionE2ETest, JoinsWindowsAndSetOperationsPastTheQueryMemoryFailCleanly) {
  // Each holds its 10,000 rows (a join's build side, a window's partition, an
  // INTERSECT's right side) with ~100 bytes of text each where they are
  // compact columns: more than the 1 MiB this server gives a query.
  StartServer({"--query-memory-mb", "1"});
  for (const std::string& sql : {
           std::string("SELECT count(*) FROM mydb.tbl a JOIN mydb.tbl b ON a.host = b.host AND a.time = b.time"),
           // Each side's rows keep ~100 bytes of text (count(*) alone keeps nothing).
           std::string("SELECT count(*) FROM (SELECT CAST(sequence(1, 30) AS varchar) || host AS pad "
                       "FROM mydb.tbl) a CROSS JOIN (SELECT CAST(sequence(1, 30) AS varchar) || host "
                       "AS pad FROM mydb.tbl) b WHERE a.pad < b.pad"),
           std::string("SELECT host, lag(CAST(sequence(1, 30) AS varchar) || host) OVER (ORDER BY time) "
                       "FROM mydb.tbl"),
           std::string("SELECT host, time FROM mydb.tbl INTERSECT SELECT host, time FROM mydb.tbl"),
           // Aggregates that keep their values: ~10 MB of them in 50 groups (or one).
           std::string("SELECT host, array_agg(sequence(1, 100)) FROM mydb.tbl GROUP BY host"),
           std::string("SELECT host, count(DISTINCT CAST(sequence(1, 200) AS varchar) || CAST(time AS varchar)) "
                       "FROM mydb.tbl GROUP BY host"),
           std::string("SELECT histogram(CAST(sequence(1, 200) AS varchar) || host || CAST(time AS varchar)) "
                       "FROM mydb.tbl"),
           std::string("SELECT host, create_time_series(time, CAST(sequence(1, 200) AS varchar)) "
                       "FROM mydb.tbl GROUP BY host")}) {
    testing::QueryResult r = testing::RunQuery(server_.channel(), sql);
    ASSERT_EQ(r.status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED)
        << sql << ": " << r.status.error_message();
    EXPECT_NE(r.status.error_message().find("--query-memory-mb"), std::string::npos)
        << r.status.error_message();
  }
  // Within the limit the same shapes answer, and the server is still up.
  testing::QueryResult small = testing::RunQuery(
      server_.channel(),
      "SELECT count(*) FROM mydb.tbl a JOIN (SELECT host FROM mydb.tbl WHERE host = 'host7' GROUP BY host) "
      "b ON a.host = b.host");
  ASSERT_TRUE(small.status.ok()) << small.status.error_message();
  EXPECT_EQ(small.rows.at(0).data(0).bigint_value(), kPoints);
}

// Regression (found by the SQL fuzzer): nested lambdas are one row's work,
// 10^8 calls here, and operators check the deadline between batches only; a
// query like this held a worker for many minutes past its timeout.
TEST_F(AdmissionE2ETest, NestedLambdasStopAtTheTimeoutAndACancel) {
  StartServer({});
  const std::string sql =
      "SELECT cardinality(transform(sequence(1, 10000), x -> reduce(sequence(1, 10000), 0, "
      "(s, y) -> s + y * x, s -> s)))";
  // Without the check inside the row it finished (OK) after ~25 s.
  HeldQuery timed = Hold(sql, /*timeout_millis=*/500);
  auto [status, rows] = Drain(timed);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED) << status.error_message();

  HeldQuery cancelled = Hold(sql);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  cancelled.context->TryCancel();
  EXPECT_EQ(Drain(cancelled).first.error_code(), grpc::StatusCode::CANCELLED);
  EXPECT_TRUE(Serving());
}

// Regression (found by scripts/fuzz.sh sql): a chain of || or of nested text functions in one
// expression copies up to 16 MiB a link and was not stopped by the deadline: 900 links of
// t || t ran 46 s past a 200 ms timeout, 200 nested concat() of an 8 MB text 33 s.
TEST_F(AdmissionE2ETest, ChainsOfLongTextsStopAtTheTimeout) {
  StartServer({});
  std::string bars = "t", nested = "t";
  for (int i = 1; i < 900; ++i) bars += " || t";
  for (int i = 0; i < 200; ++i) nested = "concat(" + nested + ", 'y')";
  const std::vector<std::string> statements = {
      "WITH w AS (SELECT lpad('', 16000, 'x') AS t) SELECT length(" + bars + ") FROM w",
      "WITH w AS (SELECT lpad('', 8000000, 'x') AS t) SELECT length(" + nested + ") FROM w",
  };
  for (const std::string& sql : statements) {
    HeldQuery timed = Hold(sql, /*timeout_millis=*/200);
    auto [status, rows] = Drain(timed);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED)
        << sql.substr(0, 80) << ": " << status.error_message();
  }
  EXPECT_TRUE(Serving());
}

// Regression (found by scripts/fuzz.sh sql): an array made of copies of a long text was
// bounded by nothing, so one short statement held gigabytes (11 GB before its 300 s timeout
// for transform(sequence(1, 10000), x -> <a 4 MiB text>)). An array may hold no more than
// the query's memory limit, however it is made.
TEST_F(AdmissionE2ETest, AnArrayOfCopiesOfALongTextStopsAtTheQueryMemoryLimit) {
  StartServer({"--query-memory-mb", "4"});
  const std::string big = "WITH t AS (SELECT lpad('', 500000, 'x') AS big) ";
  struct Case {
    std::string sql;
    std::string says;
  };
  const std::vector<Case> cases = {
      {"SELECT cardinality(transform(sequence(1, 20), i -> big)) FROM t",
       "transform() would make an array of more than 4 MiB"},
      {"SELECT cardinality(zip_with(sequence(1, 20), ARRAY[1], (x, y) -> big)) FROM t",
       "zip_with() would make an array of more than 4 MiB"},
      {"SELECT cardinality(ARRAY[big, big, big, big, big, big, big, big, big, big]) FROM t",
       "ARRAY[...] would make an array of more than 4 MiB"},
      {"SELECT cardinality(transform(sequence(1, 20), i -> ARRAY[big])) FROM t",
       "transform() would make an array of more than 4 MiB"},
  };
  for (const Case& c : cases) {
    testing::QueryResult result = testing::RunQuery(server_.channel(), big + c.sql);
    EXPECT_EQ(result.status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << c.sql;
    EXPECT_NE(result.status.error_message().find(c.says), std::string::npos)
        << c.sql << ": " << result.status.error_message();
  }
  // Below the limit they are made as before.
  testing::QueryResult small = testing::RunQuery(
      server_.channel(),
      big +
          "SELECT cardinality(transform(sequence(1, 4), i -> big)), cardinality(ARRAY[big, big])"
          " FROM t");
  ASSERT_TRUE(small.status.ok()) << small.status.error_message();
  EXPECT_EQ(testing::RowsText(small.rows), "4|2\n");
  EXPECT_TRUE(Serving());
}

// The most memory the server's process has held (its peak resident set), in MiB.
int64_t PeakResidentMiB(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stoll(line.substr(6)) >> 10;  // kB
  }
  return -1;
}

// Regression: the rows in flight were bounded in number (1,024 a batch) but not in bytes, so a
// 1 MiB text joined with 1,000 rows, or computed for each of them, held 1-2.5 GB at once under
// a 256 MiB query limit. Now the values computed for a batch count against the limit (a batch
// whose values would not fit is computed in halves), UNNEST shares its input's texts instead of
// copying them, and rows gathered into batches are sent on every 8 MiB.
TEST_F(AdmissionE2ETest, RowsInFlightAreHeldToTheQueryMemoryLimit) {
  StartServer({"--query-memory-mb", "16"});
  const std::string one_text =
      "(SELECT lpad('', 1000000, 'x') AS t) CROSS JOIN UNNEST(sequence(1, 1000)) AS u(n)";
  const std::string texts =
      "(SELECT n, lpad(CAST(n AS varchar), 1000000, 'x') AS t FROM UNNEST(sequence(1, 1000)) AS "
      "u(n))";
  struct Case {
    std::string sql;
    std::string answer;
  };
  const std::vector<Case> cases = {
      {"SELECT count(*), sum(length(t)) FROM " + one_text, "1000|1000000000\n"},
      {"SELECT max(length(t || CAST(n AS varchar))) FROM " + one_text, "1000004\n"},
      {"SELECT count(*), max(length(t)) FROM " + texts, "1000|1000000\n"},
      {"SELECT count(*), min(length(t)) FROM " + texts + " WHERE length(lpad(t, 1000001, 'y')) > 0",
       "1000|1000000\n"},
      {"SELECT count(*), sum(length(a.t)) FROM " + texts + " a JOIN " + texts +
           " b ON a.n = b.n + 1 AND b.n < 300",
       "299|299000000\n"},
  };
  for (const Case& c : cases) {
    testing::QueryResult result = testing::RunQuery(server_.channel(), c.sql);
    ASSERT_TRUE(result.status.ok()) << c.sql << ": " << result.status.error_message();
    EXPECT_EQ(testing::RowsText(result.rows), c.answer) << c.sql;
  }
  // One row whose values alone pass the limit is refused, saying why.
  testing::QueryResult one_row = testing::RunQuery(
      server_.channel(),
      "SELECT lpad(CAST(n AS varchar), 10000000, 'x') AS a, "
      "lpad(CAST(n AS varchar), 10000000, 'y') AS b FROM UNNEST(sequence(1, 2)) AS u(n)");
  EXPECT_EQ(one_row.status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(one_row.status.error_message().find(
                "the rows being computed would hold more than 16 MiB of long texts or arrays"),
            std::string::npos)
      << one_row.status.error_message();
  // Before, the first statement alone held 1 GB.
  EXPECT_LT(PeakResidentMiB(server_.pid()), 400);
  EXPECT_TRUE(Serving());
}

// Regression: a result page was cut by rows only (1,000 by default), so 1,000 rows of a 1 MB
// text made one 1 GB message: the server built it (2 GB resident), then gRPC refused to send
// it. Pages are cut by bytes too, row and column pages alike, whether the result comes as
// batches (a plain SELECT) or as rows (DISTINCT); only a single row may be longer than a page,
// and one longer than the largest message is refused, saying so.
TEST_F(AdmissionE2ETest, ResultPagesAreCutByBytes) {
  StartServer({"--max-message-bytes", "3000000"});
  const std::string texts =
      "lpad(CAST(n AS varchar), 1000000, 'x') AS t FROM UNNEST(sequence(1, 60)) AS u(n)";
  auto stub = v1::QueryService::NewStub(server_.channel());
  for (const std::string& sql : {"SELECT n, " + texts, "SELECT DISTINCT n, " + texts}) {
    for (bool columnar : {false, true}) {
      v1::QueryRequest request;
      request.set_query_string(sql);
      request.set_columnar(columnar);
      grpc::ClientContext context;
      auto reader = stub->Query(&context, request);
      v1::QueryResponse message;
      int64_t rows = 0, text_bytes = 0;
      size_t largest = 0;
      while (reader->Read(&message)) {
        largest = std::max(largest, message.ByteSizeLong());
        for (const v1::Row& row : message.page().rows()) {
          ++rows;
          text_bytes += static_cast<int64_t>(row.data(1).varchar_value().size());
        }
        if (message.has_column_page()) {
          rows += message.column_page().row_count();
          text_bytes += static_cast<int64_t>(message.column_page().columns(1).string_data().size());
        }
      }
      const grpc::Status status = reader->Finish();
      ASSERT_TRUE(status.ok()) << sql << ": " << status.error_message();
      EXPECT_EQ(rows, 60) << sql;
      EXPECT_EQ(text_bytes, 60'000'000) << sql;
      EXPECT_LE(largest, size_t{2'100'000}) << sql << (columnar ? " (columnar)" : "");
    }
  }
  testing::QueryResult too_long = testing::RunQuery(
      server_.channel(), "SELECT lpad('', 2000000, 'x') AS a, lpad('', 2000000, 'y') AS b");
  EXPECT_EQ(too_long.status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_NE(too_long.status.error_message().find(
                "more than the 3000000 a message may (the server's --max-message-bytes)"),
            std::string::npos)
      << too_long.status.error_message();
  EXPECT_TRUE(Serving());
}

TEST_F(AdmissionE2ETest, SixtyFourHeavyQueriesWithSlowConsumersLeaveTheServerUp) {
  StartServer({"--query-workers", "2", "--query-queue", "8", "--query-memory-total-mb", "64",
               "--query-memory-mb", "32"});
  const std::string heavy = kWide + " ORDER BY measure_value::double DESC, host, time";
  std::vector<HeldQuery> slow;
  for (int i = 0; i < 16; ++i) slow.push_back(Hold(heavy, /*timeout_millis=*/3000));
  std::vector<grpc::Status> statuses(48);
  std::vector<std::thread> clients;
  for (size_t i = 0; i < statuses.size(); ++i) {
    clients.emplace_back([this, &statuses, &heavy, i] {
      statuses[i] = testing::RunQuery(server_.channel(), heavy, 100'000).status;
    });
  }
  for (std::thread& t : clients) t.join();
  for (HeldQuery& h : slow) Drain(h);  // each ended by its timeout at the latest

  int ok = 0, refused = 0;
  for (const grpc::Status& s : statuses) {
    if (s.ok()) ++ok;
    if (s.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED) ++refused;
    EXPECT_TRUE(s.ok() || s.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED ||
                s.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED)
        << s.error_code() << " " << s.error_message();
  }
  EXPECT_GT(refused, 0);
  EXPECT_TRUE(Serving());
  // Once the burst is over, the server answers in full again.
  testing::QueryResult after = testing::RunQuery(server_.channel(), "SELECT count(*) FROM mydb.tbl");
  ASSERT_TRUE(after.status.ok()) << after.status.error_message();
  EXPECT_EQ(after.rows.at(0).data(0).bigint_value(), kHosts * kPoints);
}

}  // namespace
}  // namespace strata
