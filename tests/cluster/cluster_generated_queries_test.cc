// Generated queries (tests/support/generated_sql.h) answer alike through a cluster's fragments
// and from one node's own replicas. A leader read through the node served fans out: each
// shard's leader runs a fragment (its conditions, its ORDER BY ... LIMIT, its groups' partial
// states or whole groups), and the node merges them (query/plan/planner_shards.cc). A strong
// read there reads the node's replicas whole, as one stratad would. Over a table partitioned by
// measure name and one partitioned by host (whose groups by host stay whole in a shard and
// whose conditions on host prune shards).
#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "tests/cluster/cluster_harness.h"
#include "tests/cluster/cluster_helpers.h"
#include "tests/sql/two_dialect_grammar.h"
#include "tests/support/generated_sql.h"
#include "tests/support/oracle_rows.h"
#include "tests/support/query_helpers.h"
#include "tests/support/write_helpers.h"

namespace strata::testing {
namespace {

// The node queried: it leads no shard (a replica made to lag never does) and fans every
// leader read out, however small.
constexpr int kServed = 2;

v1::Record ToRecord(const GeneratedRow& row) {
  v1::Record r;
  for (const auto& [name, value] : row.dimensions) {
    auto* d = r.add_dimensions();
    d->set_name(name);
    d->set_value(value);
  }
  r.set_measure_name(row.measure_name);
  r.set_measure_value_type(v1::MEASURE_VALUE_TYPE_MULTI);
  r.set_time(row.time_millis);
  if (row.version != 1) r.set_version(row.version);
  for (const auto& [name, value] : row.values) {
    auto* m = r.add_measure_values();
    m->set_name(name);
    if (const double* d = std::get_if<double>(&value)) m->mutable_value()->set_double_value(*d);
    if (const int64_t* i = std::get_if<int64_t>(&value)) m->mutable_value()->set_bigint_value(*i);
    if (const std::string* t = std::get_if<std::string>(&value)) {
      m->mutable_value()->set_varchar_value(*t);
    }
    if (const bool* b = std::get_if<bool>(&value)) m->mutable_value()->set_boolean_value(*b);
  }
  return r;
}

// A table for rows of 2024: magnetic writes on, kept 200 years.
grpc::Status CreateOldRowsTable(StratadProcess& node, const std::string& table,
                                const std::string& partition_key) {
  auto stub = v1::CatalogService::NewStub(node.channel());
  v1::CreateTableRequest request;
  request.set_database_name("demo");
  request.set_table_name(table);
  request.mutable_retention_properties()->set_memory_store_retention_hours(6);
  request.mutable_retention_properties()->set_magnetic_store_retention_days(73000);
  request.mutable_magnetic_store_write_properties()->set_enable_magnetic_store_writes(true);
  if (!partition_key.empty()) {
    auto* key = request.mutable_schema()->add_composite_partition_key();
    key->set_type(v1::PARTITION_KEY_TYPE_DIMENSION);
    key->set_name(partition_key);
  }
  v1::CreateTableResponse response;
  grpc::ClientContext context;
  return stub->CreateTable(&context, request, &response);
}

class ClusterGeneratedQueriesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    REQUIRE_CLUSTER_SERVERS();
    cluster_ = std::make_unique<TestCluster>(TestCluster::Options{
        .nodes = 3,
        .shards = 4,
        .flags_of_node = {{kServed, {"--small-read-rows", "0", "--testing-apply-delay-ms", "1"}}}});
    ASSERT_TRUE(cluster_->Start()) << cluster_->error();
    ASSERT_TRUE(CreateDatabase(cluster_->node(0).channel(), "demo").ok());
  }

  // The rows of `sql` through the served node under `consistency`, sorted unless ordered.
  std::string Rows(const std::string& sql, v1::ReadConsistency consistency) {
    v1::QueryRequest request;
    request.set_query_string(sql);
    request.mutable_read()->set_consistency(consistency);
    return AnswerText(sql, RunQueryRequest(cluster_->node(kServed).channel(), request));
  }

  // `result`'s rows (of `sql`) as text, sorted unless ordered, or its error.
  static std::string AnswerText(const std::string& sql, const QueryResult& result) {
    if (!result.status.ok()) return "error: " + result.status.error_message();
    std::string text = RowsText(result.rows);
    // -0 as 0: max, min and DISTINCT keep whichever zero comes first, and the fragments
    // come in any order.
    for (size_t at = 0; (at = text.find("-0", at)) != std::string::npos;) {
      const bool starts = at == 0 || text[at - 1] == '|' || text[at - 1] == '\n';
      const size_t end = text.find_first_of("|\n", at);
      const std::string field = text.substr(at, end - at);
      if (starts && (field == "-0" || field == "-0.0")) {
        text.erase(at, 1);
      } else {
        at += 2;
      }
    }
    if (!OrdersItsRows(sql)) {
      std::vector<std::string> lines;
      for (size_t at = 0, end; at < text.size(); at = end + 1) {
        end = text.find('\n', at);
        lines.push_back(text.substr(at, end - at));
      }
      std::sort(lines.begin(), lines.end());
      text.clear();
      for (const std::string& line : lines) text += line + "\n";
    }
    return text;
  }

  // `records` into demo.`table` through node 0, a request of 100 at a time, none rejected.
  void WriteAll(const std::string& table, const std::vector<v1::Record>& records) {
    for (size_t i = 0; i < records.size(); i += 100) {
      const std::vector<v1::Record> batch(
          records.begin() + static_cast<int64_t>(i),
          records.begin() + static_cast<int64_t>(std::min(records.size(), i + 100)));
      v1::WriteRecordsResponse response;
      ASSERT_TRUE(Write(cluster_->node(0), table, batch, &response).ok()) << table;
      ASSERT_EQ(response.rejected_records_size(), 0) << table;
    }
  }

  std::unique_ptr<TestCluster> cluster_;
};

TEST_F(ClusterGeneratedQueriesTest, FragmentsAnswerAsTheServedNodesOwnReplicas) {
  for (const auto& [table, key] : {std::pair{"metrics", ""}, std::pair{"keyed", "host"}}) {
    ASSERT_TRUE(CreateOldRowsTable(cluster_->node(0), table, key).ok()) << table;
  }
  std::mt19937 random(3);
  std::vector<GeneratedRow> rows;
  for (int hour = 0; hour < 4; ++hour) {
    std::vector<GeneratedRow> more = GeneratedHour(hour, random);
    rows.insert(rows.end(), more.begin(), more.end());
  }
  std::vector<v1::Record> records;
  for (const GeneratedRow& row : rows) records.push_back(ToRecord(row));
  for (const char* table : {"metrics", "keyed"}) ASSERT_NO_FATAL_FAILURE(WriteAll(table, records));
  for (const char* table : {"demo.metrics", "demo.keyed"}) {
    QueryGrammar grammar(GeneratedSeed(77), table);
    int errors = 0;
    for (int i = 0; i < GeneratedQueries(120); ++i) {
      const std::string sql = grammar.Next();
      const std::string local = Rows(sql, v1::READ_CONSISTENCY_STRONG);
      const std::string merged = Rows(sql, v1::READ_CONSISTENCY_LEADER);
      EXPECT_TRUE(AnswersAgree(merged, local)) << sql << "\nmerged:\n"
                                               << merged << "local:\n"
                                               << local;
      errors += local.rfind("error: ", 0) == 0;
    }
    EXPECT_LT(errors, GeneratedQueries(120) / 12) << table;
    // avg over BIGINT is exact on one node (a 128-bit sum), and so through the fragments,
    // whose sums part high and low: n rows of 2^53 + 1 make a double's 2^53 + 2 once divided,
    // where a DOUBLE sum of each fragment's lost every 1 (mutation-checked).
    const std::string exact_avg =
        absl::StrCat("SELECT CAST(avg(procs - procs + 9007199254740993) AS varchar) FROM ", table);
    EXPECT_EQ(Rows(exact_avg, v1::READ_CONSISTENCY_LEADER), "9007199254740994\n");
    EXPECT_EQ(Rows(exact_avg, v1::READ_CONSISTENCY_STRONG), "9007199254740994\n");
    // Aggregates that read their rows in an order (array_agg(x ORDER BY k), string_agg): no
    // partial state keeps one, so their rows travel and are ordered here, or, where each host
    // is whole in one fragment (demo.keyed without the array), the fragments order them
    // (mutation-checked: written without their ORDER BY they fail). Ties in time are broken
    // by the value itself, so that one answer is right.
    for (const std::string& ordered :
         {absl::StrCat("SELECT host, array_agg(usage ORDER BY time DESC, usage), string_agg(state, "
                       "',' ORDER BY time, state) FROM ",
                       table, " WHERE time > ago(3h) GROUP BY host ORDER BY host"),
          absl::StrCat("SELECT host, string_agg(state, ',' ORDER BY time DESC, state), "
                       "listagg(state) WITHIN GROUP (ORDER BY state DESC NULLS FIRST, time) FROM ",
                       table, " GROUP BY host ORDER BY host"),
          // FILTER of aggregates that keep NULLs: a condition of their own, over the rows here.
          absl::StrCat("SELECT host, array_agg(usage ORDER BY time, usage) FILTER (WHERE usage > "
                       "50), json_agg(state ORDER BY time, state) FILTER (WHERE state IS NULL OR "
                       "up) FROM ",
                       table, " GROUP BY host ORDER BY host"),
          // DISTINCT ON's first row per key, after the fragments' rows are ordered here.
          absl::StrCat("SELECT DISTINCT ON (host) host, time, usage, state FROM ", table,
                       " ORDER BY host, time DESC, usage, state"),
          // A row IN a subquery's rows and a comparison with ALL of its answers: the answers
          // are a literal no fragment's SQL writes, so the rows are tested here.
          absl::StrCat("SELECT host, time, usage FROM ", table, " WHERE (host, time) IN (SELECT ",
                       "host, max(time) FROM ", table, " GROUP BY host) AND usage >= ALL (SELECT ",
                       "avg(usage) FROM ", table, ") ORDER BY host, time"),
          // LATERAL's first rows of each outer row: row numbers over the fragments' rows here.
          absl::StrCat("SELECT d.host, l.time, l.usage FROM (SELECT DISTINCT host FROM ", table,
                       ") d, LATERAL (SELECT time, usage FROM ", table, " c WHERE c.host = ",
                       "d.host ORDER BY time DESC, usage LIMIT 2) l ORDER BY 1, 2, 3"),
          // WITH TIES: the fragments cannot cut at n rows (each would keep its own ties only
          // if told), so the rows are cut here, ties and all.
          absl::StrCat("SELECT * FROM (SELECT host, time, usage FROM ", table,
                       " ORDER BY time DESC FETCH FIRST 2 ROWS WITH TIES) s ORDER BY 1, 2, 3")}) {
      const std::string answer = Rows(ordered, v1::READ_CONSISTENCY_LEADER);
      EXPECT_EQ(answer, Rows(ordered, v1::READ_CONSISTENCY_STRONG)) << ordered;
      EXPECT_EQ(answer.rfind("error", 0), std::string::npos) << answer;
    }
    // Counts over no rows are 0 through the fragments too, where the fragments group (by a
    // key, or by the values of a DISTINCT) and so send no row for the grand total: the merge
    // of their counts answered NULL (found by this test's grammar over more seeds).
    for (const std::string& empty :
         {absl::StrCat("SELECT count(*), count_if(up), count(DISTINCT host) FROM ", table,
                       " WHERE usage > 1000"),
          absl::StrCat("SELECT region, count(*), count(usage) FROM ", table,
                       " WHERE usage > 1000 GROUP BY ROLLUP (region)")}) {
      EXPECT_EQ(Rows(empty, v1::READ_CONSISTENCY_LEADER), Rows(empty, v1::READ_CONSISTENCY_STRONG))
          << empty;
      EXPECT_EQ(Rows(empty, v1::READ_CONSISTENCY_LEADER).substr(0, 5),
                empty.find("ROLLUP") == std::string::npos ? "0|0|0" : "NULL|")
          << empty;
    }
    // Ternary logic partitioning through the fragments, which take NOT (p) and (p) IS NULL
    // as conditions of their own: each host's rows in WHERE p, WHERE NOT (p) and
    // WHERE (p) IS NULL add up to its rows (tests/sql/generated_queries_test.cc does so on
    // one node).
    // Each host's rows and sum of procs under `where`, added into `hosts`.
    auto add_hosts = [&](const std::string& where, auto* hosts) {
      const std::string part =
          Rows(absl::StrCat("SELECT host, count(*), coalesce(sum(procs), 0) FROM ", table, where,
                            " GROUP BY host"),
               v1::READ_CONSISTENCY_LEADER);
      for (const absl::string_view line : absl::StrSplit(part, '\n', absl::SkipEmpty())) {
        const std::vector<std::string> fields = absl::StrSplit(line, '|');
        ASSERT_EQ(fields.size(), 3u) << where << ": " << part;
        (*hosts)[fields[0]].first += std::stoll(fields[1]);
        (*hosts)[fields[0]].second += std::stoll(fields[2]);
      }
    };
    std::map<std::string, std::pair<int64_t, int64_t>> whole;
    add_hosts("", &whole);
    ASSERT_EQ(whole.size(), static_cast<size_t>(kGeneratedHosts));
    for (int i = 0; i < GeneratedQueries(120) / 3; ++i) {
      const std::string p = grammar.Predicate();
      std::map<std::string, std::pair<int64_t, int64_t>> added;
      for (const std::string& where :
           {" WHERE " + p, " WHERE NOT (" + p + ")", " WHERE (" + p + ") IS NULL"}) {
        add_hosts(where, &added);
      }
      EXPECT_EQ(added, whole) << p;
    }
    // Shortcuts through the fragments (each sends its first LIMIT + OFFSET rows or groups,
    // or its series' last points) answer as the plain statement through them.
    for (int i = 0; i < GeneratedQueries(120) / 3; ++i) {
      const QueryGrammar::ShortcutPair pair = grammar.Shortcut();
      std::string plain = Rows(pair.plain, v1::READ_CONSISTENCY_LEADER);
      if (pair.limit > 0) {
        std::vector<std::string> lines = absl::StrSplit(plain, '\n', absl::SkipEmpty());
        lines.erase(lines.begin(), lines.begin() + std::min(pair.offset, lines.size()));
        lines.resize(std::min(pair.limit, lines.size()));
        plain.clear();
        for (const std::string& line : lines) absl::StrAppend(&plain, line, "\n");
      }
      EXPECT_EQ(Rows(pair.shortcut, v1::READ_CONSISTENCY_LEADER), plain) << pair.shortcut;
    }
    // The reads did fan out: the plan has fragments, which aggregate a CASE themselves.
    const std::string plan = Rows(
        absl::StrCat("EXPLAIN SELECT sum(CASE WHEN state = 'ok' THEN 1 ELSE 0 END) FROM ", table),
        v1::READ_CONSISTENCY_LEADER);
    EXPECT_NE(plan.find("ShardFragments"), std::string::npos) << plan;
    EXPECT_NE(plan.find("sum((CASE WHEN (\"state\" = 'ok') THEN 1 ELSE 0 END))"), std::string::npos)
        << plan;
    // ago() as the query's own time, the same at every fragment.
    const std::string recent =
        Rows(absl::StrCat("EXPLAIN SELECT count_if(time > ago(1h)) FROM ", table),
             v1::READ_CONSISTENCY_LEADER);
    EXPECT_NE(recent.find("count_if((\"time\" > (from_nanoseconds("), std::string::npos) << recent;
  }
}

// A read whose answer is the fragments' rows as they are (no ORDER BY, grouping or LIMIT) has
// the other nodes make the client's pages, columnar or rows, which the served node relays as
// they come (query/base/relayed_pages.h): the same rows as its own replicas answer, in pages
// of at most the size asked for, counted in strata_query_rows_relayed_total. A fragment
// answering with other columns than the client's (a shard without a column) sends its rows
// as always; answers the node makes of the fragments' rows are made here.
TEST_F(ClusterGeneratedQueriesTest, PassThroughReadsRelayTheFragmentsPages) {
  ASSERT_TRUE(CreateOldRowsTable(cluster_->node(0), "metrics", "host").ok());
  std::mt19937 random(5);
  std::vector<v1::Record> records;
  for (int hour = 0; hour < 2; ++hour) {
    for (const GeneratedRow& row : GeneratedHour(hour, random)) records.push_back(ToRecord(row));
  }
  ASSERT_NO_FATAL_FAILURE(WriteAll("metrics", records));
  StratadProcess& served = cluster_->node(kServed);
  const std::string relayed_rows = "strata_query_rows_relayed_total";
  auto paged = [&](const std::string& sql, bool columnar) {
    v1::QueryRequest request;
    request.set_query_string(sql);
    request.set_columnar(columnar);
    request.set_page_size(7);
    request.mutable_read()->set_consistency(v1::READ_CONSISTENCY_LEADER);
    return RunQueryRequest(served.channel(), request);
  };
  auto columnar = [&](const std::string& sql) { return paged(sql, true); };
  auto relays = [&](const std::string& sql, bool columnar_pages = true) {
    const double before = MetricValue(served, relayed_rows);
    const QueryResult result = paged(sql, columnar_pages);
    EXPECT_TRUE(result.status.ok()) << sql << ": " << result.status.error_message();
    EXPECT_LE(result.largest_page, 7) << sql;
    EXPECT_EQ(result.statistics.rows_returned(), static_cast<int64_t>(result.rows.size())) << sql;
    EXPECT_EQ(AnswerText(sql, result), Rows(sql, v1::READ_CONSISTENCY_STRONG)) << sql;
    return std::pair(MetricValue(served, relayed_rows) - before, result.rows.size());
  };
  // The served node leads no shard: every row is another node's, and relayed. The columns
  // the client asked for may be any of the table's, in another order.
  for (const std::string& sql :
       {std::string("SELECT * FROM demo.metrics"),
        std::string("SELECT time AS t, host, usage, time FROM demo.metrics WHERE usage > 50 OR "
                    "state IS NULL")}) {
    for (bool columnar_pages : {true, false}) {
      const auto [relayed, rows] = relays(sql, columnar_pages);
      EXPECT_GT(rows, 0u) << sql;
      EXPECT_EQ(relayed, static_cast<double>(rows)) << sql << (columnar_pages ? "" : " (rows)");
    }
  }
  // A condition the fragments apply whole is not applied here again: the columns only it
  // reads are not sent (`state` and `usage` stay at the fragments).
  const std::string plan =
      Rows("EXPLAIN SELECT host, time FROM demo.metrics WHERE usage > 50 OR state IS NULL",
           v1::READ_CONSISTENCY_LEADER);
  EXPECT_NE(plan.find("SELECT \"host\", \"time\" FROM \"demo\".\"metrics\" WHERE"),
            std::string::npos)
      << plan;
  // A column one shard holds only: the fragments without it answer with other columns than
  // the client's, and send their rows to be made into pages here.
  v1::Record rare = records.front();
  rare.set_time(rare.time() + 1);
  auto* extra = rare.add_measure_values();
  extra->set_name("rare");
  extra->mutable_value()->set_bigint_value(42);
  ASSERT_NO_FATAL_FAILURE(WriteAll("metrics", {rare}));
  relays("SELECT * FROM demo.metrics");
  relays("SELECT * FROM demo.metrics", /*columnar_pages=*/false);
  EXPECT_EQ(Rows("SELECT count(*) FROM demo.metrics WHERE rare = 42", v1::READ_CONSISTENCY_LEADER),
            "1\n");
  // What is made here relays nothing: a grouping, an ORDER BY ... LIMIT.
  const double before = MetricValue(served, relayed_rows);
  for (const std::string& sql :
       {std::string("SELECT host, max(usage) FROM demo.metrics GROUP BY host"),
        std::string("SELECT host, time FROM demo.metrics ORDER BY time DESC, host LIMIT 5")}) {
    EXPECT_EQ(AnswerText(sql, columnar(sql)), Rows(sql, v1::READ_CONSISTENCY_STRONG)) << sql;
  }
  EXPECT_EQ(MetricValue(served, relayed_rows), before);
}

v1::Record OracleRecord(const OracleRow& row) {
  v1::Record r;
  auto dimension = [&](const char* name, const std::string& value) {
    auto* d = r.add_dimensions();
    d->set_name(name);
    d->set_value(value);
  };
  dimension("host", row.host);
  if (row.zone) dimension("zone", *row.zone);
  r.set_measure_name(row.measure_name);
  r.set_measure_value_type(v1::MEASURE_VALUE_TYPE_MULTI);
  r.set_time(row.time_millis);
  auto measure = [&](const char* name) {
    auto* m = r.add_measure_values();
    m->set_name(name);
    return m->mutable_value();
  };
  if (row.a) measure("a")->set_bigint_value(*row.a);
  measure("b")->set_bigint_value(row.b);
  if (row.x) measure("x")->set_double_value(*row.x);
  if (row.y) measure("y")->set_double_value(*row.y);
  if (row.s) measure("s")->set_varchar_value(*row.s);
  if (row.u) measure("u")->set_varchar_value(*row.u);
  if (row.f) measure("f")->set_boolean_value(*row.f);
  return r;
}

// The SQLite oracle's statements (tests/sql/two_dialect_grammar.h: every type, CASE in both
// forms, IS DISTINCT FROM, LIKE, text beyond ASCII, date and math functions, windows, joins,
// set operations, correlated subqueries) through the fragments, against the served node's
// replicas. One node answers them as SQLite does (tests/sql/sqlite_oracle_test.cc); a fragment
// reads each expression as the SQL text the coordinator writes for it
// (query/expr/sql_text.cc), so every expression it sends must read back the same.
TEST_F(ClusterGeneratedQueriesTest, TwoDialectStatementsAnswerAsTheServedNodesOwnReplicas) {
  for (const auto& [table, key] : {std::pair{"oracle", ""}, std::pair{"oracle_keyed", "host"}}) {
    ASSERT_TRUE(CreateOldRowsTable(cluster_->node(0), table, key).ok()) << table;
  }
  std::mt19937 random(31);
  std::vector<OracleRow> rows;
  for (int hour = 0; hour < 4; ++hour) {
    std::vector<OracleRow> more = OracleRows(hour, random);
    rows.insert(rows.end(), more.begin(), more.end());
  }
  std::vector<v1::Record> records;
  for (const OracleRow& row : rows) records.push_back(OracleRecord(row));
  for (const char* table : {"oracle", "oracle_keyed"}) {
    ASSERT_NO_FATAL_FAILURE(WriteAll(table, records));
  }
  for (const char* table : {"demo.oracle", "demo.oracle_keyed"}) {
    TwoDialectGrammar grammar(GeneratedSeed(5), table);
    int errors = 0;
    for (int i = 0; i < GeneratedQueries(120); ++i) {
      const std::string sql = grammar.Next().strata;
      const std::string local = Rows(sql, v1::READ_CONSISTENCY_STRONG);
      const std::string merged = Rows(sql, v1::READ_CONSISTENCY_LEADER);
      EXPECT_TRUE(AnswersAgree(merged, local)) << sql << "\nmerged:\n"
                                               << merged << "local:\n"
                                               << local;
      errors += local.rfind("error: ", 0) == 0;
    }
    EXPECT_LT(errors, GeneratedQueries(120) / 12) << table;
    // A constant sort key is left out of the fragments' ORDER BY: written there as it is, an
    // integer was read as an ordinal ("ORDER BY 27 is not a select item"; found by this test).
    const std::string constant =
        absl::StrCat("SELECT 27, -8, host FROM ", table, " ORDER BY 1 DESC, 2, 3 LIMIT 3");
    EXPECT_EQ(Rows(constant, v1::READ_CONSISTENCY_LEADER), "27|-8|h0\n27|-8|h0\n27|-8|h0\n");
  }
}

}  // namespace
}  // namespace strata::testing
