// Admission control for queries: a fixed pool of worker threads and a
// bounded queue in front of it. A query waits in the queue for a worker; a
// query that finds the queue full is refused at once (RESOURCE_EXHAUSTED),
// so a burst of clients costs a bounded number of threads and stacks instead
// of one thread per query.
//
// Workers have a large, fixed stack (kWorkerStackBytes): the SQL front end
// bounds its recursion (query/parser.h limits) and this guarantees the room
// those limits were measured against, whatever the process' ulimit -s says.
//
// Thread-safety: all methods may be called from any thread.
#pragma once

#include <pthread.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace strata {

class QueryWorkers {
 public:
  static constexpr size_t kWorkerStackBytes = 16 << 20;

  // Starts `workers` threads (at least 1); at most `queue_capacity` tasks
  // wait for one.
  QueryWorkers(int workers, int queue_capacity);
  // Runs every task already admitted, then joins the workers.
  ~QueryWorkers();
  QueryWorkers(const QueryWorkers&) = delete;
  QueryWorkers& operator=(const QueryWorkers&) = delete;

  // Queues `task` for a worker; false (and `task` is not kept) when the
  // queue is full.
  bool TrySubmit(std::function<void()> task);

  int workers() const { return static_cast<int>(threads_.size()); }
  int queue_capacity() const { return queue_capacity_; }
  int running() const;
  int queued() const;
  int64_t refused() const;

 private:
  static void* ThreadMain(void* self);
  void Work();

  const int queue_capacity_;
  std::vector<pthread_t> threads_;
  mutable absl::Mutex mu_;
  std::deque<std::function<void()>> queue_ ABSL_GUARDED_BY(mu_);
  int running_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t refused_ ABSL_GUARDED_BY(mu_) = 0;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace strata
