#include "common/clock.h"

#include <algorithm>
#include <atomic>
#include <chrono>

namespace strata {

int64_t SystemClock::NowNanos() const {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

SystemClock* SystemClock::Default() {
  static SystemClock* clock = new SystemClock();
  return clock;
}

int64_t NextArrivalVersion(int64_t now_nanos) {
  static std::atomic<int64_t> last{0};
  int64_t previous = last.load(std::memory_order_relaxed);
  int64_t next;
  do {
    next = std::max(now_nanos, previous + 1);
  } while (!last.compare_exchange_weak(previous, next, std::memory_order_relaxed));
  return next;
}

}  // namespace strata
