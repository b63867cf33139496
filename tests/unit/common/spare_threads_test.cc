#include "common/spare_threads.h"

#include <atomic>
#include <latch>
#include <set>
#include <thread>

#include "absl/synchronization/blocking_counter.h"
#include "gtest/gtest.h"

namespace strata {
namespace {

// Tasks that wait for each other all run: none waits for a thread.
TEST(SpareThreadsTest, TasksWaitingForEachOtherAllRunAtOnce) {
  SpareThreads threads(2, absl::Seconds(10));
  constexpr int kTasks = 8;
  std::latch arrived(kTasks);
  absl::BlockingCounter done(kTasks);
  for (int i = 0; i < kTasks; ++i) {
    ASSERT_TRUE(threads.Run([&] {
      arrived.arrive_and_wait();  // every task must have started for any to go on
      done.DecrementCount();
    }));
  }
  done.Wait();
}

// A task after another ended runs on the thread that one left idle; idle threads past the
// limit exit, and the rest after their idle time.
TEST(SpareThreadsTest, AnIdleThreadRunsTheNextTaskAndIdleOnesExit) {
  SpareThreads threads(2, absl::Milliseconds(300));
  std::set<std::thread::id> ran_on;
  for (int i = 0; i < 5; ++i) {
    absl::BlockingCounter done(1);
    ASSERT_TRUE(threads.Run([&] {
      ran_on.insert(std::this_thread::get_id());
      done.DecrementCount();
    }));
    done.Wait();
    while (threads.idle() == 0) std::this_thread::yield();  // it is idle again
  }
  EXPECT_EQ(ran_on.size(), 1u);
  EXPECT_EQ(threads.alive(), 1u);

  // Four at once: four threads; two stay idle after, then none.
  std::latch arrived(4);
  absl::BlockingCounter done(4);
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(threads.Run([&] {
      arrived.arrive_and_wait();
      done.DecrementCount();
    }));
  }
  done.Wait();
  while (threads.alive() > 2) std::this_thread::yield();
  EXPECT_EQ(threads.idle(), 2u);
  while (threads.alive() > 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(threads.idle(), 0u);
}

// Destroyed, it waits for running tasks and stops its idle threads.
TEST(SpareThreadsTest, DestroyingWaitsForRunningTasks) {
  std::atomic<bool> finished{false};
  {
    SpareThreads threads(4, absl::Seconds(60));
    ASSERT_TRUE(threads.Run([] {}));
    while (threads.idle() == 0) std::this_thread::yield();
    ASSERT_TRUE(threads.Run([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      finished = true;
    }));  // the idle one
  }
  EXPECT_TRUE(finished.load());
}

// At its cap a task is refused, not queued or run: the caller does the work itself. A thread
// that ended its task takes the next one again.
TEST(SpareThreadsTest, PastItsCapATaskIsRefused) {
  SpareThreads threads(2, absl::Seconds(10), /*max_alive=*/2);
  std::latch release(1);
  absl::BlockingCounter done(2);
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(threads.Run([&] {
      release.wait();
      done.DecrementCount();
    }));
  }
  bool ran = false;
  EXPECT_FALSE(threads.Run([&] { ran = true; }));
  release.count_down();
  done.Wait();
  while (threads.idle() < 2) std::this_thread::yield();
  absl::BlockingCounter again(1);
  EXPECT_TRUE(threads.Run([&] { again.DecrementCount(); }));
  again.Wait();
  EXPECT_FALSE(ran);
  EXPECT_EQ(threads.alive(), 2u);
}

}  // namespace
}  // namespace strata
