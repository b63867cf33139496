#include "cluster/apply_confirmations.h"

#include <algorithm>

#include "spdlog/spdlog.h"

namespace strata::cluster {
namespace {

// Applied entries whose digests are kept to check announcements, and announcements kept
// ahead of this replica's applies (the newest: one confirms every entry before it).
constexpr size_t kKept = 4096;

}  // namespace

void ApplyConfirmations::Applied(uint64_t sequence, uint64_t digest) {
  applied_.emplace_back(sequence, digest);
  if (applied_.size() > kKept) applied_.pop_front();
  while (!ahead_.empty() && ahead_.front().sequence <= sequence) {
    Check(ahead_.front());
    ahead_.pop_front();
  }
}

void ApplyConfirmations::Announced(std::string_view node, uint64_t sequence, uint64_t digest) {
  Announcement announcement{std::string(node), sequence, digest};
  if (applied_.empty() || sequence > applied_.back().first) {
    ahead_.push_back(std::move(announcement));
    if (ahead_.size() > kKept) ahead_.pop_front();
    return;
  }
  Check(announcement);
}

void ApplyConfirmations::Check(const Announcement& announcement) {
  // Consecutive sequences (refused entries included): found by its offset.
  if (applied_.empty() || announcement.sequence < applied_.front().first ||
      announcement.sequence > applied_.back().first) {
    return;
  }
  const auto& [sequence, digest] = applied_[announcement.sequence - applied_.front().first];
  if (sequence != announcement.sequence) return;
  if (digest != announcement.digest) {
    spdlog::error(
        "node {} applied the log to {} with digest {}, this replica with {}: their logs "
        "differ",
        announcement.node, sequence, announcement.digest, digest);
    return;
  }
  confirmed_ = std::max(confirmed_, sequence);
}

}  // namespace strata::cluster
