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
#include <string_view>
#include <utility>

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

// What one holder (a result kept beyond its query) took from a budget, given
// back when the holder goes, however it goes. Not thread-safe: one owner.
class MemoryReservation {
 public:
  MemoryReservation() = default;
  explicit MemoryReservation(MemoryBudget* budget) : budget_(budget) {}
  MemoryReservation(MemoryReservation&& other) noexcept
      : budget_(other.budget_), bytes_(std::exchange(other.bytes_, 0)) {}
  MemoryReservation& operator=(MemoryReservation&& other) noexcept {
    if (this != &other) {
      Reset();
      budget_ = other.budget_;
      bytes_ = std::exchange(other.bytes_, 0);
    }
    return *this;
  }
  ~MemoryReservation() { Reset(); }

  // Takes `bytes` more (from the budget, when there is one), or fails as
  // MemoryBudget::Reserve does and takes nothing.
  absl::Status Grow(int64_t bytes, std::string_view what) {
    if (budget_ != nullptr) {
      if (absl::Status s = budget_->Reserve(bytes, what); !s.ok()) return s;
    }
    bytes_ += bytes;
    return absl::OkStatus();
  }
  // Gives everything back.
  void Reset() {
    if (budget_ != nullptr && bytes_ > 0) budget_->Release(bytes_);
    bytes_ = 0;
  }
  int64_t bytes() const { return bytes_; }

 private:
  MemoryBudget* budget_ = nullptr;
  int64_t bytes_ = 0;
};

}  // namespace strata::query
