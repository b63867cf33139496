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
    threads.Run([&] {
      arrived.arrive_and_wait();  // every task must have started for any to go on
      done.DecrementCount();
    });
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
    threads.Run([&] {
      ran_on.insert(std::this_thread::get_id());
      done.DecrementCount();
    });
    done.Wait();
    while (threads.idle() == 0) std::this_thread::yield();  // it is idle again
  }
  EXPECT_EQ(ran_on.size(), 1u);
  EXPECT_EQ(threads.alive(), 1u);

  // Four at once: four threads; two stay idle after, then none.
  std::latch arrived(4);
  absl::BlockingCounter done(4);
  for (int i = 0; i < 4; ++i) {
    threads.Run([&] {
      arrived.arrive_and_wait();
      done.DecrementCount();
    });
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
    threads.Run([] {});
    while (threads.idle() == 0) std::this_thread::yield();
    threads.Run([&] {});  // the idle one
    threads.Run([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      finished = true;
    });
  }
  EXPECT_TRUE(finished.load());
}

}  // namespace
}  // namespace strata
