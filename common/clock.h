// The time seam: every component that needs "now" takes a Clock so tests can
// move time (retention, tiering, write windows) without sleeping.
// Thread-safety: all implementations are safe for concurrent use.
#pragma once

#include <atomic>
#include <cstdint>

namespace strata {

constexpr int64_t kNanosPerMicro = 1'000;
constexpr int64_t kNanosPerMilli = 1'000'000;
constexpr int64_t kNanosPerSecond = 1'000'000'000;
constexpr int64_t kNanosPerMinute = 60 * kNanosPerSecond;
constexpr int64_t kNanosPerHour = 60 * kNanosPerMinute;
constexpr int64_t kNanosPerDay = 24 * kNanosPerHour;

class Clock {
 public:
  virtual ~Clock() = default;
  // Nanoseconds since the Unix epoch, UTC.
  virtual int64_t NowNanos() const = 0;
};

// Wall-clock time of the machine.
class SystemClock final : public Clock {
 public:
  int64_t NowNanos() const override;
  // A process-wide instance; never destroyed.
  static SystemClock* Default();
};

// A clock that only moves when told to. For tests.
class ManualClock final : public Clock {
 public:
  explicit ManualClock(int64_t now_nanos) : now_(now_nanos) {}
  int64_t NowNanos() const override { return now_.load(std::memory_order_relaxed); }
  void Set(int64_t now_nanos) { now_.store(now_nanos, std::memory_order_relaxed); }
  void Advance(int64_t nanos) { now_.fetch_add(nanos, std::memory_order_relaxed); }

 private:
  std::atomic<int64_t> now_;
};

// The version of a record written without one (a line of line protocol, a row of SQL's
// INSERT): at least `now_nanos` and above every one handed out in this process, so that the
// last write of a point wins, within one request too.
int64_t NextArrivalVersion(int64_t now_nanos);

}  // namespace strata
