// CancelWatch: an action runs once, on its condition, and never after its watch is gone.
#include "cluster/cancel_watch.h"

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace strata::cluster {
namespace {

// Waits (up to 5 s) until `done` holds.
bool Eventually(const std::function<bool()>& done) {
  for (auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(5);
       std::chrono::steady_clock::now() < give_up;) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return done();
}

TEST(CancelWatchTest, EachActionRunsOnceWhenItsConditionHolds) {
  CancelWatch watcher;
  std::vector<std::atomic<bool>> cancelled(4);
  std::vector<std::atomic<int>> runs(4);
  std::vector<CancelWatch::Watch> watches;
  for (int i = 0; i < 4; ++i) {
    watches.push_back(watcher.Add([&, i] { return cancelled[i].load(); }, [&, i] { ++runs[i]; }));
  }
  cancelled[1] = true;
  cancelled[3] = true;
  ASSERT_TRUE(Eventually([&] { return runs[1] == 1 && runs[3] == 1; }));
  std::this_thread::sleep_for(5 * CancelWatch::kCheckEvery);  // more looks: no second run
  EXPECT_EQ(runs[0], 0);
  EXPECT_EQ(runs[1], 1);
  EXPECT_EQ(runs[2], 0);
  EXPECT_EQ(runs[3], 1);
}

TEST(CancelWatchTest, NoActionRunsAfterItsWatchIsGone) {
  CancelWatch watcher;
  std::atomic<bool> cancelled{false};
  std::atomic<int> runs{0};
  CancelWatch::Watch watch = watcher.Add([&] { return cancelled.load(); }, [&] { ++runs; });
  CancelWatch::Watch moved = std::move(watch);  // the move carries it
  moved.Reset();
  cancelled = true;
  std::this_thread::sleep_for(5 * CancelWatch::kCheckEvery);
  EXPECT_EQ(runs, 0);
  // A watch added after, on the same flag, runs.
  CancelWatch::Watch again = watcher.Add([&] { return cancelled.load(); }, [&] { ++runs; });
  EXPECT_TRUE(Eventually([&] { return runs == 1; }));
}

}  // namespace
}  // namespace strata::cluster
