// Slots: at most `count` holders at once; a taker waits for a slot until its deadline. What
// bounds the fragments a node runs for other nodes' queries (shard_service.h).
//
// Thread-safety: every method may be called from any thread.
#pragma once

#include <chrono>
#include <optional>
#include <utility>

#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"

namespace strata::cluster {

class Slots {
 public:
  explicit Slots(int count) : free_(count) {}

  // A slot, given back when it goes.
  class Held {
   public:
    explicit Held(Slots* slots) : slots_(slots) {}
    Held(Held&& other) noexcept : slots_(std::exchange(other.slots_, nullptr)) {}
    Held& operator=(Held&&) = delete;
    ~Held() {
      if (slots_ != nullptr) slots_->Give();
    }

   private:
    Slots* slots_;
  };

  // A slot, waiting until `deadline` for one; nullopt if none came free.
  std::optional<Held> Take(std::chrono::steady_clock::time_point deadline) {
    absl::MutexLock lock(&mu_);
    auto free = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return free_ > 0; };
    const auto now = std::chrono::steady_clock::now();
    const absl::Duration wait =
        deadline > now ? absl::FromChrono(deadline - now) : absl::ZeroDuration();
    if (!mu_.AwaitWithTimeout(absl::Condition(&free), wait)) return std::nullopt;
    --free_;
    return Held(this);
  }

  int free() {
    absl::MutexLock lock(&mu_);
    return free_;
  }

 private:
  void Give() {
    absl::MutexLock lock(&mu_);
    ++free_;
  }

  absl::Mutex mu_;
  int free_ ABSL_GUARDED_BY(mu_);
};

}  // namespace strata::cluster
