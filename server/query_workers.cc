#include "server/query_workers.h"

#include <algorithm>
#include <cstdlib>

#include "spdlog/spdlog.h"

namespace strata {

QueryWorkers::QueryWorkers(int workers, int queue_capacity)
    : queue_capacity_(std::max(0, queue_capacity)) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, kWorkerStackBytes);
  for (int i = 0; i < std::max(1, workers); ++i) {
    pthread_t thread;
    if (int err = pthread_create(&thread, &attr, &QueryWorkers::ThreadMain, this); err != 0) {
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

bool QueryWorkers::TrySubmit(std::function<void()> task) {
  absl::MutexLock lock(&mu_);
  // A free worker takes the task at once; otherwise it waits in the queue.
  const int idle = static_cast<int>(threads_.size()) - running_;
  if (static_cast<int>(queue_.size()) >= idle + queue_capacity_) {
    ++refused_;
    return false;
  }
  queue_.push_back(std::move(task));
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

void* QueryWorkers::ThreadMain(void* self) {
  static_cast<QueryWorkers*>(self)->Work();
  return nullptr;
}

void QueryWorkers::Work() {
  while (true) {
    std::function<void()> task;
    {
      absl::MutexLock lock(&mu_);
      auto ready = [this]()
                       ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stopping_ || !queue_.empty(); };
      mu_.Await(absl::Condition(&ready));
      if (queue_.empty()) return;  // stopping, nothing left to run
      task = std::move(queue_.front());
      queue_.pop_front();
      ++running_;
    }
    task();
    absl::MutexLock lock(&mu_);
    --running_;
  }
}

}  // namespace strata
