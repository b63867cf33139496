#include "cluster/slots.h"

#include <thread>

#include "gtest/gtest.h"

namespace strata::cluster {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

TEST(SlotsTest, AtMostCountAtOnceAndAWaiterGetsTheFirstGivenBack) {
  Slots slots(2);
  Slots::Held a = slots.Take(steady_clock::now());
  Slots::Held b = slots.Take(steady_clock::now());
  ASSERT_TRUE(a && b);
  EXPECT_EQ(slots.free(), 0);
  // None free: refused once the deadline passed.
  EXPECT_FALSE(slots.Take(steady_clock::now() + milliseconds(20)));
  // One given back while a taker waits: it gets it.
  std::thread give([&] {
    std::this_thread::sleep_for(milliseconds(50));
    a.Give();
  });
  Slots::Held c = slots.Take(steady_clock::now() + std::chrono::seconds(30));
  give.join();
  EXPECT_TRUE(c);
  EXPECT_EQ(slots.free(), 0);
  b.Give();
  c.Give();
  EXPECT_EQ(slots.free(), 2);
}

}  // namespace
}  // namespace strata::cluster
