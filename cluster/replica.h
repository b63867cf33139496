// Replica: this node's copy of one shard (docs/cluster.md). Every replica — the leader
// included — applies the shard's log in order into the node's engine, storing the applied
// sequence and digest in the same write path (storage/write/writer.h WriteOptions), so a
// restart resumes where it stopped. The leader also publishes: it batches the records
// forwarded to it into one log entry, publishes it fenced by the log's last sequence, and
// answers each caller with what its own replica's apply of that entry decided.
//
// Thread-safety: every public method may be called from any thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <thread>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "cluster/apply_confirmations.h"
#include "cluster/jetstream.h"
#include "cluster/log_entry.h"
#include "cluster/read_leases.h"
#include "storage/engine.h"

namespace strata::cluster {

struct ReplicaState {
  uint64_t applied = 0;  // the last log sequence applied (stored: up to one entry behind)
  uint64_t digest = 0;   // the chain digest at `applied`
};

// The bytes a replica stores its state as (under keys::ReplicaState(shard)); a node that
// drops its replica stores ReplicaState{} so that a later one starts from the log's start.
std::string EncodeReplicaState(const ReplicaState& state);
// Stores `state` as this node's applied state of `shard`, synced, after every write queued
// before it.
absl::Status StoreReplicaState(Engine& engine, uint32_t shard, const ReplicaState& state);
// False when `bytes` are not EncodeReplicaState's.
bool DecodeReplicaState(std::string_view bytes, ReplicaState* state);

class Replica {
 public:
  using WriteDone = std::function<void(absl::StatusOr<WriteResult>)>;
  // Waits until the node's catalog has applied an etcd revision (or the deadline passed).
  using CatalogWait = std::function<bool(int64_t revision, std::chrono::milliseconds wait)>;

  // The shard's log is the stream `stream` on `subject` (LogNames).
  Replica(uint32_t shard, std::string node_id, std::string stream, std::string subject,
          Engine* engine, JetStream* log, CatalogWait catalog_wait);
  // Stops publishing and applying (callers still waiting get UNAVAILABLE).
  ~Replica();

  // With --replica-ack majority (`wait_for_follower`, the same on every node): each replica
  // announces on the plain NATS subject `confirmations` what it applied, and the leader
  // answers a write only once another replica announced the write's entry with the same
  // chain digest there; after `patience` without one, UNAVAILABLE. Call before Start.
  void ConfirmThrough(std::string confirmations, bool wait_for_follower,
                      std::chrono::milliseconds patience);
  // Tests only: waits `delay` before applying each entry (a replica that lags). Call before
  // Start.
  void DelayApplyForTesting(std::chrono::milliseconds delay) { apply_delay_ = delay; }
  // How a leader revokes its shard's live read leases (read_leases.h): returns once each
  // holder forgot its lease or the lease ended. Call before Start; without it no lease is
  // granted.
  using LeaseRevoker = std::function<void(uint32_t shard, std::vector<ReadLeaseHolder> live)>;
  // `length`: of each lease granted (GrantedReadLeases::kLength but in tests).
  void RevokeLeasesWith(LeaseRevoker revoker, std::chrono::milliseconds length) {
    revoker_ = std::move(revoker);
    granted_leases_.set_length(length);
  }
  // Loads the applied state and starts applying the log from there.
  absl::Status Start();
  // Tells its threads to stop without waiting for them (the destructor waits): a node
  // stopping many replicas waits for the slowest, not for their sum.
  void BeginStop();
  // Stops its threads and waits for them: after it, no thread of the replica's own calls
  // what it was given (the catalog wait, the log, the lease revoker), so the node may let
  // those go before the replica itself goes.
  void AwaitStopped();

  uint32_t shard() const { return shard_; }
  const std::string& stream() const { return stream_; }
  const std::string& subject() const { return subject_; }
  ReplicaState state();
  // Blocks until the log is applied up to `sequence`; false after `wait`.
  bool WaitApplied(uint64_t sequence, std::chrono::milliseconds wait);
  // The error that stopped the applier (a gap in the log, a malformed entry), or OK.
  absl::Status health();
  // The applier stopped because the log no longer holds the entries it needs next (trimmed
  // while this replica was away): the node builds the replica again from a peer's checkpoint.
  bool left_behind();
  // A follower read's freshness: the replica has applied every entry the log held at
  // `asked` (a caller saw the log's end then and waited for it to be applied). The latest
  // such instant is kept; the epoch of the steady clock before any.
  void CurrentAsOf(std::chrono::steady_clock::time_point asked);
  std::chrono::steady_clock::time_point current_as_of();

  // Leads the shard at `epoch` (the etcd leader key's create revision): applies the log to
  // its end, publishes a barrier that fences any earlier leader, and serves once it is
  // applied. FAILED_PRECONDITION if another node published first.
  absl::Status Lead(int64_t epoch);
  // Stops leading: queued and later writes fail with FAILED_PRECONDITION; returns once the
  // read leases it granted were revoked (before any other node may lead the shard).
  void StepDown();
  bool leading();
  int64_t epoch();

  // Leading, with every write it acknowledged applied and none queued or under way, and quiet
  // for a while: grants `node` a read lease. The caller checked the node's etcd lease lasts
  // (ShardDirectory::LeadsUnderLease).
  std::optional<ReadLeaseGrant> GrantReadLease(const std::string& node);
  // This replica's lease from its shard's leader, as a holder.
  HeldReadLease& held_read_lease() { return held_lease_; }

  // Since the node started: entries applied, entries refused for landing elsewhere than
  // intended, entries this replica published as leader.
  struct Counts {
    uint64_t applied = 0;
    uint64_t refused = 0;
    uint64_t published = 0;
  };
  Counts counts();

  // Writes one forwarded part of a request (record_codec.h records) through the log; `done`
  // runs with the apply's result, record indices as the records carry them. With `erase`
  // the records name points to delete (a DELETE's): they go alone into an entry, and the
  // result counts the points deleted. FAILED_PRECONDITION when this replica does not lead
  // the shard.
  void Write(std::string database, std::string table, std::string records, int64_t catalog_revision,
             WriteDone done, bool erase = false);

 private:
  struct Submitted {
    LogWrite write;
    int64_t catalog_revision = 0;
    WriteDone done;
    bool erase = false;
  };
  void ApplyLoop();
  void PublishLoop();
  // Records in each write of `entry` the table's windows as this node's catalog has them
  // (LogWrite::windows), once it reached the entry's catalog revision.
  void PinWindows(LogEntry* entry);
  // A replica's announcement "<node> <sequence>": answers the writes it confirms.
  void Confirmed(std::string_view announcement);
  // Answers UNAVAILABLE the writes past their confirmation patience (all, with `everything`).
  void ExpireUnconfirmed(bool everything);
  // Applies one entry; runs `done` once it is durable.
  absl::Status Apply(uint64_t sequence, const std::string& bytes);
  // Applies a deletes entry's points; their results (the points deleted) in `results`.
  void ApplyDeletes(const LogEntry& entry, std::vector<absl::StatusOr<WriteResult>>* results);
  // Applies the stream leader's copy of the entry `message` announced; `read_again` when the
  // consumer's copy differed.
  absl::Status ApplyLeaderCopy(const LogMessage& message, bool* read_again);
  // Applies entry `sequence` as a no-op (`why`: it landed elsewhere than its publisher
  // intended, or does not follow the chain); a leader stops leading until a new barrier.
  absl::Status Refuse(uint64_t sequence, const LogEntry& entry, std::string_view why);
  // Stores `after` as the applied state (synced).
  absl::Status CommitState(const ReplicaState& after);
  // Keeps an applied entry's chain digest, to check announcements against (with
  // --replica-ack majority only).
  void RememberDigest(uint64_t sequence, uint64_t digest) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status Publish(LogEntry entry, std::chrono::milliseconds patience, uint64_t* sequence);
  void FailQueued(const absl::Status& status);
  // Takes the live read leases this replica granted, to revoke (counted in revoking_).
  std::vector<ReadLeaseHolder> TakeLeasesToRevoke() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Revokes leases TakeLeasesToRevoke took.
  void Revoke(std::vector<ReadLeaseHolder> live);

  const uint32_t shard_;
  const std::string node_id_;
  Engine& engine_;
  JetStream& log_;
  const CatalogWait catalog_wait_;
  const std::string stream_;
  const std::string subject_;
  std::chrono::milliseconds apply_delay_{0};

  absl::Mutex mu_;
  absl::CondVar changed_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  ReplicaState state_ ABSL_GUARDED_BY(mu_);
  absl::Status health_ ABSL_GUARDED_BY(mu_);
  bool left_behind_ ABSL_GUARDED_BY(mu_) = false;
  std::chrono::steady_clock::time_point current_as_of_ ABSL_GUARDED_BY(mu_);
  // Leading.
  bool leading_ ABSL_GUARDED_BY(mu_) = false;
  int64_t epoch_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t published_ ABSL_GUARDED_BY(mu_) = 0;         // last sequence this leader published
  uint64_t published_digest_ ABSL_GUARDED_BY(mu_) = 0;  // the chain digest there
  uint64_t next_id_ ABSL_GUARDED_BY(mu_) = 0;
  std::string confirmations_;  // the plain NATS subject of apply announcements ("": none)
  std::unique_ptr<JetStream::Listening> listening_;  // to confirmations_, when waiting
  bool wait_for_follower_ = false;
  std::chrono::milliseconds confirm_patience_{10000};
  struct Unconfirmed {
    uint64_t sequence = 0;
    absl::Time deadline;
    std::vector<WriteDone> dones;
    std::vector<absl::StatusOr<WriteResult>> results;
  };
  std::deque<Unconfirmed> unconfirmed_ ABSL_GUARDED_BY(mu_);  // by sequence
  ApplyConfirmations confirmed_ ABSL_GUARDED_BY(mu_);
  // The unconfirmed writes confirmed_ now covers, taken off the queue.
  std::vector<Unconfirmed> TakeConfirmed() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  static void Answer(std::vector<Unconfirmed> confirmed);
  bool publishing_ ABSL_GUARDED_BY(mu_) = false;  // a PublishLoop publish is under way
  // The barrier Lead published last, and the sequence this replica applied it at (0: not).
  std::string barrier_id_ ABSL_GUARDED_BY(mu_);
  uint64_t barrier_at_ ABSL_GUARDED_BY(mu_) = 0;
  Counts counts_ ABSL_GUARDED_BY(mu_);
  std::deque<Submitted> queue_ ABSL_GUARDED_BY(mu_);
  // Entry id -> the callers of its writes, in order; answered by the apply.
  absl::flat_hash_map<std::string, std::vector<WriteDone>> waiting_ ABSL_GUARDED_BY(mu_);

  LeaseRevoker revoker_;
  GrantedReadLeases granted_leases_ ABSL_GUARDED_BY(mu_);
  // Revocations under way: StepDown returns only once none is (another node may lead then).
  int revoking_ ABSL_GUARDED_BY(mu_) = 0;
  HeldReadLease held_lease_;

  std::thread applier_;
  std::thread publisher_;
};

// The stream and subject of a shard's log in cluster `cluster`: one JetStream stream per
// shard (one Raft group each, so shards' writes spread over the NATS servers, and the
// stream-wide expected sequence fences a deposed leader).
std::string StreamName(std::string_view cluster, uint32_t shard);
std::string SubjectName(std::string_view cluster, uint32_t shard);

}  // namespace strata::cluster
