#include "server/runner/query_workers.h"

#include <algorithm>
#include <cstdlib>

#include "spdlog/spdlog.h"

namespace strata {

QueryWorkers::QueryWorkers(int workers, int queue_capacity)
    : queue_capacity_(std::max(0, queue_capacity)), workers_(std::max(1, workers)) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, kWorkerStackBytes);
  starts_.reserve(workers_ + 1);  // the threads hold pointers into it
  for (int i = 0; i <= workers_; ++i) {
    starts_.push_back({.workers = this, .reserved = i == workers_});
    pthread_t thread;
    if (int err = pthread_create(&thread, &attr, &QueryWorkers::ThreadMain, &starts_.back());
        err != 0) {
      // Without threads no query could ever run: fail loudly at start-up.
      spdlog::critical("cannot start query worker thread: error {}", err);
      std::abort();
    }
    threads_.push_back(thread);
  }
  pthread_attr_destroy(&attr);
}

QueryWorkers::~QueryWorkers() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  for (pthread_t thread : threads_) pthread_join(thread, nullptr);
}

bool QueryWorkers::TrySubmit(std::string_view owner, std::function<void()> task,
                             std::function<void()> then) {
  absl::MutexLock lock(&mu_);
  Owner& entry = owners_[std::string(owner)];
  // A free worker takes the task at once; otherwise it waits in the queue.
  const int idle = workers_ - busy_workers_;
  const int queued = static_cast<int>(queue_.size());
  const bool newcomer = entry.running == 0 && entry.queued == 0;
  if (queued >= idle + queue_capacity_ && !(newcomer && queued < idle + 2 * queue_capacity_ + 1)) {
    if (newcomer) owners_.erase(std::string(owner));
    ++refused_;
    return false;
  }
  ++entry.queued;
  queue_.push_back({std::string(owner), std::move(task), std::move(then)});
  return true;
}

int QueryWorkers::running() const {
  absl::MutexLock lock(&mu_);
  return running_;
}

int QueryWorkers::queued() const {
  absl::MutexLock lock(&mu_);
  return static_cast<int>(queue_.size());
}

int64_t QueryWorkers::refused() const {
  absl::MutexLock lock(&mu_);
  return refused_;
}

void* QueryWorkers::ThreadMain(void* start) {
  const Start& s = *static_cast<Start*>(start);
  s.workers->Work(s.reserved);
  return nullptr;
}

int QueryWorkers::RunningOf(const std::string& owner) const {
  auto it = owners_.find(owner);
  return it == owners_.end() ? 0 : it->second.running;
}

std::deque<QueryWorkers::Task>::iterator QueryWorkers::Pick(bool reserved) {
  auto best = queue_.end();
  int fewest = 0;
  for (auto it = queue_.begin(); it != queue_.end(); ++it) {
    const int running = RunningOf(it->owner);
    // The lane is for when the workers are all taken.
    if (reserved && (running > 0 || busy_workers_ < workers_)) continue;
    if (best == queue_.end() || running < fewest) {
      best = it;
      fewest = running;
      if (running == 0) break;  // the oldest of an owner running nothing
    }
  }
  return best;
}

void QueryWorkers::Work(bool reserved) {
  while (true) {
    Task task;
    {
      absl::MutexLock lock(&mu_);
      auto ready = [this, reserved]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return (stopping_ && queue_.empty()) || Pick(reserved) != queue_.end();
      };
      mu_.Await(absl::Condition(&ready));
      auto picked = Pick(reserved);
      if (picked == queue_.end()) return;  // stopping, nothing left to run
      task = std::move(*picked);
      queue_.erase(picked);
      Owner& owner = owners_[task.owner];
      --owner.queued;
      ++owner.running;
      ++running_;
      if (!reserved) ++busy_workers_;
    }
    task.run();
    {
      absl::MutexLock lock(&mu_);
      --running_;
      if (!reserved) --busy_workers_;
      auto owner = owners_.find(task.owner);
      if (--owner->second.running == 0 && owner->second.queued == 0) owners_.erase(owner);
    }
    if (task.then) task.then();
  }
}

}  // namespace strata
