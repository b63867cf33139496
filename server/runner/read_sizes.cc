#include "server/runner/read_sizes.h"

namespace strata {

bool ReadSizes::Small(const std::string& shape) const {
  if (!remembers()) return false;
  absl::MutexLock lock(&mu_);
  auto it = small_.find(shape);
  return it != small_.end() && it->second;
}

void ReadSizes::Record(const std::string& shape, int64_t rows_scanned) {
  if (!remembers()) return;
  const bool small = rows_scanned <= small_rows_;
  absl::MutexLock lock(&mu_);
  auto it = small_.find(shape);
  if (it != small_.end()) {
    it->second = small;
    return;
  }
  if (small_.size() >= kMaxShapes) small_.clear();
  small_.emplace(shape, small);
}

}  // namespace strata
