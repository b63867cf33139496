// Trimmed logs and replicas built from a peer's checkpoint (docs/cluster.md, "Trimming the
// logs"): the shards' streams are trimmed below what every replica applied while writes go
// on; a node away meanwhile comes back behind its logs' start, and its replicas are built
// again from a peer's checkpoint and the log's tail, with every acknowledged record and the
// same digests as the others.
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "tests/cluster/cluster_harness.h"
#include "tests/cluster/cluster_helpers.h"
#include "tests/support/query_helpers.h"
#include "tests/support/write_helpers.h"

namespace strata::testing {
namespace {

using std::chrono::seconds;
using Clock = std::chrono::steady_clock;

constexpr int kTrimShards = 4;

class ClusterLogTrimTest : public ::testing::Test {
 protected:
  void SetUp() override {
    REQUIRE_CLUSTER_SERVERS();
    cluster_ = std::make_unique<TestCluster>(TestCluster::Options{
        .shards = kTrimShards,
        .node_flags = {"--cluster-log-trim-seconds", "1", "--cluster-log-keep-entries", "3"}});
    ASSERT_TRUE(cluster_->Start()) << cluster_->error();
    ASSERT_TRUE(CreateDatabase(cluster_->node(0).channel(), "demo").ok());
    ASSERT_TRUE(CreateTable(cluster_->node(1), "cpu").ok());
  }

  void WriteBatches(int count, const std::vector<int>& through) {
    batches_.Write(*cluster_, count, through);
  }

  // Waits until every shard's log starts past `past[shard]` (writing a batch now and then,
  // so entries keep coming); "" when so, else what was last seen.
  std::string WaitTrimmedPast(const std::map<uint32_t, uint64_t>& past, int through,
                              seconds timeout) {
    std::string seen;
    for (const auto deadline = Clock::now() + timeout; Clock::now() < deadline;) {
      const std::map<int64_t, std::string> starts =
          ShardColumn(cluster_->node(through), "log_first_sequence");
      seen.clear();
      bool trimmed = starts.size() == kTrimShards;
      for (const auto& [shard, first] : starts) {
        seen += std::to_string(shard) + " starts at " + first + "; ";
        auto it = past.find(static_cast<uint32_t>(shard));
        trimmed &= std::stoll(first) > static_cast<int64_t>(it == past.end() ? 1 : it->second);
      }
      if (trimmed) return "";
      WriteBatches(2, {through});
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
    return seen;
  }

  std::unique_ptr<TestCluster> cluster_;
  HostBatches batches_;
};

TEST_F(ClusterLogTrimTest, LogsAreTrimmedAndANodeLeftBehindIsRebuiltFromAPeer) {
  WriteBatches(20, {0, 1, 2});
  // Every replica is up: each log is trimmed to a few entries below the lowest of them.
  ASSERT_EQ(WaitTrimmedPast({}, 0, seconds(60)), "");
  EXPECT_EQ(cluster_->CompareReplicas({0, 1, 2}, seconds(30)), "");

  // n2 goes away; the others' writes go on, and the logs are trimmed past what it applied.
  std::map<uint32_t, uint64_t> applied_by_n2;
  for (const auto& [shard, state] : cluster_->Replicas(2)) applied_by_n2[shard] = state.applied + 1;
  ASSERT_EQ(applied_by_n2.size(), static_cast<size_t>(kTrimShards));
  cluster_->node(2).Kill9();
  WriteBatches(20, {0, 1});
  ASSERT_EQ(WaitTrimmedPast(applied_by_n2, 0, seconds(60)), "");

  // Back, it is behind every log's start: each replica is built from a peer's checkpoint.
  ASSERT_TRUE(cluster_->node(2).Restart());
  WriteBatches(10, {0, 1});
  ASSERT_EQ(cluster_->CompareReplicas({0, 1, 2}, seconds(90)), "");
  const std::string log = cluster_->node(2).log();
  EXPECT_NE(log.find("were trimmed"), std::string::npos);
  for (int shard = 0; shard < kTrimShards; ++shard) {
    EXPECT_NE(log.find("builds a replica of shard " + std::to_string(shard) + " from node n"),
              std::string::npos)
        << shard;
  }
  EXPECT_NE(log.find("'s checkpoint at sequence "), std::string::npos);
  // Its own replicas hold every acknowledged record (digests chain the log's entries, not
  // the rows: the rows are compared here).
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(ReadAll(cluster_->node(i), "cpu", /*own_replicas=*/true), batches_.acknowledged())
        << i;
  }

  // And it takes writes again as any node does.
  WriteBatches(5, {2});
  EXPECT_EQ(cluster_->CompareReplicas({0, 1, 2}, seconds(30)), "");
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(ReadAll(cluster_->node(i), "cpu", /*own_replicas=*/true), batches_.acknowledged())
        << i;
  }
}

}  // namespace
}  // namespace strata::testing
