// Slots: at most `count` holders at once; a taker waits for a slot until its deadline. What
// bounds the fragments a node runs for other nodes' queries (shard_service.h).
//
// Thread-safety: every method may be called from any thread.
#pragma once

#include <chrono>
#include <utility>

#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"

namespace strata::cluster {

class Slots {
 public:
  explicit Slots(int count) : free_(count) {}

  // A slot, given back when it goes (or Give), or none. (Not a std::optional of a slot: GCC
  // took the optional's storage for uninitialized in the destructor, -Wmaybe-uninitialized.)
  class Held {
   public:
    Held() = default;
    explicit Held(Slots* slots) : slots_(slots) {}
    Held(Held&& other) noexcept : slots_(std::exchange(other.slots_, nullptr)) {}
    Held& operator=(Held&&) = delete;
    ~Held() { Give(); }

    explicit operator bool() const { return slots_ != nullptr; }
    // The slot back now (nothing when none is held).
    void Give() {
      if (slots_ != nullptr) std::exchange(slots_, nullptr)->GiveBack();
    }

   private:
    Slots* slots_ = nullptr;
  };

  // A slot, waiting until `deadline` for one; none (false) if none came free.
  Held Take(std::chrono::steady_clock::time_point deadline) {
    absl::MutexLock lock(&mu_);
    auto free = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return free_ > 0; };
    const auto now = std::chrono::steady_clock::now();
    const absl::Duration wait =
        deadline > now ? absl::FromChrono(deadline - now) : absl::ZeroDuration();
    if (!mu_.AwaitWithTimeout(absl::Condition(&free), wait)) return Held();
    --free_;
    return Held(this);
  }

  int free() {
    absl::MutexLock lock(&mu_);
    return free_;
  }

 private:
  void GiveBack() {
    absl::MutexLock lock(&mu_);
    ++free_;
  }

  absl::Mutex mu_;
  int free_ ABSL_GUARDED_BY(mu_);
};

}  // namespace strata::cluster
