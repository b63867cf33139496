#include "query/base/read_choice.h"

#include "absl/strings/ascii.h"
#include "common/strings.h"

namespace strata::query {

absl::StatusOr<ReadConsistency> ParseReadConsistency(std::string_view name) {
  const std::string lower = absl::AsciiStrToLower(std::string(name));
  if (lower == "leader") return ReadConsistency::kLeader;
  if (lower == "strong") return ReadConsistency::kStrong;
  if (lower == "follower") return ReadConsistency::kFollower;
  return absl::InvalidArgumentError(
      StrCat("unknown read consistency \"", name, "\"; use leader, strong or follower"));
}

std::string_view ReadConsistencyName(ReadConsistency consistency) {
  switch (consistency) {
    case ReadConsistency::kLeader:
      return "leader";
    case ReadConsistency::kStrong:
      return "strong";
    case ReadConsistency::kFollower:
      return "follower";
  }
  return "leader";
}

absl::Status CheckReadChoice(const ReadChoice& choice) {
  if (choice.consistency == ReadConsistency::kFollower &&
      (choice.max_staleness <= std::chrono::milliseconds::zero() ||
       choice.max_staleness > kMaxReadDelay)) {
    return absl::InvalidArgumentError(StrCat("a follower read needs a max staleness from 1 ms to ",
                                             kMaxReadDelay.count(), " ms; it was ",
                                             choice.max_staleness.count(), " ms"));
  }
  if (choice.max_fragments < 0 || choice.max_fragments > kMaxFragmentsCap) {
    return absl::InvalidArgumentError(StrCat("max fragments must be from 0 (the default) to ",
                                             kMaxFragmentsCap, "; it was ", choice.max_fragments));
  }
  if (choice.hedge_after < std::chrono::milliseconds::zero() ||
      choice.hedge_after > kMaxReadDelay) {
    return absl::InvalidArgumentError(StrCat("hedge after must be from 0 (never) to ",
                                             kMaxReadDelay.count(), " ms; it was ",
                                             choice.hedge_after.count(), " ms"));
  }
  return absl::OkStatus();
}

}  // namespace strata::query
