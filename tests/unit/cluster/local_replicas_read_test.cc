#include "cluster/local_replicas_read.h"

#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace strata::cluster {
namespace {

// A directory in which another node, at an address nothing listens on, leads every shard;
// it counts the shards whose holders were looked up (one lookup a shard asked about).
class AnotherNodeLeads final : public ShardDirectory {
 public:
  explicit AnotherNodeLeads(const Membership& membership) : membership_(membership) {}
  uint32_t shard_count() const override { return 4; }
  std::string LeaderAddress(uint32_t, bool* self) override {
    *self = false;
    return kAddress;
  }
  std::shared_ptr<Replica> LocalReplica(uint32_t) override { return nullptr; }
  int64_t catalog_revision() override { return 1; }
  bool TakesLeads() const override { return true; }
  bool CatchUpCatalog() override { return true; }
  const Membership& membership() const override { return membership_; }
  std::vector<ShardHolder> Holders(uint32_t) override {
    ++lookups;
    return {{.node = "n1", .address = kAddress, .self = false, .leader = true}};
  }
  absl::Status CatchUpShards(const std::vector<uint32_t>&, const query::ReadChoice&,
                             std::chrono::milliseconds) override {
    return absl::OkStatus();
  }
  bool WaitCatalog(int64_t, std::chrono::milliseconds) override { return true; }
  bool LeadsUnderLease(Replica&) override { return false; }

  int lookups = 0;

 private:
  static constexpr const char* kAddress = "127.0.0.1:1";
  const Membership& membership_;
};

class LocalReplicasReadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto created = Membership::Create({}, "0123456789abcdef");
    ASSERT_TRUE(created.ok()) << created.status();
    membership_ = *std::move(created);
    directory_ = std::make_unique<AnotherNodeLeads>(*membership_);
    peers_ = std::make_unique<PeerStubs>(membership_.get());
  }
  // A read of this node's replicas of shards 1 and 2, both led by the other node.
  std::unique_ptr<LocalReplicasRead> Read() {
    return std::make_unique<LocalReplicasRead>(
        *directory_, *peers_, "n0",
        std::vector<LocalReplicasRead::Follower>{{.shard = 1, .replica = nullptr, .applied = 5},
                                                 {.shard = 2, .replica = nullptr, .applied = 5}},
        [this] { ++behind_; });
  }

  std::unique_ptr<Membership> membership_;
  std::unique_ptr<AnotherNodeLeads> directory_;
  std::unique_ptr<PeerStubs> peers_;
  int behind_ = 0;
};

// A read asks the leader of a shard it reads as the plan names it, and its answer waits for
// that leader: one that does not answer holds the answer back.
TEST_F(LocalReplicasReadTest, AReadAsksTheLeadersOfTheShardsItsPlanReads) {
  std::unique_ptr<LocalReplicasRead> read = Read();
  read->TableResolved();
  read->Reading(std::set<uint32_t>{2});
  EXPECT_EQ(directory_->lookups, 1);
  EXPECT_EQ(read->leaders_asked(), 1);
  const absl::Status confirmed = read->Confirm();
  EXPECT_EQ(confirmed.code(), absl::StatusCode::kFailedPrecondition) << confirmed;
  EXPECT_NE(confirmed.message().find("shard 2's leader did not say"), std::string::npos)
      << confirmed;
  EXPECT_EQ(behind_, 1);
}

// An EXPLAIN's read names the leaders its answer would wait for, asks none of them, and
// cannot be taken as confirmed.
TEST_F(LocalReplicasReadTest, APlanOnlyReadNamesTheLeadersItWouldAskAndAsksNone) {
  std::unique_ptr<LocalReplicasRead> read = Read();
  read->PlanOnly();
  read->TableResolved();
  read->Reading(std::set<uint32_t>{2});
  EXPECT_EQ(directory_->lookups, 0);
  EXPECT_EQ(read->leaders_asked(), 0);
  EXPECT_NE(read->Describe().find("the leaders of shards 2 confirm"), std::string::npos)
      << read->Describe();
  read->ReadingEvery();
  EXPECT_NE(read->Describe().find("the leaders of shards 1,2 confirm"), std::string::npos)
      << read->Describe();
  EXPECT_EQ(directory_->lookups, 0);
  EXPECT_EQ(read->Confirm().code(), absl::StatusCode::kInternal);
  EXPECT_EQ(behind_, 0);
}

}  // namespace
}  // namespace strata::cluster
