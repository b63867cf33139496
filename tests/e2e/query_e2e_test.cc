// QueryService over real gRPC: streamed pages, statistics, errors, CancelQuery.
#include <chrono>
#include <thread>

#include "client/column_pages.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "strata/v1/query.grpc.pb.h"
#include "strata/v1/write.grpc.pb.h"
#include "tests/support/query_helpers.h"
#include "tests/support/stratad_process.h"
#include "tests/support/write_helpers.h"

namespace strata {
namespace {

using testing::CpuRecord;
using testing::NowMillis;
using testing::QueryResult;

class QueryE2ETest : public ::testing::Test {
 protected:
  static constexpr int kHosts = 50, kPoints = 40;

  void SetUp() override {
    ASSERT_TRUE(server_.Start()) << server_.error();
    ASSERT_TRUE(testing::CreateDatabaseAndTable(server_.channel(), "mydb", "tbl").ok());
    auto writer = v1::WriteService::NewStub(server_.channel());
    const int64_t now = NowMillis();
    for (int p = 0; p < kPoints; ++p) {
      std::vector<v1::Record> records;
      for (int h = 0; h < kHosts; ++h) {
        records.push_back(CpuRecord("host" + std::to_string(h), now - 60'000 - p * 1000, h + p));
      }
      grpc::ClientContext context;
      v1::WriteRecordsResponse response;
      ASSERT_TRUE(writer->WriteRecords(&context, testing::WriteRequest("mydb", "tbl", records), &response).ok());
      ASSERT_EQ(response.records_ingested().total(), kHosts);
    }
    stub_ = v1::QueryService::NewStub(server_.channel());
  }

  QueryResult Run(const std::string& sql, int page_size = 0) {
    return testing::RunQuery(server_.channel(), sql, page_size);
  }

  // Starts a query with one row per page and reads only its metadata. Its
  // output (each row a thousand times: two million one-row pages, ~100 MiB)
  // is more than any flow-control window holds, so with backpressure the
  // query is surely still running afterwards. (Regression: the table alone,
  // 2,000 pages, could fit a grown window; the query then ended at once and
  // left SHOW QUERIES before it showed what it had scanned.)
  static constexpr char kHeldQuery[] =
      "SELECT * FROM mydb.tbl CROSS JOIN UNNEST(sequence(1, 1000)) AS copies(n)";
  static constexpr int64_t kHeldQueryRows = int64_t{kHosts} * kPoints * 1000;
  std::unique_ptr<grpc::ClientReader<v1::QueryResponse>> StartHeldQuery(
      grpc::ClientContext* context, std::string* query_id) {
    v1::QueryRequest request;
    request.set_query_string(kHeldQuery);
    request.set_page_size(1);
    auto reader = stub_->Query(context, request);
    v1::QueryResponse first;
    EXPECT_TRUE(reader->Read(&first));
    EXPECT_TRUE(first.has_metadata());
    *query_id = first.metadata().query_id();
    return reader;
  }

  testing::StratadProcess server_;
  std::unique_ptr<v1::QueryService::Stub> stub_;
};

TEST_F(QueryE2ETest, StreamsTypedPagesAndStatistics) {
  QueryResult r = Run("SELECT host, time, measure_value::double FROM mydb.tbl WHERE time > ago(1h) "
                 "ORDER BY host, time", 100);
  ASSERT_TRUE(r.status.ok()) << r.status.error_message();
  ASSERT_EQ(r.metadata.columns_size(), 3);
  EXPECT_FALSE(r.metadata.query_id().empty());
  EXPECT_EQ(r.metadata.columns(1).type().scalar_type(), v1::SCALAR_TYPE_TIMESTAMP);
  EXPECT_EQ(r.metadata.columns(2).type().scalar_type(), v1::SCALAR_TYPE_DOUBLE);
  ASSERT_EQ(r.rows.size(), static_cast<size_t>(kHosts * kPoints));
  EXPECT_EQ(r.pages, kHosts * kPoints / 100);
  EXPECT_EQ(r.rows[0].data(0).varchar_value(), "host0");
  EXPECT_LT(r.rows[0].data(1).timestamp_value(), r.rows[1].data(1).timestamp_value());
  EXPECT_EQ(r.statistics.rows_returned(), kHosts * kPoints);
  EXPECT_EQ(r.statistics.rows_scanned(), kHosts * kPoints);
  EXPECT_GT(r.statistics.bytes_scanned(), 0);
  EXPECT_GT(r.statistics.elapsed_nanos(), 0);
}

// Timestream's Datum has no map: a MAP column is an array of (key, value)
// rows, in key order; DATE, TIME and months travel in their own fields.
TEST_F(QueryE2ETest, MapsAndCalendarValuesOnTheWire) {
  QueryResult r = Run("SELECT histogram(host), map(), DATE '2024-03-15', TIME '01:00:00', "
                      "INTERVAL '14' MONTH FROM mydb.tbl WHERE host IN ('host2', 'host1')");
  ASSERT_TRUE(r.status.ok()) << r.status.error_message();
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_EQ(r.metadata.columns(0).type().ShortDebugString(),
            "array_column_info { type { row_column_info { fields { name: \"key\" type { "
            "scalar_type: SCALAR_TYPE_VARCHAR } } fields { name: \"value\" type { scalar_type: "
            "SCALAR_TYPE_BIGINT } } } } }");
  EXPECT_EQ(r.rows[0].data(0).ShortDebugString(),
            "array_value { values { row_value { data { varchar_value: \"host1\" } data { "
            "bigint_value: 40 } } } values { row_value { data { varchar_value: \"host2\" } data { "
            "bigint_value: 40 } } } }");
  EXPECT_EQ(r.rows[0].data(1).ShortDebugString(), "array_value { }");
  EXPECT_EQ(r.metadata.columns(2).type().scalar_type(), v1::SCALAR_TYPE_DATE);
  EXPECT_EQ(r.rows[0].data(2).date_value(), 19797);
  EXPECT_EQ(r.metadata.columns(3).type().scalar_type(), v1::SCALAR_TYPE_TIME);
  EXPECT_EQ(r.rows[0].data(3).interval_nanos_value(), 3'600'000'000'000);
  EXPECT_EQ(r.metadata.columns(4).type().scalar_type(), v1::SCALAR_TYPE_INTERVAL_YEAR_TO_MONTH);
  EXPECT_EQ(r.rows[0].data(4).interval_months_value(), 14);
}

// Regression: a range open to the past counted every hour since 1970 as a
// pruned bucket ("1 time buckets (498714 pruned)").
TEST_F(QueryE2ETest, BucketStatisticsStartAtTheOldestData) {
  QueryResult r = Run("SELECT count(*) FROM mydb.tbl");
  ASSERT_TRUE(r.status.ok()) << r.status.error_message();
  EXPECT_GE(r.statistics.buckets_scanned(), 1);
  EXPECT_LE(r.statistics.buckets_scanned() + r.statistics.buckets_pruned(), 3);
  QueryResult bounded = Run("SELECT count(*) FROM mydb.tbl WHERE time > ago(5h)");
  EXPECT_LE(bounded.statistics.buckets_scanned() + bounded.statistics.buckets_pruned(), 6);
}

// Typed placeholder values: ? in order, @name by name; bound as literals, so
// a value is never SQL (the quote below stays part of the string).
TEST_F(QueryE2ETest, ParametersBindTypedValues) {
  auto query = [&](const std::string& sql, std::vector<v1::QueryParameter> parameters) {
    grpc::ClientContext context;
    v1::QueryRequest request;
    request.set_query_string(sql);
    for (auto& p : parameters) *request.add_parameters() = std::move(p);
    auto reader = stub_->Query(&context, request);
    v1::QueryResponse message;
    std::vector<v1::Row> rows;
    while (reader->Read(&message)) {
      for (const auto& row : message.page().rows()) rows.push_back(row);
    }
    return std::make_pair(reader->Finish(), rows);
  };
  auto positional = [](v1::Datum value) {
    v1::QueryParameter p;
    *p.mutable_value() = std::move(value);
    return p;
  };
  auto named = [](std::string name, v1::Datum value) {
    v1::QueryParameter p;
    p.set_name(std::move(name));
    *p.mutable_value() = std::move(value);
    return p;
  };
  v1::Datum host, minimum, since, quote;
  host.set_varchar_value("host1");
  minimum.set_double_value(5);
  since.set_timestamp_value((NowMillis() - 3'600'000) * 1'000'000);
  quote.set_varchar_value("x' OR '1'='1");

  auto [status, rows] = query(
      "SELECT count(*) FROM mydb.tbl WHERE host = ? AND measure_value::double >= @min AND time > @since",
      {positional(host), named("min", minimum), named("since", since)});
  ASSERT_TRUE(status.ok()) << status.error_message();
  // host1 has values 1 + p for p in [0, kPoints): those >= 5.
  EXPECT_EQ(rows[0].data(0).bigint_value(), kPoints - 4);

  auto [injected, none] = query("SELECT count(*) FROM mydb.tbl WHERE host = ?", {positional(quote)});
  ASSERT_TRUE(injected.ok()) << injected.error_message();
  EXPECT_EQ(none[0].data(0).bigint_value(), 0);

  struct Bad {
    std::string sql;
    std::vector<v1::QueryParameter> parameters;
    std::string message;
  };
  v1::Datum empty;
  const std::vector<Bad> bad = {
      {"SELECT ?", {}, "placeholder ? number 1 has no value"},
      {"SELECT @x", {}, "parameter @x has no value"},
      {"SELECT 1", {positional(host)}, "1 positional parameters were sent but the query has 0"},
      {"SELECT @a", {named("a", host), named("b", host)}, "parameter \"b\" was sent but"},
      {"SELECT @a", {named("a", host), named("a", host)}, "parameter @a is sent twice"},
      {"SELECT ?", {positional(empty)}, "has no value or a type parameters cannot have"},
  };
  for (const Bad& b : bad) {
    auto [failed, ignored] = query(b.sql, b.parameters);
    EXPECT_EQ(failed.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << b.sql;
    EXPECT_NE(failed.error_message().find(b.message), std::string::npos)
        << b.sql << ": " << failed.error_message();
  }
}

TEST_F(QueryE2ETest, PartitionKeyPredicateReadsOneSeries) {
  QueryResult r = Run("SELECT count(*), max(measure_value::double) FROM mydb.tbl WHERE host = 'host7'");
  ASSERT_TRUE(r.status.ok()) << r.status.error_message();
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_EQ(r.rows[0].data(0).bigint_value(), kPoints);
  EXPECT_EQ(r.rows[0].data(1).double_value(), 7 + kPoints - 1);
  EXPECT_EQ(r.statistics.series_scanned(), 1);
  EXPECT_EQ(r.statistics.series_pruned(), kHosts - 1);
  EXPECT_EQ(r.statistics.rows_scanned(), kPoints);
}

TEST_F(QueryE2ETest, AJoinReadsOnlyTheSeriesItsBuildSideHolds) {
  // The WITH query (two hosts) is the smaller side: the table scan on the
  // other side reads those two hosts' series, not all of them.
  QueryResult r = Run(
      "WITH pick AS (SELECT host, max(measure_value::double) AS top FROM mydb.tbl "
      "WHERE host IN ('host1', 'host2') GROUP BY host) "
      "SELECT count(*), sum(t.measure_value::double) FROM mydb.tbl t JOIN pick ON t.host = pick.host");
  ASSERT_TRUE(r.status.ok()) << r.status.error_message();
  EXPECT_EQ(r.rows.at(0).data(0).bigint_value(), 2 * kPoints);
  EXPECT_EQ(r.statistics.rows_scanned(), 2 * 2 * kPoints);  // each side reads the two hosts
}

TEST_F(QueryE2ETest, ErrorsPointAtTheProblem) {
  QueryResult typo = Run("SELECT hots FROM mydb.tbl");
  EXPECT_EQ(typo.status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(typo.status.error_message().find("column \"hots\" does not exist; did you mean \"host\"?"),
            std::string::npos)
      << typo.status.error_message();
  EXPECT_NE(typo.status.error_message().find("LINE 1: SELECT hots FROM mydb.tbl\n"
                                             "               ^"),
            std::string::npos)
      << typo.status.error_message();
  QueryResult missing = Run("SELECT 1 FROM mydb.nope");
  EXPECT_EQ(missing.status.error_code(), grpc::StatusCode::NOT_FOUND);
  QueryResult syntax = Run("SELEC 1");
  EXPECT_EQ(syntax.status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
}

TEST_F(QueryE2ETest, ShowQueriesListsRunningQueriesAndKillQueryStopsOne) {
  grpc::ClientContext context;
  std::string id;
  auto reader = StartHeldQuery(&context, &id);
  ASSERT_FALSE(id.empty());

  QueryResult shown = Run("SHOW QUERIES");
  ASSERT_TRUE(shown.status.ok()) << shown.status.error_message();
  ASSERT_EQ(shown.metadata.columns_size(), 8);
  EXPECT_EQ(shown.metadata.columns(0).name(), "query_id");
  EXPECT_EQ(shown.metadata.columns(6).name(), "rows_scanned");
  EXPECT_EQ(shown.metadata.columns(7).name(), "bytes_scanned");
  bool found = false;
  for (const v1::Row& row : shown.rows) {
    if (row.data(0).varchar_value() != id) continue;
    found = true;
    EXPECT_EQ(row.data(1).varchar_value(), kHeldQuery);
    EXPECT_NE(row.data(3).varchar_value().find("127.0.0.1"), std::string::npos);
    EXPECT_GT(row.data(5).interval_nanos_value(), 0);
  }
  EXPECT_TRUE(found) << "the held query is not listed";
  // What it has scanned shows while it runs: the held query stops once its
  // output is full, after handing on at least one batch (the first SHOW may
  // come before that batch: ask until it shows).
  int64_t rows_scanned = 0, bytes_scanned = 0;
  for (auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
       rows_scanned == 0 && std::chrono::steady_clock::now() < give_up;) {
    for (const v1::Row& row : Run("SHOW QUERIES").rows) {
      if (row.data(0).varchar_value() != id) continue;
      rows_scanned = row.data(6).bigint_value();
      bytes_scanned = row.data(7).bigint_value();
    }
    if (rows_scanned == 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_GT(rows_scanned, 0);
  EXPECT_LE(rows_scanned, kHosts * kPoints);
  EXPECT_GT(bytes_scanned, 0);

  QueryResult killed = Run("KILL QUERY '" + id + "'");
  ASSERT_TRUE(killed.status.ok()) << killed.status.error_message();
  v1::QueryResponse message;
  while (reader->Read(&message)) {
  }
  EXPECT_EQ(reader->Finish().error_code(), grpc::StatusCode::CANCELLED);

  QueryResult again = Run("KILL QUERY '" + id + "'");
  EXPECT_EQ(again.status.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_NE(again.status.error_message().find("is not running"), std::string::npos);
  EXPECT_EQ(Run("KILL QUERY 42").status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
}

TEST_F(QueryE2ETest, CancelQueryStopsARunningQuery) {
  grpc::ClientContext context;
  std::string id;
  auto reader = StartHeldQuery(&context, &id);
  ASSERT_FALSE(id.empty());

  grpc::ClientContext cancel_context;
  v1::CancelQueryRequest cancel;
  cancel.set_query_id(id);
  v1::CancelQueryResponse cancelled;
  ASSERT_TRUE(stub_->CancelQuery(&cancel_context, cancel, &cancelled).ok());
  EXPECT_NE(cancelled.cancellation_message().find("was cancelled"), std::string::npos);

  v1::QueryResponse message;
  int rows = 0;
  while (reader->Read(&message)) rows += message.page().rows_size();
  grpc::Status status = reader->Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::CANCELLED) << status.error_message();
  EXPECT_LT(rows, kHeldQueryRows);

  // Cancelling again, or an unknown id, is fine and says so. (Regression: the
  // query used to stay registered until after the client saw its end.)
  grpc::ClientContext again_context;
  v1::CancelQueryResponse again;
  ASSERT_TRUE(stub_->CancelQuery(&again_context, cancel, &again).ok());
  EXPECT_NE(again.cancellation_message().find("is not running"), std::string::npos);
}

TEST_F(QueryE2ETest, ClientCancellationStopsTheQuery) {
  grpc::ClientContext context;
  std::string id;
  auto reader = StartHeldQuery(&context, &id);
  context.TryCancel();
  v1::QueryResponse message;
  while (reader->Read(&message)) {
  }
  EXPECT_EQ(reader->Finish().error_code(), grpc::StatusCode::CANCELLED);
  // The server is still healthy and answers the next query.
  QueryResult r = Run("SELECT count(*) FROM mydb.tbl");
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(r.rows[0].data(0).bigint_value(), kHosts * kPoints);
}

TEST_F(QueryE2ETest, ColumnarPagesCarryTypedArraysAndANullMap) {
  v1::QueryRequest request;
  request.set_query_string(
      "SELECT host, measure_value::double AS v, CASE WHEN host = 'host1' THEN 7 END AS n, "
      "host = 'host1' AS first, NULL AS nothing, time > ago(1d) AS recent FROM mydb.tbl "
      "WHERE host IN ('host1', 'host2') AND time = (SELECT max(time) FROM mydb.tbl) ORDER BY host");
  request.set_columnar(true);
  grpc::ClientContext context;
  auto reader = stub_->Query(&context, request);
  v1::QueryResponse response;
  std::vector<v1::ColumnPage> pages;
  while (reader->Read(&response)) {
    EXPECT_FALSE(response.has_page());  // no row pages when columnar ones were asked for
    if (response.has_column_page()) pages.push_back(response.column_page());
  }
  ASSERT_TRUE(reader->Finish().ok());
  ASSERT_EQ(pages.size(), 1u);
  const v1::ColumnPage& page = pages[0];
  ASSERT_EQ(page.row_count(), 2);
  ASSERT_EQ(page.columns_size(), 6);
  EXPECT_EQ(page.columns(0).string_data(), "host1host2");
  EXPECT_THAT(page.columns(0).string_ends(), ::testing::ElementsAre(5, 10));
  EXPECT_EQ(page.columns(0).nulls(), "");
  EXPECT_THAT(page.columns(1).doubles(), ::testing::ElementsAre(1, 2));  // h + p, p = 0
  EXPECT_THAT(page.columns(2).ints(), ::testing::ElementsAre(7, 0));
  EXPECT_EQ(page.columns(2).nulls(), std::string(1, '\x02'));  // row 2 is NULL
  EXPECT_THAT(page.columns(3).booleans(), ::testing::ElementsAre(true, false));
  EXPECT_EQ(page.columns(4).nulls(), std::string(1, '\x03'));  // UNKNOWN: NULL everywhere
  EXPECT_EQ(page.columns(4).ints_size() + page.columns(4).doubles_size(), 0);
  EXPECT_THAT(page.columns(5).booleans(), ::testing::ElementsAre(true, true));
}

// Columnar pages, from rows or straight from scan batches, decode to the
// same rows as row pages, page boundaries and NULLs included.
TEST_F(QueryE2ETest, ColumnarPagesHoldTheSameRowsAsRowPages) {
  auto run = [&](const std::string& sql, int page_size, bool columnar) {
    v1::QueryRequest request;
    request.set_query_string(sql);
    request.set_page_size(page_size);
    request.set_columnar(columnar);
    grpc::ClientContext context;
    auto reader = stub_->Query(&context, request);
    v1::QueryResponse response;
    v1::QueryMetadata metadata;
    std::vector<v1::Row> rows;
    int pages = 0;
    while (reader->Read(&response)) {
      if (response.has_metadata()) metadata = response.metadata();
      if (response.has_page()) {
        ++pages;
        rows.insert(rows.end(), response.page().rows().begin(), response.page().rows().end());
      }
      if (response.has_column_page()) {
        ++pages;
        EXPECT_LE(response.column_page().row_count(), page_size);
        auto decoded = cli::RowsFromColumns(metadata, response.column_page());
        EXPECT_TRUE(decoded.ok()) << decoded.status();
        if (decoded.ok()) rows.insert(rows.end(), decoded->rows().begin(), decoded->rows().end());
      }
    }
    grpc::Status status = reader->Finish();
    EXPECT_TRUE(status.ok()) << sql << ": " << status.error_message();
    return std::make_pair(testing::RowsText(rows), pages);
  };
  const std::string queries[] = {
      "SELECT * FROM mydb.tbl",
      "SELECT host, time, measure_value::double * 2 AS twice, CASE WHEN measure_value::double > 40 "
      "THEN 'high' END AS level, NULL AS nothing, measure_value::double > 30 AS hot FROM mydb.tbl "
      "WHERE host IN ('host1', 'host7', 'host49')",
      "SELECT upper(host), CAST(measure_value::double AS bigint) FROM mydb.tbl WHERE "
      "measure_value::double BETWEEN 10 AND 12",
      "SELECT host FROM mydb.tbl WHERE host = 'nobody'",
      // Arrays, rows and time series travel as a Datum per row in both forms.
      "SELECT host, array_agg(measure_value::double), create_time_series(time, "
      "measure_value::double), row(host, count(*)), CASE WHEN host = 'host3' THEN ARRAY[1] END "
      "FROM mydb.tbl GROUP BY host",
      // DATE, TIME and INTERVAL YEAR TO MONTH are ints of their units in columnar pages.
      "SELECT host, date(time), CAST(time AS time), INTERVAL '14' MONTH, time - TIMESTAMP "
      "'2000-01-01 00:00:00', CASE WHEN host = 'host3' THEN current_date END FROM mydb.tbl",
      "SELECT host, map_agg(time, measure_value::double), histogram(measure_value::double > 20) "
      "FROM mydb.tbl GROUP BY host",
  };
  for (const std::string& sql : queries) {
    for (int page_size : {7, 1000, 5000}) {
      auto rows = run(sql, page_size, false);
      auto columns = run(sql, page_size, true);
      // Without ORDER BY the order is the scan's, the same both ways.
      EXPECT_EQ(columns.first, rows.first) << sql << " page_size " << page_size;
      EXPECT_EQ(columns.second, rows.second) << sql << " page_size " << page_size;
    }
  }
}

// A select list over filtered rows reaches row pages straight from the
// scan's batches; with a LIMIT (no batches) the same rows come through the
// row path. The pages must be the same bytes, row by row: the same value
// kinds, NULLs and strings, not just the same text.
TEST_F(QueryE2ETest, RowPagesFromBatchesAreTheRowPathsRows) {
  auto rows_of = [&](const std::string& sql) {
    v1::QueryRequest request;
    request.set_query_string(sql);
    request.set_page_size(7);
    grpc::ClientContext context;
    auto reader = stub_->Query(&context, request);
    v1::QueryResponse response;
    std::vector<std::string> rows;
    while (reader->Read(&response)) {
      for (const v1::Row& row : response.page().rows()) rows.push_back(row.SerializeAsString());
    }
    grpc::Status status = reader->Finish();
    EXPECT_TRUE(status.ok()) << sql << ": " << status.error_message();
    return rows;
  };
  const std::string queries[] = {
      "SELECT * FROM mydb.tbl",
      "SELECT host, time, measure_value::double * 2 AS twice, CASE WHEN measure_value::double > 40 "
      "THEN 'high' END AS level, NULL AS nothing, measure_value::double > 30 AS hot, "
      "date(time) AS day, CAST(time AS time) AS t, INTERVAL '14' MONTH AS m, "
      "CASE WHEN host = 'host3' THEN ARRAY[1, 2] END AS a, host || '-x' AS label FROM mydb.tbl "
      "WHERE host IN ('host1', 'host3', 'host49')",
      "SELECT upper(host), CAST(measure_value::double AS bigint) FROM mydb.tbl WHERE "
      "measure_value::double BETWEEN 10 AND 12",
  };
  for (const std::string& sql : queries) {
    const std::vector<std::string> batches = rows_of(sql);
    EXPECT_FALSE(batches.empty()) << sql;
    EXPECT_EQ(batches, rows_of(sql + " LIMIT 1000000")) << sql;
  }
}

}  // namespace
}  // namespace strata
