// Writer: WriteRecords with Timestream's semantics (docs/storage.md,
// "Write path").
//
// Records are merged, validated and routed to a tier on the caller's thread.
// Then each request joins a queue; the writer's committer thread takes the
// queued requests as one group and resolves them in queue order (measure
// types, series registration, version rules against what is stored and
// what earlier requests of the group wrote) into one RocksDB WriteBatch with
// one sync. So concurrent requests end as some serial order gives, every
// request's accepted records land atomically, and concurrent writers share
// an fsync (group commit). Callers need not wait (WriteAsync): gRPC's
// handlers do not, so no handler thread sits in a sync.
//
// Thread-safety: Write and WriteAsync may be called from any number of
// threads.
#pragma once

#include <atomic>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "common/clock.h"
#include "storage/catalog/catalog.h"
#include "storage/head/memory_head.h"
#include "storage/kv/store.h"
#include "storage/read/table_state.h"
#include "storage/rows/write_types.h"
#include "storage/write/write_source.h"

namespace strata {

// How a write is applied, beyond its records (cluster/: a replica applying its shard log).
struct WriteOptions {
  // The time the write is judged at (the memory and magnetic stores' windows, the future
  // limit); 0: the writer's clock. A replica applies a shard log entry at its leader's time,
  // so every replica takes the same decisions whatever its own clock says.
  int64_t now_nanos = 0;
  // Refused neither for a full queue nor for the memory budget: a replica must apply what
  // its log committed (its leader refused before publishing).
  bool must_apply = false;
  // Rows copied from another replica of their shard (cluster/checkpoint.h): each was
  // accepted once, so a row older than the memory store goes in as a magnetic-store write
  // whatever the table allows now (its memory store may have grown past rows once outside
  // it, which stay outside: TableInfo::memory_store_floor_nanos). The retention and the
  // future limit still refuse.
  bool copying = false;
  // The table's windows to judge the records' times by, instead of the catalog's now (a
  // cluster's log entry carries its leader's: cluster/log_entry.h).
  std::optional<TableWindows> windows;
  // `catalog` family entries written in the same batch as the records (a replica's applied
  // log sequence).
  std::vector<std::pair<std::string, std::string>> catalog_puts;
};

class Writer {
 public:
  // All three must outlive the Writer. `seal_after_nanos` is the tiering
  // job's (TableInfo::BlocksBeforeNanos): records for hours it may have
  // converted are checked against the blocks.
  // Starts the committer thread. At most `max_queued_requests` requests wait
  // for a group commit; past that a write is refused (RESOURCE_EXHAUSTED):
  // each holds its prepared records, and callers no longer wait in line. A
  // bulk write counts as the 100-record requests it could have been (a
  // 10,000-record one as 100), so the queue's memory bound stays the same.
  // While the memory head holds more than `memory_limit_bytes` (0: no
  // limit), writes are refused the same way: the engine's budget thread is
  // converting hours to blocks, and a load faster than that (or a hostile
  // one) must not grow the head without bound.
  Writer(Store* store, MemoryHead* head, Catalog* catalog, const Clock* clock, int64_t seal_after_nanos,
         int max_queued_requests, int64_t memory_limit_bytes = 0);
  // Commits every request queued, then stops the committer.
  ~Writer();

  // Writes one request. Returns NOT_FOUND for an unknown table,
  // INVALID_ARGUMENT when the request as a whole is invalid,
  // RESOURCE_EXHAUSTED when the queue is full, an error from the store if the
  // batch could not be written (in each case nothing was), and otherwise the
  // counts per tier and the rejected records.
  absl::StatusOr<WriteResult> Write(WriteRequest request);

  // What a write ends with (as Write returns it).
  using WriteDone = std::function<void(absl::StatusOr<WriteResult>)>;
  // Write without waiting: `request` is validated and prepared on the
  // caller's thread (its strings are moved into the prepared records, so
  // pass it by std::move where it is not needed after), and `done` runs once
  // its group is committed, on the committer thread; at once on the
  // caller's when nothing is left to commit. `done` must not block (the
  // next group waits for it) nor throw.
  void WriteAsync(WriteRequest request, WriteDone done);
  // The same for a request read through `source` (read before this
  // returns; it need not outlive the call).
  void WriteAsync(WriteSource& source, WriteDone done) { WriteAsync(source, WriteOptions(), std::move(done)); }
  void WriteAsync(WriteSource& source, WriteOptions options, WriteDone done);
  // Commits `options.catalog_puts` alone, after every write queued before it (in the same
  // group as the last of them unless the group was full).
  void CommitAsync(WriteOptions options, WriteDone done);
  // Whether a write now would be refused for the queue or the memory budget (the reason),
  // without queueing one: a shard leader asks before it publishes.
  absl::Status CheckAdmission();

  // Requests waiting for the next group commit (a gauge: a disk slower than
  // the load keeps it high).
  int QueuedRequests();

  // Hours that ended this long ago may be sealed into blocks (0: never).
  int64_t seal_after_nanos() const { return seal_after_nanos_; }

  // The in-memory state of a table, loaded on first use. Shared: a request,
  // scan or query that holds it keeps it alive after its table is dropped
  // and the state forgotten.
  absl::StatusOr<std::shared_ptr<TableState>> State(uint32_t table_id);
  // Forgets the state of every table whose id `live` does not hold (dropped
  // tables: Engine::SweepDroppedTables); each is freed once its last holder
  // lets go. A write racing the drop may load one again, forgotten by the
  // next sweep.
  void ForgetStatesExcept(const absl::flat_hash_set<uint32_t>& live);

  // Runs `step` while no write group commits. The tiering and retention
  // jobs move or drop rows one step (a chunk of a bucket) at a time under it,
  // so a writer waits for at most one step and never checks a row against a
  // family it is being moved out of.
  template <typename F>
  auto Exclusive(F&& step) {
    absl::MutexLock lock(&commit_mu_);
    return step();
  }

  // Watching a bucket lets a job read it outside Exclusive and commit what
  // it made of it only if nothing changed it meanwhile (the tiering job's
  // conversion, storage/jobs/tiering.h). Call both, and BucketChanged, inside
  // Exclusive's step. Write groups that write late writes (`cold_delta`)
  // to a watched bucket mark it; rows for the memory head do not (the head
  // tells them apart by their log sequence, MemoryHead::WriteThenKeepAfter).
  void WatchBucket(uint32_t table_id, uint32_t bucket);
  // Stops watching; true if a write group's late write or BucketChanged
  // touched the bucket since WatchBucket.
  bool UnwatchBucket(uint32_t table_id, uint32_t bucket);
  // For jobs other than the writer that change a bucket under Exclusive
  // (DELETE).
  void BucketChanged(uint32_t table_id, uint32_t bucket);

  // The clock time of the last write group with a record for (table,
  // bucket), or the writer's start if none came since. The tiering job seals
  // a memory-store hour no write touched for seal_after_nanos, open or not.
  // Call inside Exclusive's step.
  int64_t LastWriteNanos(uint32_t table_id, uint32_t bucket);
  // The tiering job moved the bucket's rows into blocks (call inside
  // Exclusive's step, with the commit): later writes to it that are not
  // appends are checked against its blocks, even in an hour that is not
  // sealed by time.
  void BucketConverted(uint32_t table_id, uint32_t bucket);

 private:
  struct Prepared;
  struct Pending;
  class GroupCommit;

  // Validates and prepares the request's records (taken from `source`)
  // into `pending`; an error refuses the request as a whole.
  absl::Status Prepare(WriteSource& source, int64_t now, const WriteOptions& options,
                       Pending* pending);
  // Queues `pending` for the committer, or refuses it when the queue is full.
  void Enqueue(std::unique_ptr<Pending> pending, bool must_apply);
  // The committer thread: commits queued requests a group at a time.
  void CommitLoop();
  static void Complete(std::unique_ptr<Pending> pending, const absl::Status& status);

  using BucketId = std::pair<uint32_t, uint32_t>;  // (table id, bucket)
  // What write groups did to buckets, for the tiering job.
  struct BucketActivity {
    // -> changed since watched. Usually empty.
    absl::flat_hash_map<BucketId, bool> watched;
    // -> the clock time of the last write group with a record there; a
    // bucket's entry goes when it is converted.
    absl::flat_hash_map<BucketId, int64_t> last_write;
  };

  Store* const store_;
  MemoryHead* const head_;
  Catalog* const catalog_;
  const Clock* const clock_;
  const int64_t seal_after_nanos_;
  const int64_t started_nanos_;
  const size_t max_queued_requests_;
  const int64_t memory_limit_bytes_;

  absl::Mutex commit_mu_;  // held by the committer while a group commits
  BucketActivity buckets_ ABSL_GUARDED_BY(commit_mu_);
  absl::Mutex queue_mu_;
  std::deque<std::unique_ptr<Pending>> queue_ ABSL_GUARDED_BY(queue_mu_);
  // Slots() of the queue's requests: changed under queue_mu_, read without it by
  // CheckAdmission (every write asks it, and Enqueue decides again under the lock).
  std::atomic<size_t> queued_slots_ = 0;
  bool stopping_ ABSL_GUARDED_BY(queue_mu_) = false;

  absl::Mutex states_mu_;
  absl::flat_hash_map<uint32_t, std::shared_ptr<TableState>> states_ ABSL_GUARDED_BY(states_mu_);

  std::thread committer_;  // last: it uses every member above
};

}  // namespace strata
