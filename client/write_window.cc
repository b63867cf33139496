#include "client/write_window.h"

#include <algorithm>

namespace strata::cli {

WriteWindow::WriteWindow(int most) : most_(std::max(1, most)), limit_(most_) {}

uint64_t WriteWindow::Acquire() {
  std::unique_lock lock(mu_);
  below_limit_.wait(lock, [this] { return in_flight_ < limit_; });
  ++in_flight_;
  return generation_;
}

bool WriteWindow::Done(uint64_t generation, Outcome outcome) {
  std::lock_guard lock(mu_);
  --in_flight_;
  const bool refused = outcome == Outcome::kRefused;
  if (refused) {
    if (generation == generation_) {
      limit_ = std::max(1, limit_ - std::max(1, limit_ / 4));
      accepted_ = 0;
      ++generation_;
    }
  } else if (outcome == Outcome::kTaken && ++accepted_ >= limit_ && limit_ < most_) {
    ++limit_;
    accepted_ = 0;
  }
  below_limit_.notify_all();
  return refused && limit_ == 1;
}

int WriteWindow::limit() const {
  std::lock_guard lock(mu_);
  return limit_;
}

}  // namespace strata::cli
