#include "common/process_setup.h"

#include "absl/synchronization/mutex.h"

namespace strata {

void SkipMutexDeadlockDetection() {
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
}

}  // namespace strata
