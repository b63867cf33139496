// A cluster larger than its copies (docs/cluster.md, "Placement"): five nodes, each shard's
// three replicas on three of them (--cluster-nodes). Every statement through any node reads
// every shard once, the ones the node does not hold from nodes that do; losing a node loses
// nothing.
#include <signal.h>

#include <algorithm>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "strata/internal/v1/shard.grpc.pb.h"
#include "tests/cluster/cluster_harness.h"
#include "tests/cluster/cluster_helpers.h"
#include "tests/support/query_helpers.h"
#include "tests/support/write_helpers.h"

namespace strata::testing {
namespace {

using std::chrono::seconds;

constexpr int kNodes = 5;
constexpr int kHosts = 30;
constexpr int kPointsPerHost = 4;

class ClusterPlacementTest : public ::testing::Test {
 protected:
  void SetUp() override {
    REQUIRE_CLUSTER_SERVERS();
    cluster_ = std::make_unique<TestCluster>(
        TestCluster::Options{.nodes = kNodes, .shards = 8, .placement = true});
    ASSERT_TRUE(cluster_->Start()) << cluster_->error();
    ASSERT_TRUE(CreateDatabase(cluster_->node(0).channel(), "demo").ok());
    ASSERT_TRUE(CreateTable(cluster_->node(3), "cpu").ok());
    now_ = NowMillis();
  }

  // kHosts hosts, kPointsPerHost points each, written through every node in turn; what was
  // written, as ReadAll reads it.
  std::map<std::pair<std::string, int64_t>, double> WriteHosts() {
    std::map<std::pair<std::string, int64_t>, double> written;
    for (int h = 0; h < kHosts; ++h) {
      std::vector<v1::Record> records;
      const std::string host = "h" + std::to_string(h);
      for (int p = 0; p < kPointsPerHost; ++p) {
        const int64_t time = now_ - 1000 * p;
        const double value = h * 10 + p;
        records.push_back(CpuRecord(host, time, value));
        written[{host, time}] = value;
      }
      v1::WriteRecordsResponse response;
      EXPECT_TRUE(Write(cluster_->node(h % kNodes), "cpu", records, &response).ok());
      EXPECT_EQ(response.rejected_records_size(), 0);
    }
    return written;
  }

  // The query's rows through `node`, retried while it fails UNAVAILABLE (a node holding a
  // shard it reads was lost and is still a member until its lease ends).
  QueryResult QueryThrough(int node, const std::string& sql) {
    const auto deadline = std::chrono::steady_clock::now() + seconds(30);
    while (true) {
      QueryResult result = RunQuery(cluster_->node(node).channel(), sql);
      if (result.status.error_code() != grpc::StatusCode::UNAVAILABLE ||
          std::chrono::steady_clock::now() > deadline) {
        return result;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
  }

  // The query's rows through `node`, as text (QueryThrough).
  std::string RowsThrough(int node, const std::string& sql) {
    return RowsText(QueryThrough(node, sql).rows);
  }

  std::unique_ptr<TestCluster> cluster_;
  int64_t now_ = 0;
};

TEST_F(ClusterPlacementTest, EveryShardOnThreeNodesAndEveryStatementThroughAnyNode) {
  // Each node holds the shards placed on it, no more: none holds all of them.
  for (int i = 0; i < kNodes; ++i) {
    std::map<uint32_t, TestCluster::ReplicaState> replicas = cluster_->Replicas(i);
    for (uint32_t shard = 0; shard < 8; ++shard) {
      const std::vector<int> placed = cluster_->PlacedOn(shard);
      const bool holds = std::find(placed.begin(), placed.end(), i) != placed.end();
      EXPECT_EQ(replicas.contains(shard), holds) << "node " << i << ", shard " << shard;
    }
    EXPECT_LT(replicas.size(), 8u);
  }
  const std::map<std::pair<std::string, int64_t>, double> written = WriteHosts();

  // Every row through every node; every aggregate alike, and as written.
  std::string per_host;
  for (int h = 0; h < kHosts; ++h)
    per_host += "h" + std::to_string(h) + "|4|" + std::to_string(h * 10 + 3) + "\n";
  std::sort(per_host.begin(), per_host.end());  // compared sorted: ORDER BY host is textual
  for (int i = 0; i < kNodes; ++i) {
    SCOPED_TRACE("through node " + std::to_string(i));
    EXPECT_EQ(ReadAll(cluster_->node(i), "cpu"), written);
    QueryResult grouped = QueryThrough(
        i,
        "SELECT host, count(*), CAST(max(measure_value::double) AS BIGINT) FROM demo.cpu "
        "GROUP BY host ORDER BY host");
    ASSERT_TRUE(grouped.status.ok()) << grouped.status.error_message();
    std::string text = RowsText(grouped.rows);
    std::sort(text.begin(), text.end());
    EXPECT_EQ(text, per_host);
    // Pushed into the fragments: a host, a time range, a value.
    QueryResult one = QueryThrough(
        i, "SELECT count(*) FROM demo.cpu WHERE host = 'h7' AND time > from_milliseconds(" +
               std::to_string(now_ - 2500) + ") AND measure_value::double >= 71");
    EXPECT_EQ(RowsText(one.rows), "2\n");
    QueryResult newest = QueryThrough(
        i,
        "SELECT host, measure_value::double FROM demo.cpu ORDER BY measure_value::double "
        "DESC LIMIT 2");
    EXPECT_EQ(RowsText(newest.rows), "h29|293\nh29|292\n");
    // ORDER BY ... LIMIT in the fragments (each sends its first LIMIT + OFFSET rows), with an
    // offset, an alias and an ordinal.
    EXPECT_EQ(RowsThrough(i,
                          "SELECT host, measure_value::double FROM demo.cpu ORDER BY "
                          "measure_value::double DESC LIMIT 2 OFFSET 3"),
              "h29|290\nh28|283\n");
    std::string oldest_h9;
    for (int p = 3; p >= 1; --p) {
      oldest_h9 += "h9|" + std::to_string((now_ - 1000 * p) * 1'000'000) + "\n";
    }
    EXPECT_EQ(RowsThrough(i,
                          "SELECT host AS h, time FROM demo.cpu ORDER BY h DESC, 2 "
                          "LIMIT 3"),
              oldest_h9);
    // Aggregates in the fragments, merged here: partial states of each kind, a computed key.
    EXPECT_EQ(RowsThrough(i,
                          "SELECT count(*), sum(measure_value::double), "
                          "min(measure_value::double), max(measure_value::double), "
                          "avg(measure_value::double) FROM demo.cpu"),
              "120|17580|0|293|146.5\n");
    // max, min and max_by with n have no partial state: the rows travel, and the answer is the
    // n best of all of them (not the first of each fragment's).
    EXPECT_EQ(RowsThrough(i,
                          "SELECT array_join(max(measure_value::double, 3), ','), "
                          "array_join(min(measure_value::double, 2), ','), "
                          "array_join(max_by(host, measure_value::double, 5), ',') FROM demo.cpu"),
              "293.0,292.0,291.0|0.0,1.0|h29,h29,h29,h29,h28\n");
    // Grouping sets over the fragments' partial states: the grand total merges every
    // shard's, though GROUP BY host alone is whole in each; DISTINCT's values likewise.
    EXPECT_EQ(RowsThrough(i,
                          "SELECT coalesce(host, 'all'), count(*), "
                          "CAST(sum(measure_value::double) AS BIGINT) FROM demo.cpu "
                          "GROUP BY ROLLUP (host) ORDER BY grouping(host) DESC, host LIMIT 2"),
              "all|120|17580\nh0|4|6\n");
    EXPECT_EQ(RowsThrough(i,
                          "SELECT coalesce(measure_name, 'all'), count(DISTINCT host) FROM "
                          "demo.cpu GROUP BY ROLLUP (measure_name) ORDER BY 1"),
              "all|30\ncpu|30\n");
    std::string by_host =
        RowsThrough(i,
                    "SELECT host, CAST(2 * avg(measure_value::double) AS BIGINT), "
                    "CAST(min_by(measure_value::double, time) AS BIGINT), count_if(time > "
                    "from_milliseconds(" +
                        std::to_string(now_ - 1500) + ")) FROM demo.cpu GROUP BY host");
    std::string expected_by_host;
    for (int h = 0; h < kHosts; ++h) {
      expected_by_host += "h" + std::to_string(h) + "|" + std::to_string(20 * h + 3) + "|" +
                          std::to_string(10 * h + 3) + "|2\n";
    }
    std::sort(by_host.begin(), by_host.end());
    std::sort(expected_by_host.begin(), expected_by_host.end());
    EXPECT_EQ(by_host, expected_by_host);
    EXPECT_EQ(RowsThrough(i,
                          "SELECT CAST(measure_value::double AS BIGINT) % 10 AS p, "
                          "count(*) FROM demo.cpu GROUP BY 1 HAVING count(*) > 0 "
                          "ORDER BY p"),
              "0|30\n1|30\n2|30\n3|30\n");
    // SELECT DISTINCT is grouped by its select list, in the fragments too.
    EXPECT_EQ(RowsThrough(i,
                          "SELECT DISTINCT CAST(measure_value::double AS BIGINT) % 10 FROM "
                          "demo.cpu ORDER BY 1 DESC"),
              "3\n2\n1\n0\n");
    EXPECT_EQ(RowsThrough(i,
                          "SELECT count(*) FROM (SELECT DISTINCT host, measure_name FROM "
                          "demo.cpu)"),
              "30\n");
    // Aggregates over the distinct values of a series' column (or an expression of them): the
    // fragments group by the value too, and count its rows for a percentile. A third of the
    // rows have a host name of length 2 (h0..h9), the rest 3: unweighted, each fragment's two
    // values would put the 35th percentile at 2.
    EXPECT_EQ(RowsThrough(i, "SELECT count(DISTINCT host), approx_distinct(host) FROM demo.cpu"),
              "30|30\n");
    EXPECT_EQ(RowsThrough(i,
                          "SELECT approx_percentile(length(host), 0.35), "
                          "approx_percentile(length(host), 0.1), count(DISTINCT length(host)), "
                          "approx_distinct(length(host)), sum(measure_value::double) FROM "
                          "demo.cpu"),
              "3|2|2|2|17580\n");
    EXPECT_EQ(RowsThrough(i,
                          "SELECT measure_value::double >= 150, approx_percentile(length(host), "
                          "0.35), approx_percentile(DISTINCT length(host), 0.7), count(DISTINCT "
                          "length(host)), count(*) FROM demo.cpu GROUP BY 1 ORDER BY 1"),
              "false|2|3|2|60\ntrue|3|3|1|60\n");
    // Over a measure's values (about as many as the rows), and what has no merge, or a
    // condition the fragments cannot apply: the rows travel.
    EXPECT_EQ(RowsThrough(i,
                          "SELECT approx_percentile(measure_value::double, 0.5), "
                          "approx_distinct(measure_value::double), count(DISTINCT "
                          "measure_value::double), sum(measure_value::double) FROM demo.cpu"),
              "150|120|120|17580\n");
    EXPECT_EQ(RowsThrough(i,
                          "SELECT count(DISTINCT host), approx_percentile(measure_value::double, "
                          "0.5) FROM demo.cpu"),
              "30|150\n");
    EXPECT_EQ(RowsThrough(i,
                          "SELECT count(*) FROM demo.cpu WHERE regexp_like(host, "
                          "'^h1')"),
              std::to_string(11 * kPointsPerHost) + "\n");
    // A join reads the table twice, each side as fragments.
    QueryResult joined =
        QueryThrough(i,
                     "SELECT count(*) FROM demo.cpu a JOIN demo.cpu b ON a.host = b.host AND "
                     "a.time = b.time WHERE a.host LIKE 'h1%'");
    ASSERT_TRUE(joined.status.ok()) << joined.status.error_message();
    EXPECT_EQ(RowsText(joined.rows), std::to_string(11 * kPointsPerHost) + "\n");
    // A correlated subquery names the outer table's columns: every column travels.
    QueryResult correlated =
        QueryThrough(i,
                     "SELECT count(*) FROM demo.cpu a WHERE measure_value::double = (SELECT "
                     "max(measure_value::double) FROM demo.cpu b WHERE b.host = a.host)");
    ASSERT_TRUE(correlated.status.ok()) << correlated.status.error_message();
    EXPECT_EQ(RowsText(correlated.rows), std::to_string(kHosts) + "\n");
  }
  // An IN subquery's 50,000 answers are more than a fragment's statement may carry (256 KiB
  // of SQL on the node that runs it; they failed the query): the coordinator applies them to
  // the rows the fragments send, with the same answer.
  const std::string answers =
      "SELECT 'h' || CAST(a * 10000 + b AS varchar) FROM UNNEST(sequence(0, 4)) AS s(a) CROSS "
      "JOIN UNNEST(sequence(0, 9999)) AS t(b)";
  const std::string long_in =
      "SELECT count(DISTINCT host) FROM demo.cpu WHERE host IN (" + answers + ")";
  QueryResult long_list = QueryThrough(1, long_in);
  ASSERT_TRUE(long_list.status.ok()) << long_list.status.error_message();
  EXPECT_EQ(RowsText(long_list.rows), std::to_string(kHosts) + "\n");
  // Such a list goes beside the fragments' statements as a named value (`@list_1`), and each
  // fragment applies it (the coordinator had, to every row the fragments sent).
  EXPECT_THAT(RowsThrough(1, "EXPLAIN " + long_in),
              ::testing::HasSubstr("(\"host\" = ANY(@list_1))"));
  // NOT IN as <> ALL: the hosts past the list's end, h0 to h4 (the answers start at h5).
  const std::string later =
      "SELECT 'h' || CAST(a * 10000 + b + 5 AS varchar) FROM UNNEST(sequence(0, 4)) AS s(a) "
      "CROSS JOIN UNNEST(sequence(0, 9999)) AS t(b)";
  EXPECT_EQ(RowsThrough(1,
                        "SELECT count(*), count(DISTINCT host) FROM demo.cpu WHERE host NOT "
                        "IN (" +
                            later + ")"),
            RowsThrough(1,
                        "SELECT count(*), count(DISTINCT host) FROM demo.cpu WHERE host IN "
                        "('h0', 'h1', 'h2', 'h3', 'h4')"));
  // EXPLAIN names where each shard is read, and what the fragments compute.
  const std::string aggregated =
      RowsThrough(0, "EXPLAIN SELECT host, avg(measure_value::double) FROM demo.cpu GROUP BY host");
  // (a DOUBLE's sum as it is, which block headers answer).
  EXPECT_NE(aggregated.find("SELECT \"host\" AS \"_p0\", sum(\"measure_value::double\") AS "
                            "\"_p1\", count(\"measure_value::double\") AS \"_p2\" "
                            "FROM \"demo\".\"cpu\" GROUP BY 1"),
            std::string::npos)
      << aggregated;
  const std::string percentile =
      RowsThrough(0,
                  "EXPLAIN SELECT measure_name, approx_percentile(length(host), 0.9) FROM "
                  "demo.cpu GROUP BY 1");
  EXPECT_NE(percentile.find("SELECT \"measure_name\" AS \"_p0\", length(\"host\") AS \"_p1\", "
                            "count(length(\"host\")) AS \"_p2\" FROM \"demo\".\"cpu\" "
                            "GROUP BY 1, 2"),
            std::string::npos)
      << percentile;
  const std::string top = RowsThrough(
      0, "EXPLAIN SELECT host FROM demo.cpu ORDER BY measure_value::double DESC LIMIT 2");
  EXPECT_NE(top.find("SELECT \"host\", \"measure_value::double\" FROM \"demo\".\"cpu\" ORDER BY "
                     "\"measure_value::double\" DESC NULLS LAST LIMIT 2"),
            std::string::npos)
      << top;
  // Through a node leading a shard (a node that started late may lead none): that shard
  // is read on the node itself.
  int leading = 0;
  for (const std::string& leader : cluster_->Leaders()) {
    if (!leader.empty()) leading = TestCluster::IndexOf(leader);
  }
  QueryResult plan =
      QueryThrough(leading, "EXPLAIN SELECT host FROM demo.cpu WHERE host = 'h1'");
  ASSERT_TRUE(plan.status.ok()) << plan.status.error_message();
  const std::string explained = RowsText(plan.rows);
  EXPECT_NE(explained.find("ShardFragments \"demo\".\"cpu\""), std::string::npos) << explained;
  EXPECT_NE(explained.find("on this node"), std::string::npos) << explained;
  // Only the column the statement reads travels, and the condition is applied where it runs.
  EXPECT_NE(explained.find("SELECT \"host\" FROM \"demo\".\"cpu\" WHERE (\"host\" = 'h1')"),
            std::string::npos)
      << explained;

  // Measures, and a measure type, that some shards hold only: DESCRIBE and SHOW MEASURES
  // through every node name them all.
  std::vector<v1::Record> other_measures;
  for (int m = 0; m < 12; ++m) {
    v1::Record r = CpuRecord("x", now_, m);
    r.set_measure_name("m" + std::to_string(m));
    if (m == 5) r.mutable_measure_value()->set_bigint_value(5);
    other_measures.push_back(std::move(r));
  }
  v1::WriteRecordsResponse wrote;
  ASSERT_TRUE(Write(cluster_->node(0), "cpu", other_measures, &wrote).ok());
  const std::string described =
      "host|varchar|DIMENSION\nmeasure_name|varchar|MEASURE_NAME\ntime|timestamp|TIMESTAMP\n"
      "measure_value::double|double|MEASURE_VALUE\nmeasure_value::bigint|bigint|MEASURE_VALUE\n";
  std::string measures = "cpu|double|[{dimension_name: host, data_type: varchar}]\n";
  for (const char* m : {"m0", "m1", "m10", "m11", "m2", "m3", "m4", "m5", "m6", "m7", "m8", "m9"}) {
    measures += std::string(m) + (std::string(m) == "m5" ? "|bigint" : "|double") +
                "|[{dimension_name: host, data_type: varchar}]\n";
  }
  for (int i = 0; i < kNodes; ++i) {
    SCOPED_TRACE("through node " + std::to_string(i));
    EXPECT_EQ(RowsThrough(i, "DESCRIBE demo.cpu"), described);
    EXPECT_EQ(RowsThrough(i, "SHOW MEASURES FROM demo.cpu"), measures);
    // A column some nodes' shards lack reads as NULL there: in a condition, a key, an
    // aggregate (regression: the fragments named it and those nodes refused the statement).
    EXPECT_EQ(RowsThrough(i,
                          "SELECT measure_name FROM demo.cpu WHERE "
                          "measure_value::bigint = 5"),
              "m5\n");
    EXPECT_EQ(RowsThrough(i,
                          "SELECT max(measure_value::bigint), count(*) FROM demo.cpu "
                          "WHERE measure_name LIKE 'm%' AND measure_value::bigint IS "
                          "NULL"),
              "NULL|11\n");
    EXPECT_EQ(RowsThrough(i,
                          "SELECT measure_value::bigint, count(*) FROM demo.cpu WHERE "
                          "measure_name LIKE 'm%' GROUP BY 1 ORDER BY 1"),
              "5|1\nNULL|11\n");
    // information_schema.columns lists every shard's columns, as DESCRIBE does.
    EXPECT_EQ(RowsThrough(i,
                          "SELECT column_name FROM information_schema.columns WHERE "
                          "table_schema = 'demo' AND table_name = 'cpu' ORDER BY "
                          "ordinal_position"),
              "host\nmeasure_name\ntime\nmeasure_value::double\nmeasure_value::bigint\n");
    EXPECT_EQ(RowsThrough(i, "SHOW MEASURES FROM demo.cpu LIKE 'm1%'"),
              "m1|double|[{dimension_name: host, data_type: varchar}]\n"
              "m10|double|[{dimension_name: host, data_type: varchar}]\n"
              "m11|double|[{dimension_name: host, data_type: varchar}]\n");
  }

  // One type per name across shards: pairs of writes racing through two nodes, each naming
  // a new measure in another type for a host of its own (in another shard, mostly). The first
  // to claim the name wins; the other record is rejected saying so, whichever shards and
  // nodes they went through, and every node describes the name alike.
  constexpr int kRaces = 10;
  std::vector<int> rejected(2 * kRaces, -1);
  for (int k = 0; k < kRaces; ++k) {
    const std::string measure = "race" + std::to_string(k);
    auto racer = [&, k, measure](int side) {
      v1::Record r = CpuRecord((side == 0 ? "ra" : "rb") + std::to_string(k), now_, 1);
      r.set_measure_name(measure);
      if (side == 1) r.mutable_measure_value()->set_bigint_value(1);
      v1::WriteRecordsResponse response;
      const grpc::Status status =
          Write(cluster_->node((k + 2 * side) % kNodes), "cpu", {r}, &response);
      EXPECT_TRUE(status.ok()) << status.error_message();
      rejected[2 * k + side] = response.rejected_records_size();
      if (response.rejected_records_size() == 1) {
        EXPECT_NE(response.rejected_records(0).reason().find("measure \"" + measure + "\" holds"),
                  std::string::npos)
            << response.rejected_records(0).reason();
      }
    };
    std::thread a(racer, 0), b(racer, 1);
    a.join();
    b.join();
    EXPECT_EQ(rejected[2 * k] + rejected[2 * k + 1], 1) << measure;
  }
  std::string raced;
  for (int i = 0; i < kNodes; ++i) {
    SCOPED_TRACE("through node " + std::to_string(i));
    const std::string shown = RowsThrough(i, "SHOW MEASURES FROM demo.cpu LIKE 'race%'");
    EXPECT_EQ(std::count(shown.begin(), shown.end(), '\n'), kRaces) << shown;
    if (i == 0) raced = shown;
    EXPECT_EQ(shown, raced);
    EXPECT_EQ(RowsThrough(i, "SELECT count(*) FROM demo.cpu WHERE measure_name LIKE 'race%'"),
              std::to_string(kRaces) + "\n");
  }

  // A record naming more new attributes than etcd takes operations in one transaction (128):
  // its claims go in parts (regression: the write failed with etcd's error).
  v1::Record wide = CpuRecord("wide", now_, 0);
  wide.clear_measure_value();
  wide.set_measure_name("wide");
  wide.set_measure_value_type(v1::MEASURE_VALUE_TYPE_MULTI);
  for (int a = 0; a < 200; ++a) {
    auto* attribute = wide.add_measure_values();
    attribute->set_name("a" + std::to_string(a));
    attribute->set_type(v1::MEASURE_VALUE_TYPE_DOUBLE);
    attribute->mutable_value()->set_double_value(a);
  }
  v1::WriteRecordsResponse wide_written;
  const grpc::Status wide_status = Write(cluster_->node(1), "cpu", {wide}, &wide_written);
  ASSERT_TRUE(wide_status.ok()) << wide_status.error_message();
  EXPECT_EQ(wide_written.rejected_records_size(), 0);
  EXPECT_EQ(RowsThrough(3, "SELECT a199 FROM demo.cpu WHERE measure_name = 'wide'"), "199\n");

  // The internal Scan runs reads only: a member asking for a DELETE there is refused (it
  // would change one replica outside its shard's log).
  {
    auto stub = internal::v1::ShardService::NewStub(cluster_->node(1).channel());
    grpc::ClientContext context;
    context.AddMetadata("x-strata-cluster-secret", cluster_->secret());
    internal::v1::ScanRequest request;
    request.set_sql("DELETE FROM demo.cpu WHERE host = 'h9'");
    auto reader = stub->Scan(&context, request);
    internal::v1::ScanResponse page;
    while (reader->Read(&page)) {
    }
    const grpc::Status refused = reader->Finish();
    EXPECT_EQ(refused.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << refused.error_message();
    EXPECT_EQ(RowsThrough(3, "SELECT count(*) FROM demo.cpu WHERE host = 'h9'"),
              std::to_string(kPointsPerHost) + "\n");
  }

  // DELETE through a node reaches the shards it does not hold.
  QueryResult deleted =
      QueryThrough(2, "DELETE FROM demo.cpu WHERE host IN ('h0', 'h1', 'h2', 'h3', 'h4')");
  ASSERT_TRUE(deleted.status.ok()) << deleted.status.error_message();
  EXPECT_EQ(RowsText(deleted.rows), std::to_string(5 * kPointsPerHost) + "\n");
  EXPECT_EQ(RowsThrough(4, "SELECT count(*) FROM demo.cpu WHERE measure_name = 'cpu'"),
            std::to_string((kHosts - 5) * kPointsPerHost) + "\n");
  EXPECT_EQ(cluster_->CompareReplicas({0, 1, 2, 3, 4}, seconds(30)), "");
}

// One replica of each shard's data (--cluster-shard-replicas 1, a cluster that spreads its
// data rather than copying it): each shard on one of three nodes, every row written through
// any node read through every node.
TEST(ClusterOneReplicaTest, EachShardOnOneNodeAndEveryRowReadThroughAnyNode) {
  REQUIRE_CLUSTER_SERVERS();
  TestCluster cluster(
      TestCluster::Options{.nodes = 3, .shards = 4, .placement = true, .shard_replicas = 1});
  ASSERT_TRUE(cluster.Start()) << cluster.error();
  ASSERT_TRUE(CreateDatabase(cluster.node(0).channel(), "demo").ok());
  ASSERT_TRUE(CreateTable(cluster.node(1), "cpu").ok());
  const int64_t now = NowMillis();
  for (int n = 0; n < 3; ++n) {
    v1::WriteRecordsResponse response;
    ASSERT_TRUE(Write(cluster.node(n), "cpu", HostRecords(20, now - n * 1000), &response).ok());
    EXPECT_EQ(response.rejected_records_size(), 0);
  }
  for (int n = 0; n < 3; ++n) EXPECT_EQ(ReadAll(cluster.node(n), "cpu").size(), 60u) << n;
  QueryResult replicas =
      RunQuery(cluster.node(2).channel(),
               "SELECT shard, count(*) FROM system.cluster_shards GROUP BY shard ORDER BY shard");
  ASSERT_TRUE(replicas.status.ok()) << replicas.status.error_message();
  EXPECT_EQ(RowsText(replicas.rows), "0|1\n1|1\n2|1\n3|1\n");
}

TEST_F(ClusterPlacementTest, ALostNodeLeavesEveryShardReadableAndWritable) {
  std::map<std::pair<std::string, int64_t>, double> written = WriteHosts();
  cluster_->node(1).Kill9();
  // Reads through the others at once, without a retry (node 1 is still a member until its
  // lease ends): the shards node 1 held come from their other replicas.
  for (int i : {0, 2, 3, 4}) {
    QueryResult count = RunQuery(cluster_->node(i).channel(), "SELECT count(*) FROM demo.cpu");
    ASSERT_TRUE(count.status.ok()) << count.status.error_message();
    EXPECT_EQ(RowsText(count.rows), std::to_string(kHosts * kPointsPerHost) + "\n");
  }
  // Writes to every shard go on, through the new leaders of node 1's shards.
  std::vector<v1::Record> more;
  for (int h = 0; h < kHosts; ++h) {
    const std::string host = "h" + std::to_string(h);
    more.push_back(CpuRecord(host, now_ + 1000, 1000 + h));
    written[{host, now_ + 1000}] = 1000 + h;
  }
  v1::WriteRecordsResponse response;
  grpc::Status wrote = Write(cluster_->node(3), "cpu", more, &response);
  ASSERT_TRUE(wrote.ok()) << wrote.error_message();
  EXPECT_EQ(response.rejected_records_size(), 0);
  EXPECT_EQ(RowsThrough(0, "SELECT count(*) FROM demo.cpu"),
            std::to_string(kHosts * (kPointsPerHost + 1)) + "\n");
  EXPECT_EQ(ReadAll(cluster_->node(4), "cpu"), written);
  EXPECT_EQ(cluster_->CompareReplicas({0, 2, 3, 4}, seconds(30)), "");
}

}  // namespace
}  // namespace strata::testing
