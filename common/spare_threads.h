// SpareThreads: runs each task at once on a thread of its own, reusing a thread an earlier
// task left idle, so that a task usually costs no thread start (a query's fragments on a
// cluster start a few threads each; a start and an exit cost tens of microseconds of CPU and
// a page of stack faulted in each time).
//
// A task never waits for a thread: with none idle a new one starts. Tasks may therefore wait
// on each other (a query's fragments meet at a gate) without a deadlock. At most `keep_idle`
// threads wait idle, each for `idle_for` at most, then exit. At most `max_alive` run at once:
// past it, or when the process cannot start a thread (common/start_thread.h), Run refuses the
// task and the caller does the work on a thread it has.
//
// Thread-safety: Run may be called from any thread. The shared instance lives until the
// process ends (its idle threads are detached).
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace strata {

class SpareThreads {
 public:
  SpareThreads(size_t keep_idle, absl::Duration idle_for, size_t max_alive = 512)
      : keep_idle_(keep_idle), idle_for_(idle_for), max_alive_(max_alive) {}
  // Waits until every thread it started has exited: its tasks must end.
  ~SpareThreads();
  SpareThreads(const SpareThreads&) = delete;
  SpareThreads& operator=(const SpareThreads&) = delete;

  // The process's own: 16 idle threads kept for 10 s each, 512 at most.
  static SpareThreads& Shared();

  // Runs `task` on an idle thread or a new one; false (the task dropped, not run) when
  // `max_alive` threads run already or no thread could start.
  [[nodiscard]] bool Run(std::function<void()> task);

  // Threads idle now, and threads alive (running a task or idle).
  size_t idle() const;
  size_t alive() const;

 private:
  struct Worker {
    std::function<void()> task;
    bool given = false;  // a task waits in `task`
  };
  void Loop(Worker* self);

  const size_t keep_idle_;
  const absl::Duration idle_for_;
  const size_t max_alive_;
  mutable absl::Mutex mu_;
  std::vector<Worker*> idle_ ABSL_GUARDED_BY(mu_);
  size_t alive_ ABSL_GUARDED_BY(mu_) = 0;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace strata
