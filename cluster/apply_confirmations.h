// ApplyConfirmations: what a shard leader under --replica-ack majority knows of the other
// replicas' applies. Each replica announces "<node> <sequence> <digest>" once it applied the
// log to `sequence` with the chain at `digest`; an announcement confirms the entries up to
// its sequence only if this replica's chain had the same digest there (a replica whose log
// differs has not applied these writes). Another replica can apply an entry before its
// leader does: such an announcement is kept and checked when the leader gets there.
//
// Thread-safety: none; the replica calls it under its own mutex.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <utility>

namespace strata::cluster {

class ApplyConfirmations {
 public:
  explicit ApplyConfirmations(uint32_t shard) : shard_(shard) {}

  // This replica applied (or refused) the entry at `sequence`, its chain now at `digest`.
  // Checks the announcements that were ahead of it.
  void Applied(uint64_t sequence, uint64_t digest);
  // Another replica, `node`, announced it applied the log to `sequence` at `digest`.
  void Announced(std::string_view node, uint64_t sequence, uint64_t digest);
  // The highest sequence another replica confirmed (every entry up to it is confirmed).
  uint64_t confirmed() const { return confirmed_; }

 private:
  struct Announcement {
    std::string node;
    uint64_t sequence = 0;
    uint64_t digest = 0;
  };
  void Check(const Announcement& announcement);

  const uint32_t shard_;  // for the log
  uint64_t confirmed_ = 0;
  // (sequence, digest) of the entries this replica applied last, consecutive.
  std::deque<std::pair<uint64_t, uint64_t>> applied_;
  // Announcements of sequences past applied_, in arrival order.
  std::deque<Announcement> ahead_;
};

}  // namespace strata::cluster
