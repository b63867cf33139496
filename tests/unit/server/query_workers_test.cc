#include "server/query_workers.h"

#include <atomic>

#include "absl/synchronization/notification.h"
#include "gtest/gtest.h"
#include "query/memory_budget.h"

namespace strata {
namespace {

TEST(QueryWorkersTest, AdmitsWorkersPlusQueueThenRefusesUntilOneEnds) {
  QueryWorkers workers(/*workers=*/2, /*queue_capacity=*/1);
  absl::Notification release;
  std::atomic<int> ran{0};
  auto blocking = [&] {
    release.WaitForNotification();
    ++ran;
  };
  EXPECT_TRUE(workers.TrySubmit(blocking));
  EXPECT_TRUE(workers.TrySubmit(blocking));
  EXPECT_TRUE(workers.TrySubmit(blocking));   // waits in the queue
  EXPECT_FALSE(workers.TrySubmit(blocking));  // two running, one waiting: full
  EXPECT_EQ(workers.refused(), 1);
  release.Notify();
  while (ran.load() < 3) absl::SleepFor(absl::Milliseconds(1));
  EXPECT_TRUE(workers.TrySubmit([&] { ++ran; }));
}

TEST(QueryWorkersTest, RunsWhatWasAdmittedBeforeItIsDestroyed) {
  std::atomic<int> ran{0};
  {
    QueryWorkers workers(1, 8);
    for (int i = 0; i < 8; ++i) ASSERT_TRUE(workers.TrySubmit([&] { ++ran; }));
  }
  EXPECT_EQ(ran.load(), 8);
}

TEST(QueryWorkersTest, WorkersHaveTheirStack) {
  QueryWorkers workers(1, 0);
  absl::Notification done;
  size_t stack = 0;
  ASSERT_TRUE(workers.TrySubmit([&] {
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
