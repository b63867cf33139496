// Read choices through a cluster node (docs/cluster.md, "Read choices"), on three nodes
// holding every shard, one of them (n2) applying each log entry 1.5 s late (and leading none,
// so that no write waits for it): leader reads see
// every acknowledged write at once through any node, a strong read waits for the node's own
// replicas, a follower read answers from a lagging replica within its bound and catches up
// past it, and a hedged fragment is answered by another node while its first node is stopped.
#include <signal.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <map>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "query/base/read_choice.h"
#include "strata/internal/v1/shard.grpc.pb.h"
#include "strata/v1/query.grpc.pb.h"
#include "tests/cluster/cluster_harness.h"
#include "tests/cluster/cluster_helpers.h"
#include "tests/support/query_helpers.h"
#include "tests/support/write_helpers.h"
#include "xxhash.h"

namespace strata::testing {
namespace {

constexpr int kLagging = 2;  // the node whose replicas apply late
constexpr int kHosts = 40;   // one record each per write: spread over every shard

// Hosts whose partition-key hash puts them on `shard` of `shards`, a power of two (the hash's
// top bits: storage/read/table_state.h ShardOf), named h<i>.
std::vector<std::string> HostsOnShard(uint32_t shard, int count, uint32_t shards = 8) {
  std::vector<std::string> hosts;
  const int bits = std::countr_zero(shards);
  for (int i = 0; static_cast<int>(hosts.size()) < count; ++i) {
    const std::string host = "h" + std::to_string(i);
    if (XXH3_64bits(host.data(), host.size()) >> (64 - bits) == shard) hosts.push_back(host);
  }
  return hosts;
}

class ClusterReadChoiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    REQUIRE_CLUSTER_SERVERS();
    cluster_ = std::make_unique<TestCluster>(TestCluster::Options{
        .nodes = 3,
        .shards = 4,
        .lease_seconds = 10,  // the hedging test's window: a stopped leader still leads
        .flags_of_node = {{kLagging, lagging_flags_}}});
    ASSERT_TRUE(cluster_->Start()) << cluster_->error();
    ASSERT_TRUE(CreateDatabase(cluster_->node(0).channel(), "demo").ok());
    ASSERT_TRUE(CreateTable(cluster_->node(0), "cpu").ok());
  }

  // count(*) of demo.cpu through `node` under `read`.
  QueryResult Count(int node, const v1::ReadOptions& read, int64_t timeout_millis = 0) {
    v1::QueryRequest request;
    request.set_query_string("SELECT count(*) FROM demo.cpu");
    *request.mutable_read() = read;
    request.set_timeout_millis(timeout_millis);
    return RunQueryRequest(cluster_->node(node).channel(), request);
  }
  static v1::ReadOptions Choice(v1::ReadConsistency consistency, int64_t max_staleness = 0,
                                int64_t hedge_after = 0) {
    v1::ReadOptions read;
    read.set_consistency(consistency);
    read.set_max_staleness_millis(max_staleness);
    read.set_hedge_after_millis(hedge_after);
    return read;
  }
  // Writes one record for each of kHosts hosts at `time` through node 0.
  void WriteHosts(int64_t time) {
    v1::WriteRecordsResponse response;
    ASSERT_TRUE(Write(cluster_->node(0), "cpu", HostRecords(kHosts, time), &response).ok());
    ASSERT_EQ(response.rejected_records_size(), 0);
  }
  // The rows of `sql` as text, through the node leading no shard under `consistency` (in a
  // ClusterFanOutTest, a leader read there always fans out).
  std::string LaggingRows(const std::string& sql, v1::ReadConsistency consistency) {
    v1::QueryRequest request;
    request.set_query_string(sql);
    *request.mutable_read() = Choice(consistency);
    QueryResult result = RunQueryRequest(cluster_->node(kLagging).channel(), request);
    EXPECT_TRUE(result.status.ok()) << sql << ": " << result.status.error_message();
    return RowsText(result.rows);
  }
  std::string Explain(int node, v1::ReadConsistency consistency) {
    v1::QueryRequest request;
    request.set_query_string("EXPLAIN SELECT count(*) FROM demo.cpu");
    *request.mutable_read() = Choice(consistency);
    return RowsText(RunQueryRequest(cluster_->node(node).channel(), request).rows);
  }

  std::vector<std::string> lagging_flags_ = {"--testing-apply-delay-ms", "1500"};
  std::unique_ptr<TestCluster> cluster_;
};

// The same cluster, its lagging node (leading no shard) never reading a leader read on its own
// replicas however little the statement scanned before (docs/cluster.md, "A small leader
// read"): leader reads and their EXPLAINs through it always fan out to the shards' leaders.
class ClusterFanOutTest : public ClusterReadChoiceTest {
 protected:
  ClusterFanOutTest() { lagging_flags_.insert(lagging_flags_.end(), {"--small-read-rows", "0"}); }
};

TEST_F(ClusterFanOutTest, EachChoiceReadsWhatItPromises) {
  const int64_t now = NowMillis();
  const auto kFollowerLong = Choice(v1::READ_CONSISTENCY_FOLLOWER, 600'000);
  // The lagging node catches up once; a follower read within ten minutes then needs no wait.
  QueryResult first = Count(kLagging, kFollowerLong);
  ASSERT_TRUE(first.status.ok()) << first.status.error_message();
  EXPECT_EQ(RowsText(first.rows), "0\n");

  WriteHosts(now);
  // Its replicas apply the write 1.5 s after the leaders: not read yet.
  QueryResult stale = Count(kLagging, kFollowerLong);
  ASSERT_TRUE(stale.status.ok()) << stale.status.error_message();
  EXPECT_EQ(RowsText(stale.rows), "0\n") << "a replica 1.5 s behind read the write";
  // Leader reads (the default) read each shard at its leader: all of it, at once.
  QueryResult led = Count(kLagging, v1::ReadOptions());
  ASSERT_TRUE(led.status.ok()) << led.status.error_message();
  EXPECT_EQ(RowsText(led.rows), std::to_string(kHosts) + "\n");
  // A follower read bounded below the lag catches up first.
  QueryResult bounded = Count(kLagging, Choice(v1::READ_CONSISTENCY_FOLLOWER, 1));
  ASSERT_TRUE(bounded.status.ok()) << bounded.status.error_message();
  EXPECT_EQ(RowsText(bounded.rows), std::to_string(kHosts) + "\n");

  WriteHosts(now + 1000);
  // A strong read waits for the node's own replicas to apply their logs to the end.
  QueryResult strong = Count(kLagging, Choice(v1::READ_CONSISTENCY_STRONG));
  ASSERT_TRUE(strong.status.ok()) << strong.status.error_message();
  EXPECT_EQ(RowsText(strong.rows), std::to_string(2 * kHosts) + "\n");

  // The fragments' scans count in the query's statistics as a node's own would.
  QueryResult fanned = Count(0, Choice(v1::READ_CONSISTENCY_LEADER));
  QueryResult local = Count(0, Choice(v1::READ_CONSISTENCY_STRONG));
  ASSERT_TRUE(fanned.status.ok() && local.status.ok());
  EXPECT_EQ(fanned.statistics.rows_scanned(), 2 * kHosts);
  EXPECT_EQ(local.statistics.rows_scanned(), 2 * kHosts);
  EXPECT_EQ(fanned.statistics.series_scanned(), local.statistics.series_scanned());

  // A strong read runs on the node's own replicas; a leader read through a node leading no
  // shard fans out to the shards' leaders.
  EXPECT_EQ(Explain(kLagging, v1::READ_CONSISTENCY_STRONG).find("ShardFragments"),
            std::string::npos);
  EXPECT_NE(Explain(kLagging, v1::READ_CONSISTENCY_LEADER).find("ShardFragments"),
            std::string::npos);
}

TEST_F(ClusterReadChoiceTest, HedgedFragmentIsAnsweredWhileItsNodeIsStopped) {
  WriteHosts(NowMillis());
  for (int i = 0; i < 3; ++i) {  // every replica current
    ASSERT_TRUE(Count(i, Choice(v1::READ_CONSISTENCY_STRONG)).status.ok());
  }
  // The query goes through the lagging node, which never leads, to the leader of shard 0 as
  // that node sees it; its view of the leaders (an etcd watch) must be etcd's, or the node
  // stopped below might not be the one the query waits on.
  const int coordinator = kLagging;
  using ByShard = std::map<int64_t, std::string>;
  ByShard in_etcd;
  const std::vector<std::string> leaders = cluster_->Leaders();
  for (size_t shard = 0; shard < leaders.size(); ++shard) in_etcd[shard] = leaders[shard];
  ASSERT_EQ(Eventually<ByShard>([&] { return ShardColumn(cluster_->node(coordinator), "leader"); },
                                in_etcd),
            in_etcd);
  ASSERT_FALSE(in_etcd[0].empty());
  const int victim = TestCluster::IndexOf(in_etcd[0]);
  ASSERT_NE(victim, coordinator);
  // It keeps its leaderships while its lease lasts: 10 s after its last keep-alive, sent at
  // most 3.4 s before.
  kill(cluster_->node(victim).pid(), SIGSTOP);
  // Without hedging the fragment waits on the stopped leader until the query's deadline.
  QueryResult waited = Count(coordinator, v1::ReadOptions(), 1500);
  EXPECT_FALSE(waited.status.ok())
      << "answered while shard 0's leader n" << victim << " was stopped: " << RowsText(waited.rows);
  // Hedged after 200 ms, the third node answers for it well within a deadline that the
  // stopped leader would have run out (as above).
  QueryResult hedged =
      Count(coordinator, Choice(v1::READ_CONSISTENCY_LEADER, 0, 200), /*timeout_millis=*/4000);
  kill(cluster_->node(victim).pid(), SIGCONT);
  ASSERT_TRUE(hedged.status.ok()) << hedged.status.error_message();
  EXPECT_EQ(RowsText(hedged.rows), std::to_string(kHosts) + "\n");
}

// A strong read learns where each shard's log ends from the shard's leader (what it applied:
// every write it acknowledged), asking the leading nodes at once; a leader that does not
// answer within half a second has its shards' ends asked of NATS instead, and the read still
// holds every acknowledged write.
TEST_F(ClusterReadChoiceTest, StrongReadAsksNatsForTheShardsOfALeaderThatDoesNotAnswer) {
  WriteHosts(NowMillis());
  const std::string victim_id = cluster_->Leaders().at(0);
  ASSERT_FALSE(victim_id.empty());
  const int victim = TestCluster::IndexOf(victim_id);
  ASSERT_NE(victim, kLagging);
  // Stopped, it keeps its leaderships while its lease lasts (10 s), so it is asked, and
  // does not answer. The lagging node applies the write 1.5 s late.
  kill(cluster_->node(victim).pid(), SIGSTOP);
  QueryResult strong = Count(kLagging, Choice(v1::READ_CONSISTENCY_STRONG), 8000);
  kill(cluster_->node(victim).pid(), SIGCONT);
  // Without the victim's shards' ends the lagging replicas would be read as they are, the
  // write not applied there yet.
  ASSERT_TRUE(strong.status.ok()) << strong.status.error_message();
  EXPECT_EQ(RowsText(strong.rows), std::to_string(kHosts) + "\n");
}

// A table partitioned by host: a condition pinning host reads the shards its values hash to,
// at the nodes leading them, and no others (EXPLAIN says how many it left out). Through the
// node leading no shard, so that leader reads always fan out.
TEST_F(ClusterFanOutTest, AConditionOnThePartitionKeyReadsItsShardsOnly) {
  ASSERT_TRUE(CreateTable(cluster_->node(0), "keyed", "host").ok());
  v1::WriteRecordsResponse response;
  ASSERT_TRUE(Write(cluster_->node(0), "keyed", HostRecords(kHosts, NowMillis()), &response).ok());
  const std::vector<std::string> queries = {
      "SELECT host, measure_value::double FROM demo.keyed WHERE host = 'h7'",
      "SELECT host, count(*) FROM demo.keyed WHERE host IN ('h1', 'h2', 'h30') GROUP BY host "
      "ORDER BY host",
      "SELECT count(*) FROM demo.keyed WHERE host = 'h1' AND host = 'h2'",
      "SELECT count(*) FROM demo.keyed WHERE 'h3' = host AND measure_value::double > 1",
  };
  const std::vector<std::string> expected = {"h7|7\n", "h1|1\nh2|1\nh30|1\n", "0\n", "1\n"};
  for (size_t i = 0; i < queries.size(); ++i) {
    // Leader reads fan out (and prune); strong reads read the node's own replicas whole.
    EXPECT_EQ(LaggingRows(queries[i], v1::READ_CONSISTENCY_LEADER), expected[i]) << queries[i];
    EXPECT_EQ(LaggingRows(queries[i], v1::READ_CONSISTENCY_STRONG), expected[i]) << queries[i];
  }
  const std::string plan = LaggingRows("EXPLAIN " + queries[0], v1::READ_CONSISTENCY_LEADER);
  EXPECT_NE(plan.find("3 shards pruned by the partition key"), std::string::npos) << plan;
  // Without a condition on it, every shard is read.
  const std::string whole =
      LaggingRows("EXPLAIN SELECT count(*) FROM demo.keyed WHERE measure_value::double > 1",
                  v1::READ_CONSISTENCY_LEADER);
  EXPECT_EQ(whole.find("pruned"), std::string::npos) << whole;
}

// Grouped by the table's DIMENSION partition key, each group's rows are in one shard: the
// fragments compute the aggregates themselves (any aggregate, exact, with no merge here), and
// the answers equal those of the node's own replicas read whole (strong reads). Through the
// node leading no shard, so that leader reads always fan out.
TEST_F(ClusterFanOutTest, GroupsOfThePartitionKeyAreAggregatedWholeInTheirFragments) {
  ASSERT_TRUE(CreateTable(cluster_->node(0), "keyed", "host").ok());
  const int64_t start = NowMillis() - 60'000;
  for (int p = 0; p < 5; ++p) {
    std::vector<v1::Record> records;
    for (int h = 0; h < kHosts; ++h) {
      records.push_back(CpuRecord("h" + std::to_string(h), start + p * 1000, h + (p * p) % 3));
    }
    v1::WriteRecordsResponse response;
    ASSERT_TRUE(Write(cluster_->node(0), "keyed", records, &response).ok());
    ASSERT_EQ(response.rejected_records_size(), 0);
  }
  const std::string kValue = "measure_value::double";
  const std::vector<std::string> whole = {
      // approx_percentile, count(DISTINCT) and stddev over a measure have no partial state
      // that merges: before, their rows travelled.
      "SELECT host, count(*), avg(" + kValue + "), approx_percentile(" + kValue + ", 0.5), " +
          "count(DISTINCT " + kValue + "), stddev(" + kValue + "), max_by(" + kValue +
          ", time) FROM demo.keyed GROUP BY host ORDER BY host",
      "SELECT bin(time, 2s) AS b, host, min(" + kValue + ") FROM demo.keyed WHERE " + kValue +
          " > 3 GROUP BY 1, 2 ORDER BY 2, 1",
      "SELECT host, sum(" + kValue + ") AS total FROM demo.keyed GROUP BY host HAVING " +
          "count(*) = 5 ORDER BY total DESC, host LIMIT 4",
      "SELECT host, count(*) FROM demo.keyed GROUP BY host ORDER BY host LIMIT 3",
      // Ordered by an aggregate: each fragment sends its first groups only (below).
      "SELECT host, max(" + kValue + ") AS top FROM demo.keyed GROUP BY host ORDER BY top DESC, " +
          "host LIMIT 3",
  };
  for (const std::string& sql : whole) {
    const std::string fanned = LaggingRows(sql, v1::READ_CONSISTENCY_LEADER);
    EXPECT_EQ(fanned, LaggingRows(sql, v1::READ_CONSISTENCY_STRONG)) << sql;
    EXPECT_NE(fanned, "") << sql;
    const std::string plan = LaggingRows("EXPLAIN " + sql, v1::READ_CONSISTENCY_LEADER);
    EXPECT_EQ(plan.find("HashAggregate"), std::string::npos) << sql << "\n" << plan;
    EXPECT_NE(plan.find("ShardFragments"), std::string::npos) << sql << "\n" << plan;
  }
  const std::string plan = LaggingRows("EXPLAIN " + whole[0], v1::READ_CONSISTENCY_LEADER);
  EXPECT_NE(plan.find("approx_percentile(\"measure_value::double\", (0.5))"), std::string::npos)
      << plan;
  const std::string top = LaggingRows("EXPLAIN " + whole.back(), v1::READ_CONSISTENCY_LEADER);
  EXPECT_NE(top.find("GROUP BY 1 ORDER BY 2 DESC NULLS LAST, 1 ASC NULLS LAST LIMIT 3"),
            std::string::npos)
      << top;
  // Groups not fixed by the key (or no groups) span shards: merged here from partial states.
  // An order by an aggregate cuts nothing then: a group's part in one fragment is not its whole.
  for (const std::string& sql :
       {"SELECT count(*), avg(" + kValue + ") FROM demo.keyed",
        "SELECT measure_name, max(" + kValue + ") FROM demo.keyed GROUP BY measure_name",
        "SELECT bin(time, 1s), max(" + kValue + ") AS top FROM demo.keyed GROUP BY 1 ORDER BY " +
            "top DESC LIMIT 2",
        // Grouping sets: the grand total spans every shard, though each host's group does not.
        "SELECT host, count(*), sum(" + kValue + ") FROM demo.keyed GROUP BY ROLLUP (host) " +
            "ORDER BY host"}) {
    EXPECT_EQ(LaggingRows(sql, v1::READ_CONSISTENCY_LEADER),
              LaggingRows(sql, v1::READ_CONSISTENCY_STRONG))
        << sql;
    const std::string merged = LaggingRows("EXPLAIN " + sql, v1::READ_CONSISTENCY_LEADER);
    EXPECT_NE(merged.find("HashAggregate"), std::string::npos) << sql << "\n" << merged;
    EXPECT_EQ(merged.find("LIMIT"), std::string::npos) << sql << "\n" << merged;
  }
}

// A node remembers the other nodes' columns of a table between queries (a query is then one
// round trip to each); a column that appeared there since is read all the same: one the
// remembered columns lack (the plan fails to find it and is made again with columns asked
// anew, else it would fail as long as they are remembered), and SELECT * showing a new one
// (each fragment's node finds its columns changed and the query is planned again). Through
// the node leading no shard, so that every fragment is remote.
TEST_F(ClusterFanOutTest, ColumnsNewAtOtherNodesAreReadThoughTheirColumnsAreRemembered) {
  const int64_t now = NowMillis();
  WriteHosts(now);
  auto rows = [&](const std::string& sql) {
    QueryResult result = RunQuery(cluster_->node(kLagging).channel(), sql);
    EXPECT_TRUE(result.status.ok()) << sql << ": " << result.status.error_message();
    return RowsText(result.rows);
  };
  // Writes kHosts records (or host h1's only) with dimension `name` at `time`.
  auto write_with = [&](const std::string& name, int64_t time, bool all_hosts) {
    std::vector<v1::Record> records = HostRecords(all_hosts ? kHosts : 2, time);
    if (!all_hosts) records.erase(records.begin());
    for (v1::Record& r : records) {
      auto* d = r.add_dimensions();
      d->set_name(name);
      d->set_value("v");
    }
    v1::WriteRecordsResponse response;
    ASSERT_TRUE(Write(cluster_->node(0), "cpu", records, &response).ok());
    ASSERT_EQ(response.rejected_records_size(), 0);
  };
  EXPECT_EQ(rows("SELECT count(*) FROM demo.cpu"), std::to_string(kHosts) + "\n");
  write_with("pod", now + 1, /*all_hosts=*/false);
  EXPECT_EQ(rows("SELECT count(pod) FROM demo.cpu"), "1\n");
  write_with("pod", now + 2, /*all_hosts=*/true);
  EXPECT_EQ(rows("SELECT count(pod) FROM demo.cpu"), std::to_string(kHosts + 1) + "\n");
  EXPECT_EQ(rows("SELECT count(*) FROM demo.cpu WHERE pod = 'v'"),
            std::to_string(kHosts + 1) + "\n");

  write_with("zone", now + 3, /*all_hosts=*/true);
  QueryResult all = RunQuery(
      cluster_->node(kLagging).channel(),
      "SELECT * FROM demo.cpu WHERE time = from_milliseconds(" + std::to_string(now + 3) + ")");
  ASSERT_TRUE(all.status.ok()) << all.status.error_message();
  std::vector<std::string> names;
  for (const v1::ColumnInfo& c : all.metadata.columns()) names.push_back(c.name());
  EXPECT_NE(std::find(names.begin(), names.end(), "zone"), names.end());
  EXPECT_EQ(all.rows.size(), static_cast<size_t>(kHosts));
}

// Groups ordered by every group key with a LIMIT: each fragment sends its first groups in
// that order only (EXPLAIN shows the ORDER BY ... LIMIT in the fragments' statement), and the
// answers are those of a node's own replicas read whole (strong reads). An order that
// could leave groups tied, or orders by an aggregate, sends every group.
TEST_F(ClusterFanOutTest, GroupsOrderedByTheirKeysWithALimitAreCutInTheFragments) {
  const int64_t now = NowMillis() / 1000 * 1000;
  for (int s = 0; s < 6; ++s) WriteHosts(now - s * 1000);
  // Leader reads through the node leading none (every fragment remote); strong reads through
  // node 0, whose replicas keep up (the lagging node's would wait seconds for each write).
  auto run = [&](const std::string& sql, v1::ReadConsistency consistency) {
    v1::QueryRequest request;
    request.set_query_string(sql);
    *request.mutable_read() = Choice(consistency);
    const int node = consistency == v1::READ_CONSISTENCY_STRONG ? 0 : kLagging;
    QueryResult result = RunQueryRequest(cluster_->node(node).channel(), request);
    EXPECT_TRUE(result.status.ok()) << sql << ": " << result.status.error_message();
    return RowsText(result.rows);
  };
  struct Case {
    std::string sql;
    bool cut;  // each fragment sends its first groups only
  };
  const std::vector<Case> cases = {
      {"SELECT bin(time, 1s) AS second, count(*), max(measure_value::double) FROM demo.cpu "
       "GROUP BY 1 ORDER BY 1 DESC LIMIT 3",
       true},
      {"SELECT bin(time, 1s) AS second, count(*) FROM demo.cpu GROUP BY 1 ORDER BY second "
       "LIMIT 2 OFFSET 1",
       true},
      {"SELECT host, bin(time, 1s), avg(measure_value::double) FROM demo.cpu GROUP BY host, "
       "bin(time, 1s) ORDER BY 2 DESC, host LIMIT 4",
       true},
      // Ordered by one of its keys only (one measure name: no ties here, but there could be).
      {"SELECT bin(time, 1s), measure_name, count(*) FROM demo.cpu GROUP BY 1, 2 ORDER BY 1 DESC "
       "LIMIT 2",
       false},
      {"SELECT host, max(measure_value::double) FROM demo.cpu GROUP BY host ORDER BY 2 DESC, "
       "host LIMIT 3",
       false},
      // Fragments grouping by the value too (for the percentile) send every group.
      {"SELECT host, approx_percentile(length(host), 0.5), count(*) FROM demo.cpu "
       "GROUP BY host ORDER BY host LIMIT 3",
       false},
  };
  for (const Case& c : cases) {
    const std::string led = run(c.sql, v1::READ_CONSISTENCY_LEADER);
    EXPECT_EQ(led, run(c.sql, v1::READ_CONSISTENCY_STRONG)) << c.sql;
    EXPECT_NE(led, "") << c.sql;
    const std::string plan = run("EXPLAIN " + c.sql, v1::READ_CONSISTENCY_LEADER);
    EXPECT_EQ(plan.find("NULLS") != std::string::npos, c.cut) << c.sql << "\n" << plan;
  }
}

// A fragment request is parsed by the serving node itself (cluster/shard_service.h): one that does
// not parse (its statement invalid UTF-8) is refused INVALID_ARGUMENT, and a caller without the
// cluster's secret PERMISSION_DENIED before it is read; the node goes on serving fragments.
TEST_F(ClusterReadChoiceTest, AScanRequestThatDoesNotParseOrComesFromOutsideIsRefused) {
  auto scan = [&](const std::string& sql, bool member) {
    auto stub = internal::v1::ShardService::NewStub(cluster_->node(0).channel());
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    if (member) context.AddMetadata("x-strata-cluster-secret", cluster_->secret());
    internal::v1::ScanRequest request;
    request.set_sql(sql);
    request.add_shards(0);
    auto reader = stub->Scan(&context, request);
    internal::v1::ScanResponse page;
    int answers = 0;
    while (reader->Read(&page)) ++answers;
    return std::make_pair(reader->Finish(), answers);
  };
  const auto [unparsed, none] = scan("SELECT \xc3\x28", /*member=*/true);
  EXPECT_EQ(unparsed.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << unparsed.error_message();
  EXPECT_NE(unparsed.error_message().find("could not parse request"), std::string::npos)
      << unparsed.error_message();
  EXPECT_EQ(none, 0);
  const grpc::Status outsider = scan("SELECT count(*) FROM demo.cpu", /*member=*/false).first;
  EXPECT_EQ(outsider.error_code(), grpc::StatusCode::PERMISSION_DENIED) << outsider.error_message();
  const auto [served, answers] = scan("SELECT count(*) FROM demo.cpu", /*member=*/true);
  EXPECT_TRUE(served.ok()) << served.error_message();
  EXPECT_EQ(answers, 1);  // columns, the count and the statistics in one message
}

// A shard a leader hands over to a follower (cluster/site_balance.h) is read there once the
// follower's replica applied what the leader had, whatever the read choice says: here a
// follower read within ten minutes, which alone answers from the lagging replica at once.
TEST_F(ClusterReadChoiceTest, AHandedOverShardIsReadOnceItsReplicaAppliedWhatItsLeaderHad) {
  // count(*) of demo.cpu's shards at the lagging node, as another node's fragment.
  auto scan = [&](const std::map<uint32_t, uint64_t>& at_least) {
    auto stub = internal::v1::ShardService::NewStub(cluster_->node(kLagging).channel());
    grpc::ClientContext context;
    context.AddMetadata("x-strata-cluster-secret", cluster_->secret());
    internal::v1::ScanRequest request;
    request.set_sql("SELECT count(*) FROM demo.cpu");
    request.set_consistency(static_cast<int32_t>(query::ReadConsistency::kFollower));
    request.set_max_staleness_millis(600'000);
    for (uint32_t shard = 0; shard < 4; ++shard) {
      request.add_shards(shard);
      request.add_applied_at_least(at_least.contains(shard) ? at_least.at(shard) : 0);
    }
    auto reader = stub->Scan(&context, request);
    internal::v1::ScanResponse page;
    int64_t count = -1;
    while (reader->Read(&page)) {
      if (page.rows() > 0) count = page.columns(0).ints(0);
    }
    const grpc::Status status = reader->Finish();
    return std::make_pair(status, count);
  };
  ASSERT_EQ(scan({}).second, 0);  // the lagging node caught up once: current for ten minutes
  WriteHosts(NowMillis());
  // What each shard's leader applied with the write.
  std::map<uint32_t, uint64_t> led;
  const std::vector<std::string> leaders = cluster_->Leaders();
  for (uint32_t shard = 0; shard < 4; ++shard) {
    led[shard] = cluster_->Replicas(TestCluster::IndexOf(leaders[shard]))[shard].applied;
  }
  EXPECT_EQ(scan({}).second, 0) << "the follower read answers from the lagging replica";
  // 1.5 s behind: not waited for (the asking node would read the shard itself).
  const auto [behind, unread] = scan(led);
  EXPECT_EQ(behind.error_code(), grpc::StatusCode::UNAVAILABLE) << behind.error_message();
  EXPECT_NE(behind.error_message().find("has not applied shard"), std::string::npos)
      << behind.error_message();
  std::this_thread::sleep_for(std::chrono::seconds(2));
  const auto [caught_up, count] = scan(led);
  ASSERT_TRUE(caught_up.ok()) << caught_up.error_message();
  EXPECT_EQ(count, kHosts);
}

// Where a plan says each fragment reads: node ("this node" for the coordinator) -> shards.
std::map<std::string, std::vector<int>> FragmentShards(const std::string& plan) {
  std::map<std::string, std::vector<int>> out;
  static const std::regex site(R"(shards ([0-9,]*) on (this node|n[0-9]+))");
  for (auto it = std::sregex_iterator(plan.begin(), plan.end(), site); it != std::sregex_iterator();
       ++it) {
    std::vector<int>& shards = out[(*it)[2].str()];
    std::stringstream list((*it)[1].str());
    for (std::string shard; std::getline(list, shard, ',');) shards.push_back(std::stoi(shard));
  }
  return out;
}

// Waits until each of a 3-node cluster's eight shards is led by its first choice (shard i by
// n<i % 3>). The node up first may lead every shard; it hands each back to its first choice
// once it led it 10 s and the members settled (looking every 5 s: cluster_node.cc, HandBack).
void AwaitPreferredLeads(TestCluster& cluster) {
  const std::vector<std::string> preferred = {"n0", "n1", "n2", "n0", "n1", "n2", "n0", "n1"};
  for (int i = 0; i < 600 && cluster.Leaders() != preferred; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_EQ(cluster.Leaders(), preferred);
}

// Through a node leading more than an even share of the shards a leader read fans out to, the
// node hands some of them to the other nodes (it merges every answer too): on eight shards,
// preferred leaders 0,3,6 at n0, 1,4,7 at n1, 2,5 at n2, n0 reads fewer than its three, and
// every shard is read once. Every answer holds what was acknowledged before it, through any
// node, whoever reads which shard.
TEST(ClusterBalanceTest, TheCoordinatorHandsShardsItLeadsToFollowers) {
  REQUIRE_CLUSTER_SERVERS();
  TestCluster cluster(TestCluster::Options{.nodes = 3, .shards = 8});
  ASSERT_TRUE(cluster.Start()) << cluster.error();
  ASSERT_TRUE(CreateDatabase(cluster.node(0).channel(), "demo").ok());
  ASSERT_TRUE(CreateTable(cluster.node(0), "cpu").ok());
  ASSERT_NO_FATAL_FAILURE(AwaitPreferredLeads(cluster));
  const std::string sql = "SELECT count(*), count(DISTINCT host) FROM demo.cpu";
  v1::WriteRecordsResponse first;
  ASSERT_TRUE(Write(cluster.node(1), "cpu", HostRecords(kHosts, NowMillis()), &first).ok());
  for (int node = 0; node < 3; ++node) {
    const std::string plan =
        RowsText(RunQuery(cluster.node(node).channel(), "EXPLAIN " + sql).rows);
    std::vector<int> read;
    for (const auto& [at, shards] : FragmentShards(plan)) {
      read.insert(read.end(), shards.begin(), shards.end());
    }
    std::sort(read.begin(), read.end());
    EXPECT_EQ(read, std::vector<int>({0, 1, 2, 3, 4, 5, 6, 7})) << plan;
    if (node == 0) {
      EXPECT_LT(FragmentShards(plan)["this node"].size(), 3u) << plan;
    }
  }
  for (int round = 2; round <= 6; ++round) {
    v1::WriteRecordsResponse written;
    ASSERT_TRUE(
        Write(cluster.node(1), "cpu", HostRecords(kHosts, NowMillis() + round), &written).ok());
    const std::string want = std::to_string(round * kHosts) + "|" + std::to_string(kHosts) + "\n";
    for (int node = 0; node < 3; ++node) {
      QueryResult read = RunQuery(cluster.node(node).channel(), sql);
      ASSERT_TRUE(read.status.ok()) << read.status.error_message();
      EXPECT_EQ(RowsText(read.rows), want) << "round " << round << " through n" << node;
    }
  }
}

// Shards weigh their series: where a node other than the coordinator leads most of the data
// (n1 leads shards 1, 4 and 7, and 1 and 4 hold 30 hosts each, every other shard 1), it
// gives a shard to another node holding it (n0), which first asks n1 what it applied: the
// leader read still sees every acknowledged write.
TEST(ClusterBalanceTest, ANodeLeadingMostOfTheDataGivesAShardToAnother) {
  REQUIRE_CLUSTER_SERVERS();
  TestCluster cluster(TestCluster::Options{.nodes = 3, .shards = 8});
  ASSERT_TRUE(cluster.Start()) << cluster.error();
  ASSERT_TRUE(CreateDatabase(cluster.node(0).channel(), "demo").ok());
  ASSERT_TRUE(CreateTable(cluster.node(0), "keyed", "host").ok());
  ASSERT_NO_FATAL_FAILURE(AwaitPreferredLeads(cluster));
  std::vector<std::string> hosts;
  for (uint32_t shard = 0; shard < 8; ++shard) {
    const std::vector<std::string> on = HostsOnShard(shard, shard == 1 || shard == 4 ? 30 : 1);
    hosts.insert(hosts.end(), on.begin(), on.end());
  }
  auto write = [&](int64_t time) {
    std::vector<v1::Record> records;
    for (const std::string& host : hosts) records.push_back(CpuRecord(host, time, 1));
    v1::WriteRecordsResponse written;
    return Write(cluster.node(1), "keyed", records, &written);
  };
  ASSERT_TRUE(write(NowMillis()).ok());
  const std::string sql = "SELECT count(*), count(DISTINCT host) FROM demo.keyed";
  // The shards weigh the series n2's own replicas hold: a strong read there first waits until
  // they applied the write (else, under load, they may not have yet and weigh alike).
  v1::QueryRequest strong;
  strong.set_query_string(sql);
  strong.mutable_read()->set_consistency(v1::READ_CONSISTENCY_STRONG);
  ASSERT_TRUE(RunQueryRequest(cluster.node(2).channel(), strong).status.ok());
  const std::string plan = RowsText(RunQuery(cluster.node(2).channel(), "EXPLAIN " + sql).rows);
  std::map<std::string, std::vector<int>> sites = FragmentShards(plan);
  auto reads = [&sites](const std::string& node, int shard) {
    return std::count(sites[node].begin(), sites[node].end(), shard);
  };
  // One of the two heavy shards stays at n1, the other goes to n0.
  EXPECT_EQ(reads("n1", 1) + reads("n1", 4), 1) << plan;
  EXPECT_EQ(reads("n0", 1) + reads("n0", 4), 1) << plan;
  for (int round = 2; round <= 5; ++round) {
    ASSERT_TRUE(write(NowMillis() + round).ok());
    QueryResult read = RunQuery(cluster.node(2).channel(), sql);
    ASSERT_TRUE(read.status.ok()) << read.status.error_message();
    EXPECT_EQ(RowsText(read.rows),
              std::to_string(round * hosts.size()) + "|" + std::to_string(hosts.size()) + "\n")
        << "round " << round;
  }
}

// A leader read whose statement scanned little the last time (docs/cluster.md, "A small leader
// read") is read on the node's own replicas and held back until the shards' leaders say they
// had applied no more: every acknowledged write is still read, through the lagging node (whose
// replicas are found behind, so the query is read again at the leaders) and through a node
// whose replicas keep up (answered from them, confirmed).
TEST_F(ClusterReadChoiceTest, ASmallLeaderReadOnThisNodesReplicasStillReadsEveryAcknowledgedWrite) {
  auto local_reads = [&](int node, const std::string& outcome) {
    return MetricValue(cluster_->node(node),
                       "strata_local_leader_reads_total{outcome=\"" + outcome + "\"}");
  };
  const int64_t now = NowMillis();
  WriteHosts(now);
  // The first run of a statement fans out and finds it small; the next one is read here,
  // found behind (the write is 1.5 s from being applied here) and read again at the leaders.
  for (int run = 0; run < 2; ++run) {
    QueryResult led = Count(kLagging, v1::ReadOptions());
    ASSERT_TRUE(led.status.ok()) << led.status.error_message();
    EXPECT_EQ(RowsText(led.rows), std::to_string(kHosts) + "\n") << "run " << run;
  }
  EXPECT_EQ(local_reads(kLagging, "behind"), 1);
  EXPECT_EQ(local_reads(kLagging, "confirmed"), 0);

  // Through the one of the two nodes leading the shards that leads fewer (so that some of its
  // replicas are followers), whose replicas apply at once: each write read straight after it
  // was acknowledged (a replica there may be a little behind its leader then: the query is read
  // again at the leaders, and the next second's small reads fan out), and again once the
  // replicas caught up and that second passed (answered there).
  const std::vector<std::string> leaders = cluster_->Leaders();
  const auto leads = [&](const std::string& node) {
    return std::count(leaders.begin(), leaders.end(), node);
  };
  const int reader = leads("n0") <= leads("n1") ? 0 : 1;
  ASSERT_LT(leads("n" + std::to_string(reader)), 4) << "one node leads every shard";
  auto count_through_reader = [&](int64_t want, const std::string& when) {
    QueryResult led = Count(reader, v1::ReadOptions());
    ASSERT_TRUE(led.status.ok()) << led.status.error_message();
    EXPECT_EQ(RowsText(led.rows), std::to_string(want) + "\n") << when;
  };
  count_through_reader(kHosts, "the first run, fanned out");
  for (int round = 1; round <= 6; ++round) {
    WriteHosts(now + round);
    count_through_reader((round + 1) * kHosts, "straight after write " + std::to_string(round));
    std::this_thread::sleep_for(std::chrono::milliseconds(1100));
    count_through_reader((round + 1) * kHosts, "a second after write " + std::to_string(round));
  }
  EXPECT_GE(local_reads(reader, "confirmed"), 6);
  // A statement not run before fans out.
  const double before = local_reads(reader, "confirmed") + local_reads(reader, "behind");
  QueryResult other = RunQuery(cluster_->node(reader).channel(), "SELECT max(time) FROM demo.cpu");
  ASSERT_TRUE(other.status.ok()) << other.status.error_message();
  EXPECT_EQ(local_reads(reader, "confirmed") + local_reads(reader, "behind"), before);
}

// A small leader read whose condition pins the partition key to one host asks only the leader
// of that host's shard, and nothing when this node leads it; each answer still counts every
// acknowledged write.
TEST_F(ClusterReadChoiceTest, APinnedSmallLeaderReadAsksOnlyTheLeaderOfItsShard) {
  ASSERT_TRUE(CreateTable(cluster_->node(0), "pinned", "host").ok());
  // The reader: n0 or n1, leading some shards but not all. A node that came up first may lead
  // every shard for a while, until the others' first choices are handed back (10 s).
  int reader = -1;
  for (int i = 0; i < 60 && reader < 0; ++i) {
    const std::vector<std::string> leaders = cluster_->Leaders();
    for (int node : {0, 1}) {
      const auto leads = std::count(leaders.begin(), leaders.end(), "n" + std::to_string(node));
      if (leads > 0 && leads < static_cast<int>(leaders.size())) reader = node;
    }
    if (reader < 0) std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  ASSERT_GE(reader, 0) << "one node led every shard for 30 s";
  auto questions = [&] {
    return MetricValue(cluster_->node(reader), "strata_local_leader_read_questions_total");
  };
  auto confirmed = [&] {
    return MetricValue(cluster_->node(reader),
                       "strata_local_leader_reads_total{outcome=\"confirmed\"}");
  };
  v1::WriteRecordsResponse written;
  ASSERT_TRUE(Write(cluster_->node(0), "pinned", HostRecords(kHosts, NowMillis()), &written).ok());
  ASSERT_EQ(written.rejected_records_size(), 0);
  // Every replica has the write, and the reader's small reads are not paused.
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  // The statement's first run fans out; the others are read on the reader's replicas.
  int asked_none = 0, asked_one = 0;
  for (int h = 0; h < kHosts; ++h) {
    const double questions_before = questions(), confirmed_before = confirmed();
    QueryResult read =
        RunQuery(cluster_->node(reader).channel(),
                 "SELECT count(*) FROM demo.pinned WHERE host = 'h" + std::to_string(h) + "'");
    ASSERT_TRUE(read.status.ok()) << read.status.error_message();
    EXPECT_EQ(RowsText(read.rows), "1\n") << "h" << h;
    if (h == 0 || confirmed() != confirmed_before + 1) continue;
    const double asked = questions() - questions_before;
    EXPECT_LE(asked, 1) << "h" << h;
    (asked == 0 ? asked_none : asked_one) += 1;
  }
  // 40 hosts over 4 shards, some led by the reader and some by another node.
  EXPECT_GT(asked_none, 0);
  EXPECT_GT(asked_one, 0);
  EXPECT_GE(asked_none + asked_one, kHosts / 2);

  // Through the lagging node (leading none): a host's second record, read straight after it
  // was acknowledged, is found missing on its replica there by asking that shard's leader.
  auto count_through_lagging = [&](int host) {
    QueryResult read =
        RunQuery(cluster_->node(kLagging).channel(),
                 "SELECT count(*) FROM demo.pinned WHERE host = 'h" + std::to_string(host) + "'");
    EXPECT_TRUE(read.status.ok()) << read.status.error_message();
    return RowsText(read.rows);
  };
  EXPECT_EQ(count_through_lagging(0), "1\n");  // its first run: fanned out
  // The shape is small now: its EXPLAIN shows the read on this node's replicas, waiting for
  // one shard's leader (h1's), not the fragments of a fanned-out read.
  QueryResult plan = RunQuery(cluster_->node(kLagging).channel(),
                              "EXPLAIN SELECT count(*) FROM demo.pinned WHERE host = 'h1'");
  ASSERT_TRUE(plan.status.ok()) << plan.status.error_message();
  const std::string explained = RowsText(plan.rows);
  const std::string local =
      "LocalLeaderRead (a small leader read: this node's replicas, the answer held until the "
      "leaders of shards ";
  ASSERT_EQ(explained.rfind(local, 0), 0u) << explained;
  const size_t shards_end = explained.find(' ', local.size());
  ASSERT_NE(shards_end, std::string::npos) << explained;
  const std::string shards = explained.substr(local.size(), shards_end - local.size());
  EXPECT_EQ(shards.find(','), std::string::npos) << "more than h1's shard: " << explained;
  EXPECT_EQ(explained.find("ShardFragments"), std::string::npos) << explained;
  const auto behind = [&] {
    return MetricValue(cluster_->node(kLagging),
                       "strata_local_leader_reads_total{outcome=\"behind\"}");
  };
  const double behind_before = behind();
  ASSERT_TRUE(
      Write(cluster_->node(0), "pinned", {CpuRecord("h1", NowMillis() + 1, 1)}, &written).ok());
  EXPECT_EQ(count_through_lagging(1), "2\n") << "a pinned small read missed an acknowledged write";
  EXPECT_EQ(behind(), behind_before + 1);
}

// A leader whose shard was quiet for a second leases it to the node asking what it applied
// (cluster/read_leases.h): that node's next small reads ask no one. The leader revokes the
// lease before it publishes a write, so a read straight after the write is acknowledged still
// counts it, here through the lagging node, whose replicas have not applied it yet: read
// under the lease, it would not.
TEST_F(ClusterReadChoiceTest, ALeaseSparesTheQuestionsAndEndsBeforeAWriteIsAcknowledged) {
  auto metric = [&](const std::string& name) {
    return MetricValue(cluster_->node(kLagging), name);
  };
  const std::string questions = "strata_local_leader_read_questions_total";
  const std::string behind = "strata_local_leader_reads_total{outcome=\"behind\"}";
  auto count_through_lagging = [&](int64_t want, const std::string& when) {
    QueryResult read = Count(kLagging, v1::ReadOptions());
    ASSERT_TRUE(read.status.ok()) << read.status.error_message();
    EXPECT_EQ(RowsText(read.rows), std::to_string(want) + "\n") << when;
  };
  const int64_t now = NowMillis();
  WriteHosts(now);
  int64_t want = kHosts;
  count_through_lagging(want, "the first run, fanned out");
  int leased = 0, found_behind = 0;
  for (int round = 1; round <= 4; ++round) {
    // Quiet for longer than GrantedReadLeases::kQuiet, and the lagging replicas caught up.
    std::this_thread::sleep_for(std::chrono::milliseconds(2600));
    const double asked_before = metric(questions);
    count_through_lagging(want, "granted leases, round " + std::to_string(round));
    EXPECT_GT(metric(questions), asked_before) << "the leases had ended: the leaders are asked";
    const double asked_granted = metric(questions);
    count_through_lagging(want, "under the leases, round " + std::to_string(round));
    if (metric(questions) == asked_granted) ++leased;

    const double behind_before = metric(behind);
    WriteHosts(now + round);
    want += kHosts;
    count_through_lagging(want, "straight after write " + std::to_string(round));
    // Found behind (asked: the lease was revoked), unless the write took the 1.5 s the lagging
    // replicas wait, on a loaded machine.
    if (metric(behind) == behind_before + 1) ++found_behind;
  }
  // A read under a lease comes within half a second of its grant: all but a swamped machine's.
  EXPECT_GE(leased, 1);
  EXPECT_GE(found_behind, 1);
}

// A leader grants a read lease only to another node holding a replica of the shard: not to a
// name no member answers to (its revocation would find no one, and the shard's next write
// would wait for the lease's end), nor to itself; a revocation of a shard the node does not
// hold, or never granted, is answered and changes nothing.
TEST_F(ClusterReadChoiceTest, AReadLeaseGoesOnlyToAnotherNodeHoldingTheShard) {
  const uint32_t shard = 0;
  std::unique_ptr<internal::v1::ShardService::Stub> stub;
  auto lease_for = [&](const std::string& node) {
    grpc::ClientContext context;
    context.AddMetadata("x-strata-cluster-secret", cluster_->secret());
    internal::v1::ShardStateRequest request;
    request.add_shards(shard);
    request.set_lease_for(node);
    internal::v1::ShardStateResponse response;
    EXPECT_TRUE(stub->State(&context, request, &response).ok());
    return response.shards_size() == 1 ? response.shards(0).read_lease_millis() : -1;
  };
  // Nothing written yet: the shard is quiet. Its leader (n0 or n1; a node that came up first
  // may lead every shard for a while, and its key may come a moment before it serves) grants
  // the lagging node, which holds every shard, a lease.
  std::string leader;
  int64_t granted = 0;
  for (int i = 0; i < 100 && granted == 0; ++i) {
    leader = cluster_->Leaders()[shard];
    if (leader == "n0" || leader == "n1") {
      stub = internal::v1::ShardService::NewStub(cluster_->node(leader == "n0" ? 0 : 1).channel());
      granted = lease_for("n2");
    }
    if (granted == 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_NE(stub, nullptr) << "shard 0's leader: " << leader;
  EXPECT_EQ(granted, 500);
  EXPECT_EQ(lease_for("nobody"), 0);
  EXPECT_EQ(lease_for(leader), 0);
  EXPECT_EQ(lease_for(""), 0);
  for (uint32_t revoked : {shard, 99u}) {
    grpc::ClientContext context;
    context.AddMetadata("x-strata-cluster-secret", cluster_->secret());
    internal::v1::RevokeReadLeaseRequest request;
    request.set_shard(revoked);
    request.set_epoch(1);
    request.set_id(12345);
    internal::v1::RevokeReadLeaseResponse response;
    EXPECT_TRUE(stub->RevokeReadLease(&context, request, &response).ok()) << revoked;
  }
  // A revocation without the cluster's secret is refused.
  grpc::ClientContext outsider;
  internal::v1::RevokeReadLeaseResponse response;
  EXPECT_EQ(stub->RevokeReadLease(&outsider, internal::v1::RevokeReadLeaseRequest(), &response)
                .error_code(),
            grpc::StatusCode::PERMISSION_DENIED);
  // The write after the grant to n2 revokes it and is counted.
  WriteHosts(NowMillis());
  QueryResult counted = Count(kLagging, v1::ReadOptions());
  ASSERT_TRUE(counted.status.ok()) << counted.status.error_message();
  EXPECT_EQ(RowsText(counted.rows), std::to_string(kHosts) + "\n");
}

// Writes and small reads interleaved at random gaps around the leases' quiet second and
// length (a seeded sequence): a write to one shard, a count through the lagging node straight
// after, exact every time — whether the read asked, held a lease, found its replica behind or
// was paused to fan out.
TEST_F(ClusterReadChoiceTest, InterleavedWritesAndSmallReadsCountEveryAcknowledgedWrite) {
  ASSERT_TRUE(CreateTable(cluster_->node(0), "mixed", "host").ok());
  auto count_through = [&](int node) {
    QueryResult read = RunQuery(cluster_->node(node).channel(), "SELECT count(*) FROM demo.mixed");
    EXPECT_TRUE(read.status.ok()) << read.status.error_message();
    return RowsText(read.rows);
  };
  const int64_t now = NowMillis();
  v1::WriteRecordsResponse written;
  ASSERT_TRUE(Write(cluster_->node(0), "mixed", HostRecords(kHosts, now), &written).ok());
  int64_t want = kHosts;
  std::mt19937 random(74);
  const std::vector<int> gaps_ms = {0, 50, 300, 700, 1100, 1600, 2600};
  for (int round = 1; round <= 24; ++round) {
    std::this_thread::sleep_for(std::chrono::milliseconds(gaps_ms[random() % gaps_ms.size()]));
    // A few reads first (they ask, or hold leases when the shards were quiet).
    for (int r = static_cast<int>(random() % 3); r > 0; --r) {
      ASSERT_EQ(count_through(kLagging), std::to_string(want) + "\n") << "round " << round;
    }
    const std::string host = HostsOnShard(random() % 4, 1 + round, 4).back();
    ASSERT_TRUE(
        Write(cluster_->node(round % 2), "mixed", {CpuRecord(host, now + round, round)}, &written)
            .ok());
    ASSERT_EQ(written.rejected_records_size(), 0);
    ++want;
    EXPECT_EQ(count_through(kLagging), std::to_string(want) + "\n")
        << "straight after write " << round;
  }
}

// A leader handing its shard back (it steps down, then deletes its key, and the other node
// takes the lead at once, without waiting for a lease to end) revokes its read leases first:
// the node they were lent to reads the new leader's first write, here through the lagging
// node (whose replicas have not applied it). The leases last 5 s here, so that one the leader
// did not revoke would still be held then (checked: without the revocation the count misses
// the write).
TEST(ClusterReadLeaseTest, AHandedBackShardsLeasesEndBeforeItsNewLeaderWrites) {
  REQUIRE_CLUSTER_SERVERS();
  const std::vector<std::string> long_leases = {"--testing-read-lease-ms", "5000"};
  TestCluster cluster(TestCluster::Options{
      .nodes = 3,
      .shards = 4,
      .lease_seconds = 10,  // longer than a lease: a killed leader's end them first
      .flags_of_node = {{0, long_leases},
                        {1, long_leases},
                        {kLagging, {"--testing-apply-delay-ms", "1500"}}}});  // leads none
  ASSERT_TRUE(cluster.Start()) << cluster.error();
  ASSERT_TRUE(CreateDatabase(cluster.node(0).channel(), "demo").ok());
  // Partitioned by host: the write after the hand-back goes to shard 1 alone (a write to
  // another shard would revoke that shard's lease, and the read, asking, would be read again
  // at the leaders whatever shard 1's lease said).
  ASSERT_TRUE(CreateTable(cluster.node(0), "handed", "host").ok());
  auto lead_of_shard_1 = [&] { return cluster.Leaders()[1]; };
  auto count_through_lagging = [&] {
    QueryResult read =
        RunQuery(cluster.node(kLagging).channel(), "SELECT count(*) FROM demo.handed");
    EXPECT_TRUE(read.status.ok()) << read.status.error_message();
    return RowsText(read.rows);
  };
  const int64_t now = NowMillis();
  v1::WriteRecordsResponse written;
  ASSERT_TRUE(Write(cluster.node(0), "handed", HostRecords(kHosts, now), &written).ok());
  ASSERT_EQ(written.rejected_records_size(), 0);
  const std::string first = std::to_string(kHosts) + "\n";
  // n1 is shard 1's first choice; once it is killed, n0 leads every shard (after n1's lease).
  auto wait_for = [&](const std::string& node, std::chrono::seconds timeout) {
    for (const auto deadline = std::chrono::steady_clock::now() + timeout;
         std::chrono::steady_clock::now() < deadline;
         std::this_thread::sleep_for(std::chrono::milliseconds(100))) {
      if (lead_of_shard_1() == node) return true;
    }
    return false;
  };
  ASSERT_TRUE(wait_for("n1", std::chrono::seconds(20)));
  cluster.node(1).Kill9();
  ASSERT_TRUE(wait_for("n0", std::chrono::seconds(30)));
  ASSERT_TRUE(cluster.node(1).Restart()) << cluster.node(1).error();
  // Small reads through the lagging node, under n0's leases while the shards are quiet, until
  // n0 hands shard 1 back (once it led it 10 s and n1 caught up).
  bool handed_back = false;
  for (const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
       !handed_back && std::chrono::steady_clock::now() < deadline;) {
    ASSERT_EQ(count_through_lagging(), first);
    handed_back = lead_of_shard_1() == "n1";
  }
  ASSERT_TRUE(handed_back);
  const double questions =
      MetricValue(cluster.node(kLagging), "strata_local_leader_read_questions_total");
  const std::string host = HostsOnShard(1, 1, 4).front();
  ASSERT_TRUE(Write(cluster.node(1), "handed", {CpuRecord(host, now + 1, 1)}, &written).ok());
  ASSERT_EQ(written.rejected_records_size(), 0);
  EXPECT_EQ(count_through_lagging(), std::to_string(kHosts + 1) + "\n")
      << "a lease on the shard handed back outlived its leader's lead";
  EXPECT_GT(MetricValue(cluster.node(kLagging), "strata_local_leader_read_questions_total"),
            questions)
      << "shard 1's lease was not revoked: the read asked no one";
}

TEST_F(ClusterReadChoiceTest, BadReadOptionsAreRefusedSayingWhy) {
  struct Case {
    v1::ReadOptions read;
    std::string says;
  };
  v1::ReadOptions too_many;
  too_many.set_max_fragments(65);
  v1::ReadOptions negative_hedge;
  negative_hedge.set_hedge_after_millis(-1);
  v1::ReadOptions unknown;
  unknown.set_consistency(static_cast<v1::ReadConsistency>(7));
  const std::vector<Case> cases = {
      {Choice(v1::READ_CONSISTENCY_FOLLOWER, 3'600'001), "max staleness from 1 ms"},
      {Choice(v1::READ_CONSISTENCY_FOLLOWER, -5), "max staleness from 1 ms"},
      {too_many, "max fragments must be from 0"},
      {negative_hedge, "hedge after must be from 0"},
      {unknown, "read.consistency 7 is none of"},
  };
  for (const Case& c : cases) {
    QueryResult result = Count(1, c.read);
    EXPECT_EQ(result.status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << c.says;
    EXPECT_NE(result.status.error_message().find(c.says), std::string::npos)
        << result.status.error_message();
  }
  // A cap of one fragment at a time reads the same rows.
  WriteHosts(NowMillis());
  v1::ReadOptions one_at_a_time;
  one_at_a_time.set_max_fragments(1);
  QueryResult capped = Count(1, one_at_a_time);
  ASSERT_TRUE(capped.status.ok()) << capped.status.error_message();
  EXPECT_EQ(RowsText(capped.rows), std::to_string(kHosts) + "\n");
}

// A query killed while its fragments run at other nodes ends at once: the fragments' calls are
// cancelled (they would answer only when done), and the serving nodes stop. Here they would
// wait a minute first; the client gives up after 30 s.
TEST(ClusterKillTest, AKilledQueryStopsItsRemoteFragmentsAtOnce) {
  REQUIRE_CLUSTER_SERVERS();
  TestCluster cluster(TestCluster::Options{
      .nodes = 3,
      .shards = 4,
      .flags_of_node = {{0, {"--testing-query-delay-ms", "60000"}},
                        {1, {"--testing-query-delay-ms", "60000"}},
                        {kLagging, {"--testing-apply-delay-ms", "1500"}}}});  // leads none
  ASSERT_TRUE(cluster.Start()) << cluster.error();
  ASSERT_TRUE(CreateDatabase(cluster.node(0).channel(), "demo").ok());
  ASSERT_TRUE(CreateTable(cluster.node(0), "cpu").ok());
  v1::WriteRecordsResponse written;
  ASSERT_TRUE(Write(cluster.node(0), "cpu", HostRecords(kHosts, NowMillis()), &written).ok());

  // Through the node leading no shard: every fragment runs at node 0 or 1.
  const std::string sql = "SELECT count(*) FROM demo.cpu";
  const std::string plan =
      RowsText(RunQuery(cluster.node(kLagging).channel(), "EXPLAIN " + sql).rows);
  ASSERT_EQ(plan.find("this node"), std::string::npos) << plan;
  auto stub = v1::QueryService::NewStub(cluster.node(kLagging).channel());
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  v1::QueryRequest request;
  request.set_query_string(sql);
  std::unique_ptr<grpc::ClientReader<v1::QueryResponse>> reader = stub->Query(&context, request);
  std::string id;
  for (auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
       id.empty() && std::chrono::steady_clock::now() < give_up;) {
    for (const v1::Row& row : RunQuery(cluster.node(kLagging).channel(), "SHOW QUERIES").rows) {
      if (row.data(1).varchar_value() == sql) id = row.data(0).varchar_value();
    }
    if (id.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_FALSE(id.empty()) << "the query is not listed";
  QueryResult killed = RunQuery(cluster.node(kLagging).channel(), "KILL QUERY '" + id + "'");
  ASSERT_TRUE(killed.status.ok()) << killed.status.error_message();
  v1::QueryResponse message;
  while (reader->Read(&message)) {
  }
  const grpc::Status end = reader->Finish();
  EXPECT_EQ(end.error_code(), grpc::StatusCode::CANCELLED) << end.error_message();
}

}  // namespace
}  // namespace strata::testing
