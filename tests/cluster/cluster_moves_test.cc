// Nodes that come and go (docs/cluster.md, "Moving replicas"): a node added receives
// replicas built from peers' checkpoints and the shards' logs while writes go on, a node away past
// the grace has its replicas rebuilt on the others, a node removed gives all of its away; no
// acknowledged record is lost and the replicas of each shard end equal.
#include <algorithm>
#include <atomic>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "strata/v1/cluster.grpc.pb.h"
#include "tests/cluster/cluster_harness.h"
#include "tests/cluster/cluster_helpers.h"
#include "tests/support/query_helpers.h"
#include "tests/support/write_helpers.h"

namespace strata::testing {
namespace {

using std::chrono::seconds;
using Clock = std::chrono::steady_clock;

constexpr int kShards = 8;

class ClusterMovesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    REQUIRE_CLUSTER_SERVERS();
    // n0..n2 listed; n3 runs holding nothing, as a machine just added does.
    cluster_ = std::make_unique<TestCluster>(
        TestCluster::Options{.nodes = 4,
                             .shards = kShards,
                             .node_flags = {"--dead-node-grace-seconds", "4"},
                             .placement = true,
                             .placed_nodes = 3});
    ASSERT_TRUE(cluster_->Start()) << cluster_->error();
    ASSERT_TRUE(CreateDatabase(cluster_->node(0).channel(), "demo").ok());
    ASSERT_TRUE(CreateTable(cluster_->node(1), "cpu").ok());
  }

  grpc::Status ChangeNodes(int through, const std::vector<std::string>& add,
                           const std::vector<std::string>& remove,
                           v1::ChangeNodesResponse* response) {
    v1::ChangeNodesRequest request;
    for (const std::string& id : add) request.add_add(id);
    for (const std::string& id : remove) request.add_remove(id);
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + seconds(10));
    return v1::ClusterService::NewStub(cluster_->node(through).channel())
        ->ChangeNodes(&context, request, response);
  }

  void WriteBatches(int count, const std::vector<int>& through) {
    batches_.Write(*cluster_, count, through);
  }

  // Waits until no shard moves and each of `holders` holds the shards it is placed on and
  // nothing else (as its internal service reports), every shard on three of them, counts
  // within one of each other. "" when so, else what was last seen.
  std::string WaitSettled(int through, const std::vector<int>& holders, seconds timeout) {
    std::string seen;
    for (const auto deadline = Clock::now() + timeout; Clock::now() < deadline;
         std::this_thread::sleep_for(std::chrono::milliseconds(500))) {
      const std::map<int64_t, std::string> placement =
          ShardColumn(cluster_->node(through), "placement");
      seen.clear();
      bool settled = static_cast<int>(placement.size()) == kShards;
      std::map<int, std::set<int64_t>> placed;
      for (const auto& [shard, text] : placement) {
        seen += std::to_string(shard) + ": " + text + "\n";
        settled &= text.find("joining") == std::string::npos;
        const std::string list = text.substr(text.find('=') + 1);
        int copies = 0;
        for (size_t from = 0; from < list.size(); ++copies) {
          const size_t comma = std::min(list.find(',', from), list.size());
          placed[TestCluster::IndexOf(list.substr(from, comma - from))].insert(shard);
          from = comma + 1;
        }
        settled &= copies == 3;
      }
      size_t low = SIZE_MAX, high = 0;
      for (int i : holders) {
        std::set<int64_t> held;
        for (const auto& [shard, state] : cluster_->Replicas(i)) held.insert(shard);
        settled &= held == placed[i];
        low = std::min(low, held.size());
        high = std::max(high, held.size());
        seen += "n" + std::to_string(i) + " holds " + std::to_string(held.size()) + "\n";
      }
      for (const auto& [node, shards] : placed) {
        settled &= std::find(holders.begin(), holders.end(), node) != holders.end();
      }
      if (settled && high - low <= 1) return "";
    }
    return seen;
  }

  std::unique_ptr<TestCluster> cluster_;
  HostBatches batches_;
};

TEST_F(ClusterMovesTest, NodesAddedLostAndRemovedKeepEveryAcknowledgedRecord) {
  EXPECT_TRUE(cluster_->Replicas(3).empty());
  WriteBatches(10, {0, 1, 2, 3});

  // Added while writes go on: a quarter of the replicas move to n3.
  v1::ChangeNodesResponse response;
  ASSERT_TRUE(ChangeNodes(3, {"n3"}, {}, &response).ok());
  EXPECT_EQ(response.nodes_size(), 4);
  std::atomic<bool> done{false};
  std::thread writer([&] {
    while (!done) WriteBatches(1, {0, 1, 2, 3});
  });
  const std::string added = WaitSettled(0, {0, 1, 2, 3}, seconds(120));
  done = true;
  writer.join();
  ASSERT_EQ(added, "") << "never settled over four nodes:\n" << added;
  EXPECT_EQ(cluster_->Replicas(3).size(), 6u);  // 8 shards x 3 copies / 4 nodes
  // Each built from a peer's checkpoint and the log's tail, not from the whole log.
  EXPECT_NE(cluster_->node(3).log().find("'s checkpoint at sequence"), std::string::npos);
  EXPECT_EQ(cluster_->node(3).log().find("from its log"), std::string::npos);
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(ReadAll(cluster_->node(i), "cpu"), batches_.acknowledged()) << i;
  EXPECT_EQ(cluster_->CompareReplicas({0, 1, 2, 3}, seconds(30), true), "");
  // Asking again changes nothing.
  ASSERT_TRUE(ChangeNodes(1, {"n3"}, {}, &response).ok());
  EXPECT_EQ(response.nodes_size(), 4);

  // n3 dies: once away past the grace (4 s), its replicas are rebuilt on the other three.
  cluster_->node(3).Kill9();
  const std::string rebuilt = WaitSettled(0, {0, 1, 2}, seconds(120));
  ASSERT_EQ(rebuilt, "") << "n3's replicas were not rebuilt:\n" << rebuilt;
  // Each was rebuilt on the node it had left for n3 moments before (8 shards x 3 copies on
  // 4 nodes: the one node without a copy), which kept the rows: only the log's tail is read.
  for (int i = 0; i < 3; ++i) {
    EXPECT_NE(cluster_->node(i).log().find("from the rows it kept"), std::string::npos) << i;
  }
  WriteBatches(5, {0, 1, 2});
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(ReadAll(cluster_->node(i), "cpu"), batches_.acknowledged()) << i;
  // Back on the list's node: it is given its share again (its old rows were not served).
  ASSERT_TRUE(cluster_->node(3).Restart());
  ASSERT_EQ(WaitSettled(0, {0, 1, 2, 3}, seconds(120)), "");
  EXPECT_EQ(ReadAll(cluster_->node(3), "cpu"), batches_.acknowledged());

  // n0 taken off the list: it gives every replica away, and still answers through others.
  ASSERT_TRUE(ChangeNodes(2, {}, {"n0"}, &response).ok());
  EXPECT_EQ(response.nodes_size(), 3);
  const std::string removed = WaitSettled(1, {1, 2, 3}, seconds(120));
  ASSERT_EQ(removed, "") << "n0 kept replicas:\n" << removed;
  // It drops each replica once it sees the placement that no longer names it.
  for (const auto deadline = Clock::now() + seconds(30);
       !cluster_->Replicas(0).empty() && Clock::now() < deadline;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  EXPECT_TRUE(cluster_->Replicas(0).empty());
  WriteBatches(5, {0, 1, 2, 3});
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(ReadAll(cluster_->node(i), "cpu"), batches_.acknowledged()) << i;
  EXPECT_EQ(cluster_->CompareReplicas({1, 2, 3}, seconds(30), true), "");
}

TEST_F(ClusterMovesTest, NodeListChangesThatCannotBeAreRefused) {
  v1::ChangeNodesResponse response;
  struct Case {
    std::vector<std::string> add, remove;
    grpc::StatusCode code;
    std::string says;
  };
  const std::vector<Case> cases = {
      {{"bad id"}, {}, grpc::StatusCode::INVALID_ARGUMENT, "is not a node id"},
      {{}, {"n9"}, grpc::StatusCode::NOT_FOUND, "is not one of the cluster's (n0, n1, n2)"},
      {{}, {"n2"}, grpc::StatusCode::FAILED_PRECONDITION, "add a node before removing one"},
      {std::vector<std::string>(1025, "n5"), {}, grpc::StatusCode::INVALID_ARGUMENT,
       "at most 1024 node ids"},
  };
  for (const Case& c : cases) {
    grpc::Status status = ChangeNodes(0, c.add, c.remove, &response);
    EXPECT_EQ(status.error_code(), c.code) << status.error_message();
    EXPECT_NE(status.error_message().find(c.says), std::string::npos) << status.error_message();
  }
  // A rebalance of a balanced cluster moves nothing.
  ASSERT_TRUE(ChangeNodes(0, {}, {}, &response).ok());
  EXPECT_EQ(response.nodes_size(), 3);
  EXPECT_EQ(WaitSettled(0, {0, 1, 2}, seconds(30)), "");
  EXPECT_TRUE(cluster_->Replicas(3).empty());
}

}  // namespace
}  // namespace strata::testing
