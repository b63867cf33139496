// Read leases (docs/cluster.md, "Read leases"): a shard's leader promises a node holding a
// replica of it that it will acknowledge no write before that node has heard of it, so that
// for the lease's length a small leader read there needs no question: a replica that had
// applied the leader's sequence at the grant holds every write acknowledged before the read.
// The idea is that of quorum leases (Moraru, Andersen, Kaminsky, "Paxos Quorum Leases", SoCC
// 2014), kept to the leader's side of a log that NATS replicates:
//
// - The leader grants only when the shard is quiet (no write arrived for `quiet`, none queued
//   or in flight), so a write load keeps asking as before instead of revoking at every write.
// - Before it publishes a write (and before it stops leading) the leader revokes every live
//   lease: a call to each holder, which forgets its lease before it answers; a holder that
//   does not answer is waited out (a lease lasts `length`, half a second).
// - A lease ends on the holder's clock before it ends on the leader's: its length counts from
//   when the holder asked, minus a margin for the clocks' rates. The leader grants only while
//   its etcd lease lasts a second more (ShardDirectory::LeadsUnderLease), so no other node
//   can lead the shard before every lease it granted ended.
// - A revocation names the grant it revokes (its epoch and number): one that overtakes the
//   grant's answer on the way still wins.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"

namespace strata::cluster {

using LeaseClock = std::chrono::steady_clock;

// A grant, as the leader answers it (ShardState.read_lease_*).
struct ReadLeaseGrant {
  int64_t epoch = 0;      // the leader's
  uint64_t id = 0;        // increasing within the leader's replica
  uint64_t sequence = 0;  // what the leader had applied when it granted
  std::chrono::milliseconds length{0};
};

// A lease to revoke: its holder, the grant, and when it ends on the leader's clock.
struct ReadLeaseHolder {
  std::string node;
  int64_t epoch = 0;
  uint64_t id = 0;
  LeaseClock::time_point until;
};

// The leader's side: the leases granted. Not thread-safe (the replica guards it).
class GrantedReadLeases {
 public:
  static constexpr std::chrono::milliseconds kLength{500};

  // Tests only: a longer lease, to test revocations (which a lease's end would hide).
  void set_length(std::chrono::milliseconds length) { length_ = length; }
  static constexpr std::chrono::milliseconds kQuiet{1000};

  // A write arrived at `now`: no grant for kQuiet.
  void Wrote(LeaseClock::time_point now) { last_write_ = now; }
  // Grants `node` a lease from `now` at `sequence`, unless a write arrived within kQuiet.
  std::optional<ReadLeaseGrant> Grant(const std::string& node, int64_t epoch, uint64_t sequence,
                                      LeaseClock::time_point now);
  // The leases still live at `now`, forgotten here: the caller revokes them.
  std::vector<ReadLeaseHolder> TakeLive(LeaseClock::time_point now);

 private:
  std::chrono::milliseconds length_ = kLength;
  std::optional<LeaseClock::time_point> last_write_;
  uint64_t next_id_ = 1;
  absl::flat_hash_map<std::string, ReadLeaseHolder> live_;  // by node: its latest grant
};

// The holder's side: a replica's lease on its shard. Thread-safe.
class HeldReadLease {
 public:
  // What the holder takes off a lease's length for the two clocks' rates.
  static constexpr std::chrono::milliseconds kMargin{50};

  // Holds `grant`, asked for at `asked`, unless a revocation of it (or of a later grant)
  // came first.
  void Hold(const ReadLeaseGrant& grant, LeaseClock::time_point asked);
  // The leader revokes grant `id` of `epoch` and every one before it.
  void Revoke(int64_t epoch, uint64_t id);
  // Whether a read of a replica that had applied `applied` before `now` holds every write
  // acknowledged before `now`: a lease is live and its sequence applied.
  bool Covers(uint64_t applied, LeaseClock::time_point now) const;

 private:
  mutable absl::Mutex mu_;
  std::optional<ReadLeaseGrant> held_ ABSL_GUARDED_BY(mu_);
  LeaseClock::time_point until_ ABSL_GUARDED_BY(mu_);
  std::pair<int64_t, uint64_t> revoked_ ABSL_GUARDED_BY(mu_){0, 0};  // (epoch, id), highest
};

}  // namespace strata::cluster
