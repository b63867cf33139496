// What each read statement's shape (query/parse/statement_shape.h) scanned the last time it
// ran, as far as "little" goes: a cluster node reads a small leader read on its own replicas
// instead of fanning it out to the shards' leaders (docs/cluster.md, "A small leader read"),
// and a statement's size is known only once it ran. The first run of a shape fans out.
//
// Thread-safety: all methods may be called from any thread.
#pragma once

#include <cstdint>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"

namespace strata {

class ReadSizes {
 public:
  // A statement is small when its last run scanned at most `small_rows` rows (0: none is).
  explicit ReadSizes(int64_t small_rows) : small_rows_(small_rows) {}

  // Whether any statement can be small (`small_rows` > 0): else shapes need not be taken.
  bool remembers() const { return small_rows_ > 0; }
  // Whether `shape`'s last run was small; false for a shape not run yet.
  bool Small(const std::string& shape) const;
  // `shape` ran and scanned `rows_scanned` rows (its fragments' too).
  void Record(const std::string& shape, int64_t rows_scanned);

  // Shapes remembered at most; past it, all are forgotten and learnt again.
  static constexpr size_t kMaxShapes = 4096;

 private:
  const int64_t small_rows_;
  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, bool> small_ ABSL_GUARDED_BY(mu_);
};

}  // namespace strata
