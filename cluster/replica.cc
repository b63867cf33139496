#include "cluster/replica.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <charconv>
#include <utility>

#include "absl/synchronization/blocking_counter.h"
#include "absl/synchronization/notification.h"
#include "cluster/record_codec.h"
#include "common/coding.h"
#include "common/strings.h"
#include "storage/kv/keys.h"
#include "storage/rows/series_key.h"

namespace strata::cluster {
namespace {

using std::chrono::milliseconds;

constexpr milliseconds kPublishTimeout{5000};
// How long a leader keeps retrying a publish whose outcome is unknown (NATS failing over
// takes ~5 s) before it answers UNAVAILABLE.
constexpr milliseconds kPublishPatience{12000};
// How long the applier waits without a message before it asks whether the log moved on.
constexpr absl::Duration kStallCheck = absl::Seconds(2);
constexpr size_t kMaxEntryBytes = 4 << 20;  // under the stream's 8 MB message limit
// An entry's bytes besides its writes' records: its header and id, and each write's names
// and windows (LoggedBytes).
constexpr size_t kEntryHeadroom = 1024;
constexpr size_t kMaxEntryWrites = 512;

// What a write adds to its log entry (log_entry.h): its records, names and windows, each
// length or value a varint of at most 10 bytes.
size_t LoggedBytes(const LogWrite& write) {
  return write.records.size() + write.database.size() + write.table.size() + 8 * 10;
}

// Errors of a write that another replica, applying the same entry, would not meet: the
// entry must be applied again rather than its outcome kept.
bool IsTransient(const absl::Status& status) {
  return absl::IsInternal(status) || absl::IsUnavailable(status) ||
         absl::IsResourceExhausted(status) || absl::IsDataLoss(status) || absl::IsAborted(status) ||
         absl::IsUnknown(status);
}

}  // namespace

std::string EncodeReplicaState(const ReplicaState& state) {
  std::string out;
  PutFixed64BE(&out, state.applied);
  PutFixed64BE(&out, state.digest);
  return out;
}

absl::Status StoreReplicaState(Engine& engine, uint32_t shard, const ReplicaState& state) {
  WriteOptions options{.must_apply = true};
  options.catalog_puts.emplace_back(keys::ReplicaState(shard), EncodeReplicaState(state));
  absl::Notification done;
  absl::Status status;
  engine.writer().CommitAsync(std::move(options), [&](absl::StatusOr<WriteResult> result) {
    status = result.status();
    done.Notify();
  });
  done.WaitForNotification();
  return status;
}

bool DecodeReplicaState(std::string_view bytes, ReplicaState* state) {
  Decoder in(bytes);
  return in.GetFixed64BE(&state->applied) && in.GetFixed64BE(&state->digest);
}

std::string StreamName(std::string_view cluster, uint32_t shard) {
  return StrCat("STRATA_", cluster, "_S", shard);
}
std::string SubjectName(std::string_view cluster, uint32_t shard) {
  return StrCat("strata.", cluster, ".wal.", shard);
}

Replica::Replica(uint32_t shard, std::string node_id, std::string stream, std::string subject,
                 Engine* engine, JetStream* log, CatalogWait catalog_wait)
    : shard_(shard),
      node_id_(std::move(node_id)),
      engine_(*engine),
      log_(*log),
      catalog_wait_(std::move(catalog_wait)),
      stream_(std::move(stream)),
      subject_(std::move(subject)),
      confirmed_(shard) {}

void Replica::BeginStop() {
  absl::MutexLock lock(&mu_);
  stopping_ = true;
  changed_.SignalAll();
}

void Replica::AwaitStopped() {
  BeginStop();
  if (publisher_.joinable()) publisher_.join();
  if (applier_.joinable()) applier_.join();
}

Replica::~Replica() {
  listening_.reset();  // no confirmation arrives once this goes
  AwaitStopped();
  FailQueued(absl::UnavailableError("the node is shutting down; retry through another node"));
  ExpireUnconfirmed(true);
}

void Replica::ConfirmThrough(std::string confirmations, bool wait_for_follower,
                             milliseconds patience) {
  confirmations_ = std::move(confirmations);
  wait_for_follower_ = wait_for_follower;
  confirm_patience_ = patience;
}

void Replica::Confirmed(std::string_view announcement) {
  // "<node> <sequence> <digest>": that node's replica applied the log to `sequence` with
  // the chain at `digest`. Only the same digest as this replica's confirms: a replica whose
  // log differs (NATS serving it other entries) has not applied these writes.
  std::vector<std::string_view> words;
  for (size_t from = 0; from <= announcement.size();) {
    const size_t space = std::min(announcement.find(' ', from), announcement.size());
    words.push_back(announcement.substr(from, space - from));
    from = space + 1;
  }
  uint64_t sequence = 0, digest = 0;
  if (words.size() != 3 || words[0] == node_id_ ||
      std::from_chars(words[1].data(), words[1].data() + words[1].size(), sequence).ec !=
          std::errc() ||
      std::from_chars(words[2].data(), words[2].data() + words[2].size(), digest).ec !=
          std::errc()) {
    return;
  }
  std::vector<Unconfirmed> answered;
  {
    absl::MutexLock lock(&mu_);
    confirmed_.Announced(words[0], sequence, digest);
    answered = TakeConfirmed();
  }
  Answer(std::move(answered));
}

std::vector<Replica::Unconfirmed> Replica::TakeConfirmed() {
  std::vector<Unconfirmed> confirmed;
  while (!unconfirmed_.empty() && unconfirmed_.front().sequence <= confirmed_.confirmed()) {
    confirmed.push_back(std::move(unconfirmed_.front()));
    unconfirmed_.pop_front();
  }
  return confirmed;
}

void Replica::Answer(std::vector<Unconfirmed> confirmed) {
  for (Unconfirmed& u : confirmed) {
    for (size_t i = 0; i < u.dones.size() && i < u.results.size(); ++i) {
      u.dones[i](std::move(u.results[i]));
    }
  }
}

void Replica::ExpireUnconfirmed(bool everything) {
  std::vector<Unconfirmed> expired;
  {
    absl::MutexLock lock(&mu_);
    const absl::Time now = absl::Now();
    while (!unconfirmed_.empty() && (everything || unconfirmed_.front().deadline < now)) {
      expired.push_back(std::move(unconfirmed_.front()));
      unconfirmed_.pop_front();
    }
  }
  for (Unconfirmed& u : expired) {
    for (WriteDone& done : u.dones) {
      done(absl::UnavailableError(
          StrCat("shard ", shard_,
                 ": the leader applied the write but no other replica "
                 "confirmed it in time (--replica-ack majority); retrying is safe")));
    }
  }
}

absl::Status Replica::Start() {
  ASSIGN_OR_RETURN(std::optional<std::string> stored,
                   engine_.ReadCatalogEntry(keys::ReplicaState(shard_)));
  if (stored.has_value()) {
    ReplicaState state;
    if (!DecodeReplicaState(*stored, &state)) {
      return absl::DataLossError(StrCat("shard ", shard_, "'s applied state is malformed"));
    }
    absl::MutexLock lock(&mu_);
    state_ = state;
  }
  if (!confirmations_.empty() && wait_for_follower_) {
    ASSIGN_OR_RETURN(listening_, log_.Listen(confirmations_,
                                             [this](std::string_view data) { Confirmed(data); }));
  }
  applier_ = std::thread([this] { ApplyLoop(); });
  publisher_ = std::thread([this] { PublishLoop(); });
  return absl::OkStatus();
}

ReplicaState Replica::state() {
  absl::MutexLock lock(&mu_);
  return state_;
}

absl::Status Replica::health() {
  absl::MutexLock lock(&mu_);
  return health_;
}

bool Replica::left_behind() {
  absl::MutexLock lock(&mu_);
  return left_behind_;
}

void Replica::CurrentAsOf(std::chrono::steady_clock::time_point asked) {
  absl::MutexLock lock(&mu_);
  current_as_of_ = std::max(current_as_of_, asked);
}

std::chrono::steady_clock::time_point Replica::current_as_of() {
  absl::MutexLock lock(&mu_);
  return current_as_of_;
}

bool Replica::WaitApplied(uint64_t sequence, milliseconds wait) {
  const absl::Time deadline = absl::Now() + absl::FromChrono(wait);
  absl::MutexLock lock(&mu_);
  while (state_.applied < sequence && !stopping_ && health_.ok()) {
    if (changed_.WaitWithDeadline(&mu_, deadline)) break;
  }
  return state_.applied >= sequence;
}

bool Replica::leading() {
  absl::MutexLock lock(&mu_);
  return leading_;
}

int64_t Replica::epoch() {
  absl::MutexLock lock(&mu_);
  return epoch_;
}

Replica::Counts Replica::counts() {
  absl::MutexLock lock(&mu_);
  return counts_;
}

void Replica::ApplyLoop() {
  while (true) {
    uint64_t from = 0;
    {
      absl::MutexLock lock(&mu_);
      if (stopping_) return;
      from = state_.applied + 1;
    }
    auto reader = log_.Read(stream_, subject_, from);
    if (!reader.ok()) {
      spdlog::warn("shard {}: {}", shard_, reader.status().message());
      absl::MutexLock lock(&mu_);
      changed_.WaitWithTimeout(&mu_, absl::Milliseconds(500));
      continue;
    }
    absl::Time idle_since = absl::Now();
    while (true) {
      {
        absl::MutexLock lock(&mu_);
        if (stopping_) return;
      }
      if (wait_for_follower_) ExpireUnconfirmed(false);
      auto next = (*reader)->Next(milliseconds(200));
      absl::Status status = next.status();
      bool read_again = false;
      if (status.ok() && next->has_value()) {
        if (apply_delay_.count() > 0) {
          absl::MutexLock lock(&mu_);
          if (!stopping_) changed_.WaitWithTimeout(&mu_, absl::FromChrono(apply_delay_));
        }
        status = ApplyLeaderCopy(**next, &read_again);
        idle_since = absl::Now();
      } else if (status.ok() && absl::Now() - idle_since > kStallCheck) {
        // An ordered consumer can go quiet after its NATS server restarts, without an error:
        // when the log holds more than this replica applied, read it again.
        idle_since = absl::Now();
        auto last = log_.LastSequence(stream_, kPublishTimeout);
        if (last.ok() && *last > state().applied) {
          spdlog::warn("shard {}: the log reader stalled at {} of {}; reading again", shard_,
                       state().applied, *last);
          break;
        }
      }
      if (status.ok() && !read_again) continue;
      if (status.ok()) break;  // from a consumer on another NATS server
      if (absl::IsOutOfRange(status)) {
        // The consumer skipped entries: gone from the stream (purged), or only from the copy
        // of the NATS server it reads (a restarted one catching up). The stream leader tells.
        auto missing = log_.LeaderCopy(stream_, state().applied + 1, kPublishTimeout);
        if (missing.ok() && !missing->has_value()) {
          status = absl::DataLossError(StrCat(status.message(),
                                              ": entries this replica needs were trimmed; it is "
                                              "rebuilt from a peer's checkpoint"));
          absl::MutexLock lock(&mu_);
          left_behind_ = true;
        }
      }
      if (absl::IsDataLoss(status)) {
        // A gap or a broken chain: applying on would diverge from the other replicas.
        spdlog::error("shard {}: replica stopped: {}", shard_, status.message());
        absl::MutexLock lock(&mu_);
        health_ = status;
        leading_ = false;  // a replica that cannot apply must not publish
        changed_.SignalAll();
        for (auto& [id, dones] : waiting_) {
          for (auto& done : dones) done(absl::UnavailableError(status.message()));
        }
        waiting_.clear();
        return;
      }
      spdlog::warn("shard {}: {}; reading the log again from the last applied entry", shard_,
                   status.message());
      absl::MutexLock lock(&mu_);
      changed_.WaitWithTimeout(&mu_, absl::Milliseconds(500));
      break;
    }
  }
}

absl::Status Replica::ApplyLeaderCopy(const LogMessage& message, bool* read_again) {
  // The ordered consumer reads the copy of whichever NATS server the consumer was placed on,
  // which may lag or, after NATS lost and regained its quorum, hold another entry at this
  // sequence (seen with 2.9.10: replicas then applied different entries at one sequence). The
  // stream leader's copy is the log: that is what every replica applies. The consumer sends
  // only the entry's size (headers only: the bytes would come twice); a size unlike the
  // leader's tells of such a server, and the replica moves to another consumer. One of the
  // same size goes unnoticed there, but is not applied either.
  ASSIGN_OR_RETURN(std::optional<std::string> leader,
                   log_.LeaderCopy(stream_, message.sequence, kPublishTimeout));
  if (!leader.has_value()) {
    return absl::UnavailableError(
        StrCat("shard ", shard_, "'s stream leader has no entry ", message.sequence, " yet"));
  }
  if (leader->size() != message.size) {
    spdlog::warn(
        "shard {}: a NATS server served entry {} of another size than the stream leader's copy; "
        "applying the leader's and reading from another consumer",
        shard_, message.sequence);
    *read_again = true;
  }
  return Apply(message.sequence, *leader);
}

absl::Status Replica::Refuse(uint64_t sequence, const LogEntry& entry, std::string_view why) {
  // Every replica has the same entries before this one, so every replica refuses it alike;
  // the chain stays as it was.
  spdlog::warn("shard {}: entry {} ({}) refused: {}", shard_, sequence, entry.id, why);
  const ReplicaState after{sequence, state().digest};
  RETURN_IF_ERROR(CommitState(after));
  absl::flat_hash_map<std::string, std::vector<WriteDone>> waiting;
  std::vector<Unconfirmed> confirmed;  // earlier writes an announcement ahead now confirms
  {
    absl::MutexLock lock(&mu_);
    state_ = after;
    ++counts_.refused;
    RememberDigest(sequence, after.digest);
    confirmed = TakeConfirmed();
    if (leading_) {
      // Refused or not its own, the entry says this leader's view of the log (where it ends,
      // its digest) may be wrong: it leads again only after a barrier from what it applied.
      leading_ = false;
      waiting.swap(waiting_);
    } else if (auto it = waiting_.find(entry.id); it != waiting_.end()) {
      waiting.emplace(it->first, std::move(it->second));
      waiting_.erase(it);
    }
    changed_.SignalAll();
  }
  Answer(std::move(confirmed));
  const absl::Status retry = absl::UnavailableError(
      StrCat("shard ", shard_,
             ": the write did not enter the log (its leader's view of the log "
             "was stale); retry"));
  for (auto& [id, dones] : waiting) {
    for (WriteDone& done : dones) done(retry);
  }
  FailQueued(retry);
  return absl::OkStatus();
}

void Replica::RememberDigest(uint64_t sequence, uint64_t digest) {
  if (!wait_for_follower_) return;
  confirmed_.Applied(sequence, digest);
}

absl::Status Replica::CommitState(const ReplicaState& after) {
  return StoreReplicaState(engine_, shard_, after);
}

absl::Status Replica::Apply(uint64_t sequence, const std::string& bytes) {
  ASSIGN_OR_RETURN(LogEntry entry, DecodeLogEntry(bytes));
  if (entry.intended_sequence != 0 && entry.intended_sequence != sequence) {
    return Refuse(sequence, entry,
                  StrCat("its publisher meant it for sequence ", entry.intended_sequence));
  }
  ReplicaState before = state();
  if (entry.previous_digest != before.digest) {
    return Refuse(sequence, entry,
                  StrCat("it follows digest ", entry.previous_digest, " but the log's entries to ",
                         before.applied, " have digest ", before.digest,
                         ": its publisher's view of the log was not the log"));
  }
  if (entry.catalog_revision > 0 && !catalog_wait_(entry.catalog_revision, milliseconds(5000))) {
    return absl::UnavailableError(
        StrCat("the catalog has not reached etcd revision ", entry.catalog_revision, " yet"));
  }
  const ReplicaState after{sequence, ChainDigest(before.digest, bytes)};
  std::vector<absl::StatusOr<WriteResult>> results(entry.writes.size());
  // A deletion's points go first and at once (each bucket's delete is one write, with the
  // store's durability); the writes of earlier entries are all applied by now.
  if (entry.kind == LogEntry::kDeletes) ApplyDeletes(entry, &results);
  absl::Status marker;
  {
    const size_t writes = entry.kind == LogEntry::kWrites ? entry.writes.size() : 0;
    absl::BlockingCounter pending(static_cast<int>(writes) + 1);
    std::vector<std::vector<IndexedRecord>> records(writes);
    for (size_t i = 0; i < writes; ++i) {
      const LogWrite& w = entry.writes[i];
      auto decoded = DecodeRecords(w.records);
      if (!decoded.ok()) {
        results[i] = decoded.status();
        pending.DecrementCount();
        continue;
      }
      records[i] = std::move(*decoded);
      NormalizedWriteSource source(w.database, w.table, &records[i]);
      engine_.writer().WriteAsync(source,
                                  WriteOptions{.now_nanos = entry.leader_nanos,
                                               .must_apply = true,
                                               .windows = w.windows},
                                  [&, i](absl::StatusOr<WriteResult> result) {
                                    if (result.ok()) {
                                      for (RejectedRecord& r : result->rejected) {
                                        r.record_index = records[i][r.record_index].index;
                                      }
                                    }
                                    results[i] = std::move(result);
                                    pending.DecrementCount();
                                  });
    }
    // The stored state lags the applied one by an entry: `before` is durable (every write of
    // its entries answered OK), this entry's writes are not yet, and a write of theirs that
    // fails must not leave a marker saying they are. After a crash the last entry is applied
    // again, which the version rules make a no-op.
    WriteOptions applied{.must_apply = true};
    applied.catalog_puts.emplace_back(keys::ReplicaState(shard_), EncodeReplicaState(before));
    engine_.writer().CommitAsync(std::move(applied), [&](absl::StatusOr<WriteResult> result) {
      marker = result.status();
      pending.DecrementCount();
    });
    pending.Wait();
  }
  RETURN_IF_ERROR(marker);
  for (const auto& r : results) {
    if (!r.ok() && IsTransient(r.status())) return r.status();
  }
  spdlog::debug("shard {}: applied entry {} ({}), digest {}", shard_, sequence, entry.id,
                after.digest);
  if (wait_for_follower_) {
    // Lost if NATS is down: a leader waiting for it answers UNAVAILABLE after its patience.
    log_.Announce(confirmations_, StrCat(node_id_, " ", sequence, " ", after.digest)).IgnoreError();
  }
  std::vector<WriteDone> dones;
  std::vector<Unconfirmed> confirmed;  // earlier writes an announcement ahead now confirms
  {
    absl::MutexLock lock(&mu_);
    state_ = after;
    ++counts_.applied;
    if (entry.kind == LogEntry::kBarrier && entry.id == barrier_id_) barrier_at_ = sequence;
    RememberDigest(sequence, after.digest);
    changed_.SignalAll();
    confirmed = TakeConfirmed();
    if (auto it = waiting_.find(entry.id); it != waiting_.end()) {
      dones = std::move(it->second);
      waiting_.erase(it);
    }
    if (!dones.empty() && wait_for_follower_ && confirmed_.confirmed() < sequence) {
      unconfirmed_.push_back({.sequence = sequence,
                              .deadline = absl::Now() + absl::FromChrono(confirm_patience_),
                              .dones = std::move(dones),
                              .results = std::move(results)});
      dones.clear();
    }
  }
  Answer(std::move(confirmed));
  for (size_t i = 0; i < dones.size() && i < results.size(); ++i) dones[i](std::move(results[i]));
  return absl::OkStatus();
}

absl::Status Replica::Publish(LogEntry entry, milliseconds patience, uint64_t* sequence) {
  uint64_t expected = 0;
  {
    absl::MutexLock lock(&mu_);
    expected = published_;
    entry.previous_digest = published_digest_;
  }
  entry.intended_sequence = expected + 1;
  const std::string bytes = EncodeLogEntry(entry);
  const absl::Time deadline = absl::Now() + absl::FromChrono(patience);
  while (true) {
    auto ack = log_.Publish(subject_, bytes, expected, entry.id, kPublishTimeout);
    if (ack.ok() && ack->sequence != expected + 1) {
      // A duplicate of a message id published earlier, which NATS answers with that
      // publish's sequence whatever the log holds after it: where the log ends is unknown.
      return absl::FailedPreconditionError(StrCat("entry ", entry.id,
                                                  " was already in the log at sequence ",
                                                  ack->sequence, ", not at ", expected + 1));
    }
    if (ack.ok()) {
      *sequence = ack->sequence;
      absl::MutexLock lock(&mu_);
      published_ = ack->sequence;
      ++counts_.published;
      published_digest_ = ChainDigest(entry.previous_digest, bytes);
      return absl::OkStatus();
    }
    if (!absl::IsUnavailable(ack.status()) || absl::Now() > deadline) return ack.status();
    absl::MutexLock lock(&mu_);
    if (stopping_) return ack.status();
    changed_.WaitWithTimeout(&mu_, absl::Milliseconds(200));
  }
}

absl::Status Replica::Lead(int64_t epoch) {
  {
    absl::MutexLock lock(&mu_);
    leading_ = false;
    epoch_ = epoch;
    // A publish still under way would move the view of the log this takes below.
    mu_.Await(absl::Condition(
        +[](Replica* r)
             ABSL_EXCLUSIVE_LOCKS_REQUIRED(r->mu_) { return !r->publishing_ || r->stopping_; },
        this));
  }
  ASSIGN_OR_RETURN(uint64_t last, log_.LastSequence(stream_, kPublishTimeout));
  if (last == 0) {
    // The C client cannot expect sequence 0 (0 is "no expectation"): a new log starts with a
    // genesis barrier whose message id makes it one however many nodes race to write it.
    LogEntry genesis{.kind = LogEntry::kBarrier, .id = StrCat("genesis-", shard_)};
    uint64_t sequence = 0;
    RETURN_IF_ERROR(Publish(std::move(genesis), kPublishPatience, &sequence));
    last = sequence;
  }
  if (!WaitApplied(last, milliseconds(30000))) {
    return absl::UnavailableError(StrCat("shard ", shard_,
                                         ": this replica did not apply the log "
                                         "to sequence ",
                                         last, " in time to lead"));
  }
  {
    absl::MutexLock lock(&mu_);
    published_ = state_.applied;
    published_digest_ = state_.digest;
  }
  // Its own message id each time: a barrier retried under one id after a failed attempt
  // would be answered as the earlier one's duplicate.
  LogEntry barrier{
      .kind = LogEntry::kBarrier, .epoch = epoch, .leader_nanos = engine_.clock().NowNanos()};
  {
    absl::MutexLock lock(&mu_);
    barrier.id = StrCat(node_id_, "-", shard_, "-", epoch, "-barrier-", next_id_++);
    barrier_id_ = barrier.id;
    barrier_at_ = 0;
  }
  uint64_t sequence = 0;
  RETURN_IF_ERROR(Publish(std::move(barrier), kPublishPatience, &sequence));
  if (!WaitApplied(sequence, milliseconds(30000))) {
    return absl::UnavailableError(StrCat("shard ", shard_, ": the barrier was not applied"));
  }
  absl::MutexLock lock(&mu_);
  // NATS's acknowledgement is not trusted alone: this replica applied the barrier, at the
  // sequence NATS named (seen once: an acknowledgement naming the sequence another entry
  // held, while NATS regained its quorum).
  if (barrier_at_ != sequence) {
    published_ = state_.applied;
    published_digest_ = state_.digest;
    return absl::AbortedError(StrCat("shard ", shard_, ": NATS acknowledged the barrier at ",
                                     sequence, " but this replica did not apply it there"));
  }
  if (epoch_ != epoch) return absl::AbortedError("stepped down while taking the lead");
  leading_ = true;
  changed_.SignalAll();
  return absl::OkStatus();
}

void Replica::StepDown() {
  std::vector<ReadLeaseHolder> live;
  {
    absl::MutexLock lock(&mu_);
    leading_ = false;
    epoch_ = 0;
    live = TakeLeasesToRevoke();
  }
  FailQueued(absl::FailedPreconditionError(StrCat("this node no longer leads shard ", shard_)));
  Revoke(std::move(live));
  // A write's revocation may still be under way (its leases taken before this looked).
  absl::MutexLock lock(&mu_);
  mu_.Await(absl::Condition(
      +[](int* revoking) { return *revoking == 0; }, &revoking_));
}

std::vector<ReadLeaseHolder> Replica::TakeLeasesToRevoke() {
  ++revoking_;
  return granted_leases_.TakeLive(LeaseClock::now());
}

std::optional<ReadLeaseGrant> Replica::GrantReadLease(const std::string& node) {
  absl::MutexLock lock(&mu_);
  if (!revoker_ || !leading_ || stopping_ || publishing_ || !queue_.empty() || !waiting_.empty()) {
    return std::nullopt;
  }
  return granted_leases_.Grant(node, epoch_, state_.applied, LeaseClock::now());
}

void Replica::Revoke(std::vector<ReadLeaseHolder> live) {
  if (!live.empty()) revoker_(shard_, std::move(live));
  absl::MutexLock lock(&mu_);
  --revoking_;
}

void Replica::FailQueued(const absl::Status& status) {
  std::deque<Submitted> queued;
  {
    absl::MutexLock lock(&mu_);
    queued.swap(queue_);
  }
  for (Submitted& s : queued) s.done(status);
}

void Replica::ApplyDeletes(const LogEntry& entry,
                           std::vector<absl::StatusOr<WriteResult>>* results) {
  for (size_t i = 0; i < entry.writes.size(); ++i) {
    const LogWrite& w = entry.writes[i];
    (*results)[i] = [&]() -> absl::StatusOr<WriteResult> {
      ASSIGN_OR_RETURN(std::vector<IndexedRecord> points, DecodeRecords(w.records));
      ASSIGN_OR_RETURN(std::shared_ptr<const TableInfo> table,
                       engine_.catalog().FindTable(w.database, w.table));
      ASSIGN_OR_RETURN(std::shared_ptr<TableState> state, engine_.TableStateOf(*table));
      // The series by key: this node numbered them its own way. One this replica never saw
      // has nothing to delete here, on every replica alike.
      std::vector<PointToDelete> found;
      found.reserve(points.size());
      for (const IndexedRecord& p : points) {
        const std::optional<uint64_t> id = state->FindSeries(SeriesKeyView::Of(p.record));
        if (!id) continue;
        found.push_back({.pk_hash = PartitionHash(p.record.measure_name, p.record.dimensions,
                                                  table->partition_key),
                         .series = *id,
                         .time_nanos = p.record.time_nanos});
      }
      ASSIGN_OR_RETURN(int64_t deleted, engine_.Delete(*table, std::move(found)));
      return WriteResult{.deleted = deleted};
    }();
  }
}

void Replica::Write(std::string database, std::string table, std::string records,
                    int64_t catalog_revision, WriteDone done, bool erase) {
  if (absl::Status admitted = engine_.writer().CheckAdmission(); !admitted.ok()) {
    done(admitted);
    return;
  }
  {
    absl::MutexLock lock(&mu_);
    if (leading_ && !stopping_) {
      granted_leases_.Wrote(LeaseClock::now());
      queue_.push_back({LogWrite{std::move(database), std::move(table), std::move(records)},
                        catalog_revision, std::move(done), erase});
      changed_.SignalAll();
      return;
    }
  }
  done(absl::FailedPreconditionError(StrCat("this node does not lead shard ", shard_)));
}

void Replica::PinWindows(LogEntry* entry) {
  if (entry->kind != LogEntry::kWrites) return;
  // The catalog the writes were validated against (or a later one): what the tables' windows
  // are for them. Every replica, this one too, judges the records' times by what is logged.
  if (entry->catalog_revision > 0) {
    catalog_wait_(entry->catalog_revision, milliseconds(5000));
  }
  for (LogWrite& w : entry->writes) {
    absl::StatusOr<std::shared_ptr<const TableInfo>> table =
        engine_.catalog().FindTable(w.database, w.table);
    if (table.ok()) w.windows = (*table)->windows();
  }
}

void Replica::PublishLoop() {
  while (true) {
    LogEntry entry{.kind = LogEntry::kWrites};
    std::vector<WriteDone> dones;
    std::vector<ReadLeaseHolder> live;
    {
      absl::MutexLock lock(&mu_);
      while (!stopping_ && (!leading_ || queue_.empty())) changed_.Wait(&mu_);
      if (stopping_) return;
      // A deletion is an entry of its own: it applies after the writes before it, entire.
      if (queue_.front().erase) entry.kind = LogEntry::kDeletes;
      // An entry is one NATS message: within the server's max_payload, whatever the writes
      // queued (a write alone over it is refused below, and the shard still led).
      const size_t most = std::min(kMaxEntryBytes, log_.max_payload());
      const size_t budget = most > kEntryHeadroom ? most - kEntryHeadroom : 0;
      size_t bytes = 0;
      while (!queue_.empty() && entry.writes.size() < kMaxEntryWrites &&
             (entry.writes.empty() || (entry.kind == LogEntry::kWrites && !queue_.front().erase &&
                                       bytes + LoggedBytes(queue_.front().write) <= budget))) {
        Submitted& s = queue_.front();
        bytes += LoggedBytes(s.write);
        entry.catalog_revision = std::max(entry.catalog_revision, s.catalog_revision);
        entry.writes.push_back(std::move(s.write));
        dones.push_back(std::move(s.done));
        queue_.pop_front();
      }
      entry.epoch = epoch_;
      entry.leader_nanos = engine_.clock().NowNanos();
      entry.id = StrCat(node_id_, "-", shard_, "-", epoch_, "-", next_id_++);
      waiting_[entry.id] = std::move(dones);
      publishing_ = true;
      live = TakeLeasesToRevoke();
    }
    // No holder of a lease may read without this write once it is acknowledged.
    Revoke(std::move(live));
    PinWindows(&entry);
    const std::string id = entry.id;
    uint64_t sequence = 0;
    absl::Status published = Publish(std::move(entry), kPublishPatience, &sequence);
    {
      absl::MutexLock lock(&mu_);
      publishing_ = false;
      changed_.SignalAll();
    }
    if (published.ok()) continue;
    {
      absl::MutexLock lock(&mu_);
      if (auto it = waiting_.find(id); it != waiting_.end()) {
        dones = std::move(it->second);
        waiting_.erase(it);
      }
    }
    if (absl::IsResourceExhausted(published)) {
      // Too large to send: nothing reached the log, which this node still leads. Sent again
      // it would be refused again (not RESOURCE_EXHAUSTED, which clients retry).
      const absl::Status refused = absl::InvalidArgumentError(
          StrCat("shard ", shard_, ": ", published.message(),
                 "; nothing of it was written. Send fewer records per request, or raise "
                 "max_payload in the NATS servers' configuration"));
      for (WriteDone& done : dones) done(refused);
      continue;
    }
    const absl::Status answer =
        absl::IsFailedPrecondition(published)
            ? absl::FailedPreconditionError(StrCat("shard ", shard_, ": ", published.message()))
            : absl::UnavailableError(StrCat("shard ", shard_, ": ", published.message()));
    for (WriteDone& done : dones) done(answer);
    // Fenced, or the log's end is unknown: lead again only after a new barrier.
    spdlog::warn("shard {}: stepping down: {}", shard_, published.message());
    StepDown();
  }
}

}  // namespace strata::cluster
