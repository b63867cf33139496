#include "cluster/read_leases.h"

#include "gtest/gtest.h"

namespace strata::cluster {
namespace {

using std::chrono::milliseconds;

const LeaseClock::time_point kStart = LeaseClock::time_point() + std::chrono::hours(1);

// A leader grants a lease only once no write arrived for GrantedReadLeases::kQuiet, and
// hands the live ones over once, when it revokes them.
TEST(GrantedReadLeasesTest, GrantsOnlyWhenQuietAndHandsTheLiveOnesOverToRevoke) {
  GrantedReadLeases leases;
  const std::optional<ReadLeaseGrant> first = leases.Grant("n1", 7, 40, kStart);
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->epoch, 7);
  EXPECT_EQ(first->sequence, 40u);
  EXPECT_EQ(first->length, GrantedReadLeases::kLength);
  const std::optional<ReadLeaseGrant> second = leases.Grant("n2", 7, 41, kStart + milliseconds(10));
  ASSERT_TRUE(second.has_value());
  EXPECT_GT(second->id, first->id);

  // n1's ended by the time the write comes; n2's is live and handed over, once.
  const LeaseClock::time_point write = kStart + GrantedReadLeases::kLength + milliseconds(5);
  leases.Wrote(write);
  const std::vector<ReadLeaseHolder> live = leases.TakeLive(write);
  ASSERT_EQ(live.size(), 1u);
  EXPECT_EQ(live[0].node, "n2");
  EXPECT_EQ(live[0].id, second->id);
  EXPECT_EQ(live[0].until, kStart + milliseconds(10) + GrantedReadLeases::kLength);
  EXPECT_TRUE(leases.TakeLive(write).empty());

  // Not while writes come; again once they stopped for kQuiet.
  EXPECT_FALSE(leases.Grant("n1", 7, 42, write + milliseconds(1)).has_value());
  EXPECT_FALSE(
      leases.Grant("n1", 7, 42, write + GrantedReadLeases::kQuiet - milliseconds(1)).has_value());
  EXPECT_TRUE(leases.Grant("n1", 7, 42, write + GrantedReadLeases::kQuiet).has_value());

  // Tests' longer leases (--testing-read-lease-ms) end later, on both sides.
  leases.set_length(milliseconds(5000));
  const LeaseClock::time_point later = write + GrantedReadLeases::kQuiet;
  const std::optional<ReadLeaseGrant> long_one = leases.Grant("n2", 7, 43, later);
  ASSERT_TRUE(long_one.has_value());
  EXPECT_EQ(long_one->length, milliseconds(5000));
  const std::vector<ReadLeaseHolder> held = leases.TakeLive(later + milliseconds(4000));
  ASSERT_EQ(held.size(), 1u);
  EXPECT_EQ(held[0].until, later + milliseconds(5000));
}

// A node granted twice holds its latest grant: revoking it revokes the earlier one too.
TEST(GrantedReadLeasesTest, ANodeGrantedAgainIsRevokedAtItsLatestGrant) {
  GrantedReadLeases leases;
  leases.Grant("n1", 3, 10, kStart);
  const std::optional<ReadLeaseGrant> later = leases.Grant("n1", 3, 12, kStart + milliseconds(100));
  const std::vector<ReadLeaseHolder> live = leases.TakeLive(kStart + milliseconds(150));
  ASSERT_EQ(live.size(), 1u);
  EXPECT_EQ(live[0].id, later->id);
}

// The holder reads under a lease only while it lasts on its own clock (from when it asked,
// less a margin) and only with the lease's sequence applied.
TEST(HeldReadLeaseTest, CoversAReadOnlyWhileItLastsAndWithItsSequenceApplied) {
  HeldReadLease held;
  EXPECT_FALSE(held.Covers(100, kStart));  // none held
  const ReadLeaseGrant grant{.epoch = 2, .id = 5, .sequence = 40, .length = milliseconds(500)};
  held.Hold(grant, kStart);
  struct Case {
    uint64_t applied;
    LeaseClock::duration at;
    bool covers;
  };
  const Case cases[] = {
      {40, milliseconds(0), true},
      {41, milliseconds(200), true},
      {39, milliseconds(200), false},  // the leader had applied more when it granted
      {40, milliseconds(500) - HeldReadLease::kMargin - milliseconds(1), true},
      {40, milliseconds(500) - HeldReadLease::kMargin, false},  // ended here, before the leader
      {40, milliseconds(600), false},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(held.Covers(c.applied, kStart + c.at), c.covers)
        << "applied " << c.applied << " at " << c.at.count();
  }
}

// A revocation ends the lease it names and every earlier one, even when it overtook the
// grant's answer; a later grant (or a new leader's) is held again.
TEST(HeldReadLeaseTest, ARevocationWinsOverTheGrantItNamesWhicheverCameFirst) {
  HeldReadLease held;
  held.Hold({.epoch = 2, .id = 5, .sequence = 40, .length = milliseconds(500)}, kStart);
  held.Revoke(2, 5);
  EXPECT_FALSE(held.Covers(40, kStart));

  held.Revoke(2, 7);  // overtook grant 7's answer
  held.Hold({.epoch = 2, .id = 6, .sequence = 41, .length = milliseconds(500)}, kStart);
  held.Hold({.epoch = 2, .id = 7, .sequence = 41, .length = milliseconds(500)}, kStart);
  EXPECT_FALSE(held.Covers(41, kStart));

  held.Hold({.epoch = 2, .id = 8, .sequence = 42, .length = milliseconds(500)}, kStart);
  EXPECT_TRUE(held.Covers(42, kStart));
  // An earlier grant's answer arriving late does not replace it.
  held.Hold({.epoch = 2, .id = 6, .sequence = 41, .length = milliseconds(500)}, kStart);
  held.Revoke(2, 7);
  EXPECT_TRUE(held.Covers(42, kStart)) << "grant 8 is not revoked by 7's revocation";

  held.Revoke(2, 8);
  held.Hold({.epoch = 3, .id = 1, .sequence = 50, .length = milliseconds(500)}, kStart);
  EXPECT_TRUE(held.Covers(50, kStart)) << "a new leader's first grant";
}

}  // namespace
}  // namespace strata::cluster
