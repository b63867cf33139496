// ReadChoice: how fresh a cluster query's reads must be, and how they fan out
// (docs/cluster.md, "Read choices"). A single node reads its own engine, always current:
// none of it applies there.
#pragma once

#include <chrono>
#include <string_view>

#include "absl/status/statusor.h"

namespace strata::query {

enum class ReadConsistency {
  // Each shard is read at its leader, which applied every write it acknowledged: no wait.
  // Read-your-writes through any node. The default.
  kLeader,
  // Each shard is read at a replica (this node's own when it holds one) once that replica
  // applied its log to where the log ends when the query starts.
  kStrong,
  // Each shard is read at a replica (this node's own when it holds one) that was current at
  // most max_staleness ago; one that was not catches up first, as kStrong.
  kFollower,
};

struct ReadChoice {
  ReadConsistency consistency = ReadConsistency::kLeader;
  // kFollower only (ignored otherwise): how old the data read may be (> 0).
  std::chrono::milliseconds max_staleness{0};
  // Fragments of one table read at once; 0: kMaxConcurrentFragments.
  int max_fragments = 0;
  // A fragment whose node has not begun answering after this long is asked of another node
  // holding its shards too, and the first to answer is read; 0: never.
  std::chrono::milliseconds hedge_after{0};
};

// The longest max_staleness and hedge_after, and the most max_fragments, a query may ask.
inline constexpr std::chrono::milliseconds kMaxReadDelay{3'600'000};
inline constexpr int kMaxFragmentsCap = 64;

// "leader", "strong", "follower" (any case); INVALID_ARGUMENT naming them otherwise.
absl::StatusOr<ReadConsistency> ParseReadConsistency(std::string_view name);
std::string_view ReadConsistencyName(ReadConsistency consistency);
// INVALID_ARGUMENT saying which part is out of range and what it may be.
absl::Status CheckReadChoice(const ReadChoice& choice);

}  // namespace strata::query
