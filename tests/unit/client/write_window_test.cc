// WriteWindow: how many of an import's requests are in flight while the server refuses some.
#include "client/write_window.h"

#include <atomic>
#include <chrono>
#include <thread>

#include "gtest/gtest.h"

namespace strata::cli {
namespace {

using Outcome = WriteWindow::Outcome;

// Sends `n` requests, all answered the same way, and returns the window after them.
int Answer(WriteWindow& window, int n, bool refused) {
  std::vector<uint64_t> generations;
  for (int i = 0; i < n; ++i) generations.push_back(window.Acquire());
  for (uint64_t g : generations) window.Done(g, refused ? Outcome::kRefused : Outcome::kTaken);
  return window.limit();
}

TEST(WriteWindowTest, RefusalsOfOneWindowShrinkItOnceByAQuarter) {
  WriteWindow window(48);
  // Twenty requests sent under the same window all refused: one shrink, 48 → 36.
  EXPECT_EQ(Answer(window, 20, /*refused=*/true), 36);
  // Sent under the new window and refused again: 36 → 27.
  EXPECT_EQ(Answer(window, 5, true), 27);
}

TEST(WriteWindowTest, AcceptedRequestsGrowItByOneAWindowsWorthUpToTheMost) {
  WriteWindow window(8);
  EXPECT_EQ(Answer(window, 1, true), 6);
  EXPECT_EQ(Answer(window, 5, false), 6);  // fewer than the window: no growth yet
  EXPECT_EQ(Answer(window, 1, false), 7);  // the sixth
  EXPECT_EQ(Answer(window, 7, false), 8);
  EXPECT_EQ(Answer(window, 8, false), 8);  // never past --parallel
}

TEST(WriteWindowTest, ItNeverClosesAndSaysWhenItIsDownToOne) {
  WriteWindow window(3);
  uint64_t g = window.Acquire();
  EXPECT_FALSE(window.Done(g, Outcome::kRefused));  // 3 → 2
  g = window.Acquire();
  EXPECT_TRUE(window.Done(g, Outcome::kRefused));  // 2 → 1: the sender backs off
  g = window.Acquire();
  EXPECT_TRUE(window.Done(g, Outcome::kRefused));  // stays 1
  EXPECT_EQ(window.limit(), 1);
  g = window.Acquire();
  EXPECT_FALSE(window.Done(g, Outcome::kTaken));  // accepted: no back-off
  EXPECT_EQ(window.limit(), 2);
}

// A request the server never answered (away through a restart, sent again) is neither taken
// nor refused: before, it counted as taken and an import riding out a restart grew its window
// on every resend.
TEST(WriteWindowTest, FailedRequestsNeitherGrowNorShrinkIt) {
  WriteWindow window(8);
  EXPECT_EQ(Answer(window, 1, true), 6);
  for (int i = 0; i < 20; ++i) {
    const uint64_t g = window.Acquire();
    EXPECT_FALSE(window.Done(g, Outcome::kFailed));
  }
  EXPECT_EQ(window.limit(), 6);
  EXPECT_EQ(Answer(window, 6, false), 7);  // taken ones still grow it
}

TEST(WriteWindowTest, ASenderWaitsUntilFewerThanTheWindowAreInFlight) {
  WriteWindow window(2);
  const uint64_t first = window.Acquire();
  window.Acquire();
  std::atomic<bool> sent{false};
  std::thread third([&] {
    window.Acquire();
    sent = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(sent.load());  // two in flight, a window of two
  window.Done(first, Outcome::kFailed);
  third.join();
  EXPECT_TRUE(sent.load());
}

}  // namespace
}  // namespace strata::cli
