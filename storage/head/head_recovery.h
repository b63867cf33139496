// Rebuilding the memory head at open (docs/storage.md "Memory head"): the
// head lives in memory only, so the engine replays its log (storage/head/head_log.h)
// after the store opens, and before anything reads or writes.
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "storage/head/memory_head.h"
#include "storage/kv/store.h"

namespace strata {

// Moves rows an older version left in the `hot` family into the head's log,
// then replays the log into a new head. DATA_LOSS for a malformed entry.
absl::StatusOr<std::unique_ptr<MemoryHead>> RecoverMemoryHead(Store& store);

}  // namespace strata
