#include "common/spare_threads.h"

#include <algorithm>
#include <thread>

#include "common/start_thread.h"

namespace strata {

SpareThreads::~SpareThreads() {
  absl::MutexLock lock(&mu_);
  stopping_ = true;
  for (Worker* w : idle_) w->given = true;  // wakes them: an empty task means exit
  idle_.clear();
  auto none = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return alive_ == 0; };
  mu_.Await(absl::Condition(&none));
}

SpareThreads& SpareThreads::Shared() {
  static SpareThreads* shared = new SpareThreads(16, absl::Seconds(10));  // never destroyed
  return *shared;
}

bool SpareThreads::Run(std::function<void()> task) {
  {
    absl::MutexLock lock(&mu_);
    if (!idle_.empty()) {
      Worker* w = idle_.back();
      idle_.pop_back();
      w->task = std::move(task);
      w->given = true;
      return true;
    }
    if (alive_ >= max_alive_) return false;
    ++alive_;
  }
  auto* w = new Worker{.task = std::move(task), .given = true};
  absl::StatusOr<std::thread> started = StartThread("a spare thread", [this, w] { Loop(w); });
  if (!started.ok()) {
    delete w;
    absl::MutexLock lock(&mu_);
    --alive_;
    return false;
  }
  started->detach();
  return true;
}

void SpareThreads::Loop(Worker* self) {
  std::function<void()> task = std::move(self->task);
  while (task) {
    task();
    task = nullptr;  // what the task holds goes before the thread idles
    absl::MutexLock lock(&mu_);
    if (stopping_ || idle_.size() >= keep_idle_) break;
    self->given = false;
    idle_.push_back(self);
    if (!mu_.AwaitWithTimeout(absl::Condition(&self->given), idle_for_)) {
      idle_.erase(std::find(idle_.begin(), idle_.end(), self));
      break;
    }
    task = std::move(self->task);  // empty when stopping
  }
  delete self;
  absl::MutexLock lock(&mu_);
  --alive_;
}

size_t SpareThreads::idle() const {
  absl::MutexLock lock(&mu_);
  return idle_.size();
}

size_t SpareThreads::alive() const {
  absl::MutexLock lock(&mu_);
  return alive_;
}

}  // namespace strata
