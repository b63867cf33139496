#include "server/runner/query_workers.h"

#include <atomic>

#include "absl/cleanup/cleanup.h"
#include "absl/synchronization/notification.h"
#include "gtest/gtest.h"
#include "query/base/memory_budget.h"

namespace strata {
namespace {

TEST(QueryWorkersTest, AdmitsWorkersPlusQueueThenRefusesUntilOneEnds) {
  absl::Notification release;
  std::atomic<int> ran{0};
  // Declared after what its tasks touch, so it goes first and waits for them: the last task
  // may still be running when the test ends (AddressSanitizer saw it write `ran` gone).
  QueryWorkers workers(/*workers=*/2, /*queue_capacity=*/1);
  auto blocking = [&] {
    release.WaitForNotification();
    ++ran;
  };
  EXPECT_TRUE(workers.TrySubmit("owner", blocking));
  EXPECT_TRUE(workers.TrySubmit("owner", blocking));
  EXPECT_TRUE(workers.TrySubmit("owner", blocking));   // waits in the queue
  EXPECT_FALSE(workers.TrySubmit("owner", blocking));  // two running, one waiting: full
  EXPECT_EQ(workers.refused(), 1);
  release.Notify();
  while (ran.load() < 3) absl::SleepFor(absl::Milliseconds(1));
  EXPECT_TRUE(workers.TrySubmit("owner", [&] { ++ran; }));
}

// A caller told in `then` that its task ended may send the next one at once: with one
// worker and no queue, it is refused if the ended task still held the worker.
TEST(QueryWorkersTest, TheNextTaskSentOnTheNewsOfTheLastIsAdmitted) {
  QueryWorkers workers(/*workers=*/1, /*queue_capacity=*/0);
  for (int i = 0; i < 20; ++i) {
    absl::Notification told, next_ended;
    std::atomic<bool> next_admitted{false};
    ASSERT_TRUE(workers.TrySubmit(
        "owner", [] {},
        [&] {
          next_admitted = workers.TrySubmit("owner", [] {}, [&] { next_ended.Notify(); });
          told.Notify();
        }));
    told.WaitForNotification();
    ASSERT_TRUE(next_admitted.load()) << i;
    next_ended.WaitForNotification();
  }
}

// One owner's storm holds the worker and fills the queue: another owner is
// still admitted, and runs at once on the reserved lane.
TEST(QueryWorkersTest, AnotherOwnerGetsThroughAStormOnTheReservedLane) {
  absl::Notification release;
  absl::Notification other_release;
  QueryWorkers workers(/*workers=*/1, /*queue_capacity=*/2);
  // A failed ASSERT returns with the storm still holding the worker: let it go before the
  // workers end (they wait for what runs), or the failure shows as a timeout.
  absl::Cleanup let_go = [&] {
    if (!release.HasBeenNotified()) release.Notify();
    if (!other_release.HasBeenNotified()) other_release.Notify();
  };
  std::atomic<int> storm_ran{0};
  auto heavy = [&] {
    release.WaitForNotification();
    ++storm_ran;
  };
  ASSERT_TRUE(workers.TrySubmit("storm", heavy));
  while (workers.running() < 1) absl::SleepFor(absl::Milliseconds(1));
  ASSERT_TRUE(workers.TrySubmit("storm", heavy));
  ASSERT_TRUE(workers.TrySubmit("storm", heavy));
  EXPECT_FALSE(workers.TrySubmit("storm", heavy));  // its share of the queue is full

  absl::Notification small_ran;
  ASSERT_TRUE(workers.TrySubmit("other", [&] { small_ran.Notify(); }));
  EXPECT_TRUE(small_ran.WaitForNotificationWithTimeout(absl::Seconds(30)));
  EXPECT_EQ(storm_ran.load(), 0);  // it ran while the storm still held the worker
  // Until the lane's task has returned: "other" counts as running until then, and its next
  // task would wait for the worker (CI: a timeout when it was submitted before).
  while (workers.running() > 1) absl::SleepFor(absl::Milliseconds(1));

  // The lane takes only an owner running nothing: the storm's own queued
  // tasks wait for the worker.
  ASSERT_TRUE(workers.TrySubmit("other", [&] { other_release.WaitForNotification(); }));
  while (workers.running() < 2) absl::SleepFor(absl::Milliseconds(1));
  EXPECT_EQ(workers.queued(), 2);
  other_release.Notify();
  release.Notify();
  while (storm_ran.load() < 3) absl::SleepFor(absl::Milliseconds(1));
}

TEST(QueryWorkersTest, RunsWhatWasAdmittedBeforeItIsDestroyed) {
  std::atomic<int> ran{0};
  {
    QueryWorkers workers(1, 8);
    for (int i = 0; i < 8; ++i) ASSERT_TRUE(workers.TrySubmit("owner", [&] { ++ran; }));
  }
  EXPECT_EQ(ran.load(), 8);
}

TEST(QueryWorkersTest, WorkersHaveTheirStack) {
  QueryWorkers workers(1, 0);
  absl::Notification done;
  size_t stack = 0;
  ASSERT_TRUE(workers.TrySubmit("owner", [&] {
    pthread_attr_t attr;
    pthread_getattr_np(pthread_self(), &attr);
    pthread_attr_getstacksize(&attr, &stack);
    pthread_attr_destroy(&attr);
    done.Notify();
  }));
  done.WaitForNotification();
  EXPECT_GE(stack, QueryWorkers::kWorkerStackBytes);
}

TEST(MemoryBudgetTest, RefusesPastTheLimitAndTakesNothingThen) {
  query::MemoryBudget budget(100);
  EXPECT_TRUE(budget.Reserve(60, "a").ok());
  absl::Status refused = budget.Reserve(50, "grouping");
  EXPECT_EQ(refused.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(refused.message().find("grouping"), std::string::npos);
  EXPECT_EQ(budget.used(), 60);
  EXPECT_EQ(budget.refusals(), 1);
  budget.Release(60);
  EXPECT_TRUE(budget.Reserve(100, "a").ok());
}

}  // namespace
}  // namespace strata
