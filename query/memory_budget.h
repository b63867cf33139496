// The server-wide memory budget that every query reserves from, on top of
// its own --query-memory-mb: without it, 64 queries each under their own
// limit together took 4 GB and the kernel killed the server. A reservation
// that would pass the budget fails with RESOURCE_EXHAUSTED instead.
//
// Thread-safety: every method may be called from any thread (atomics, no
// lock: queries reserve as their groups and pages grow).
#pragma once

#include <atomic>
#include <cstdint>

#include "absl/status/status.h"

namespace strata::query {

class MemoryBudget {
 public:
  explicit MemoryBudget(int64_t limit_bytes) : limit_(limit_bytes) {}

  // Takes `bytes` from the budget, or RESOURCE_EXHAUSTED (and takes nothing)
  // when the budget cannot hold them. `what` names the use in the message.
  absl::Status Reserve(int64_t bytes, std::string_view what);
  // Gives back what a successful Reserve took.
  void Release(int64_t bytes) { used_.fetch_sub(bytes, std::memory_order_relaxed); }

  int64_t limit() const { return limit_; }
  int64_t used() const { return used_.load(std::memory_order_relaxed); }
  // Reservations refused so far.
  int64_t refusals() const { return refusals_.load(std::memory_order_relaxed); }

 private:
  const int64_t limit_;
  std::atomic<int64_t> used_{0};
  std::atomic<int64_t> refusals_{0};
};

}  // namespace strata::query
