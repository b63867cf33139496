// Admission control for queries: a fixed pool of worker threads and a
// bounded queue in front of it. A query waits in the queue for a worker; a
// query that finds the queue full is refused at once (RESOURCE_EXHAUSTED),
// so a burst of clients costs a bounded number of threads and stacks instead
// of one thread per query.
//
// Fair between owners (a token, or a peer with authentication off), so one
// owner's storm of heavy queries cannot starve everyone else:
//   - a free worker takes the oldest queued task of the owner with the
//     fewest tasks running;
//   - one more thread, the reserved lane, takes only a task whose owner has
//     nothing running: another owner's SELECT 1 runs at once even while the
//     storm holds every worker;
//   - an owner with nothing running or queued is admitted past a full queue
//     (up to the queue's capacity once more), so the storm's queue cannot
//     refuse it either.
//
// Workers have a large, fixed stack (kWorkerStackBytes): the SQL front end
// bounds its recursion (query/parse/parser.h limits) and this guarantees the room
// those limits were measured against, whatever the process' ulimit -s says.
//
// Thread-safety: all methods may be called from any thread.
#pragma once

#include <pthread.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"

namespace strata {

class QueryWorkers {
 public:
  static constexpr size_t kWorkerStackBytes = 16 << 20;

  // Starts `workers` threads (at least 1) and the reserved lane; at most
  // `queue_capacity` tasks wait for one (see above for an owner's first).
  QueryWorkers(int workers, int queue_capacity);
  // Runs every task already admitted, then joins the workers.
  ~QueryWorkers();
  QueryWorkers(const QueryWorkers&) = delete;
  QueryWorkers& operator=(const QueryWorkers&) = delete;

  // Queues `owner`'s `task` for a worker; false (and `task` is not kept)
  // when the queue is full. `then` runs after the task, once its worker and
  // its owner's place are given back: where the caller learns that the task
  // ended, so that a next task sent on that news is not refused for this one.
  bool TrySubmit(std::string_view owner, std::function<void()> task,
                 std::function<void()> then = nullptr);

  int workers() const { return workers_; }
  int queue_capacity() const { return queue_capacity_; }
  int running() const;
  int queued() const;
  int64_t refused() const;

 private:
  struct Task {
    std::string owner;
    std::function<void()> run;
    std::function<void()> then;
  };
  struct Start {
    QueryWorkers* workers;
    bool reserved;
  };
  struct Owner {
    int running = 0;
    int queued = 0;
  };

  static void* ThreadMain(void* start);
  void Work(bool reserved);
  // The queued task this worker takes next, or queue_.end(): see above.
  std::deque<Task>::iterator Pick(bool reserved) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  int RunningOf(const std::string& owner) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const int queue_capacity_;
  int workers_ = 0;  // without the reserved lane
  std::vector<pthread_t> threads_;
  std::vector<Start> starts_;
  mutable absl::Mutex mu_;
  std::deque<Task> queue_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, Owner> owners_ ABSL_GUARDED_BY(mu_);
  int running_ ABSL_GUARDED_BY(mu_) = 0;       // the reserved lane's task too
  int busy_workers_ ABSL_GUARDED_BY(mu_) = 0;  // the workers' alone
  int64_t refused_ ABSL_GUARDED_BY(mu_) = 0;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace strata
