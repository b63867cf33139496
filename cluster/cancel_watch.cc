#include "cluster/cancel_watch.h"

#include <utility>

#include "absl/time/time.h"

namespace strata::cluster {

CancelWatch::CancelWatch() : watcher_([this] { Loop(); }) {}

CancelWatch::~CancelWatch() {
  {
    absl::MutexLock lock(&mu_);
    stop_ = true;
  }
  watcher_.join();
}

CancelWatch::Watch::Watch(Watch&& other) noexcept
    : owner_(std::exchange(other.owner_, nullptr)), id_(other.id_) {}

CancelWatch::Watch& CancelWatch::Watch::operator=(Watch&& other) noexcept {
  if (this != &other) {
    Reset();
    owner_ = std::exchange(other.owner_, nullptr);
    id_ = other.id_;
  }
  return *this;
}

void CancelWatch::Watch::Reset() {
  if (owner_ != nullptr) owner_->Remove(id_);
  owner_ = nullptr;
}

CancelWatch::Watch CancelWatch::Add(std::function<bool()> cancelled, std::function<void()> cancel) {
  absl::MutexLock lock(&mu_);
  const uint64_t id = next_id_++;
  entries_.emplace(id, Entry{.cancelled = std::move(cancelled), .cancel = std::move(cancel)});
  return Watch(this, id);
}

// Under mu_, which the watcher holds while it runs an action: no action runs after its
// watch is gone.
void CancelWatch::Remove(uint64_t id) {
  absl::MutexLock lock(&mu_);
  entries_.erase(id);
}

void CancelWatch::Loop() {
  absl::MutexLock lock(&mu_);
  const auto busy = [this]()
                        ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stop_ || !entries_.empty(); };
  while (true) {
    mu_.Await(absl::Condition(&busy));
    if (stop_) return;
    if (mu_.AwaitWithTimeout(absl::Condition(&stop_), absl::FromChrono(kCheckEvery))) return;
    for (auto& [id, entry] : entries_) {
      if (!entry.done && entry.cancelled()) {
        entry.cancel();
        entry.done = true;
      }
    }
  }
}

}  // namespace strata::cluster
