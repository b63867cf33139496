#include "cluster/apply_confirmations.h"

#include "gtest/gtest.h"

namespace strata::cluster {
namespace {

TEST(ApplyConfirmationsTest, AnAnnouncementConfirmsWhatTheLeaderAppliedWithTheSameDigest) {
  ApplyConfirmations c(0);
  c.Applied(1, 11);
  c.Applied(2, 22);
  EXPECT_EQ(c.confirmed(), 0u);
  c.Announced("n1", 1, 11);
  EXPECT_EQ(c.confirmed(), 1u);
  c.Announced("n2", 2, 99);  // another chain: its log differs, it confirms nothing
  EXPECT_EQ(c.confirmed(), 1u);
  c.Announced("n1", 2, 22);
  EXPECT_EQ(c.confirmed(), 2u);
  c.Announced("n2", 1, 11);  // an older one does not go back
  EXPECT_EQ(c.confirmed(), 2u);
}

// Regression: a follower can apply an entry before its leader does; its announcement came
// first and was dropped, so a write under --replica-ack majority waited out its patience
// (ClusterReplicaAckTest.MajorityWaitsForAnotherReplica failed in CI).
TEST(ApplyConfirmationsTest, AnAnnouncementAheadOfTheLeaderConfirmsOnceTheLeaderGetsThere) {
  ApplyConfirmations c(0);
  c.Announced("n1", 1, 11);  // before the leader applied anything
  c.Announced("n1", 3, 33);
  EXPECT_EQ(c.confirmed(), 0u);
  c.Applied(1, 11);
  EXPECT_EQ(c.confirmed(), 1u);
  c.Applied(2, 22);
  EXPECT_EQ(c.confirmed(), 1u);
  c.Applied(3, 33);
  EXPECT_EQ(c.confirmed(), 3u);

  ApplyConfirmations differing(0);
  differing.Announced("n1", 1, 12);
  differing.Applied(1, 11);
  EXPECT_EQ(differing.confirmed(), 0u);
}

}  // namespace
}  // namespace strata::cluster
