// Scheduled queries as the catalog family keeps them (keys.h: 'q' and 'r'):
// each one's definition, opaque here (the server's encoding of its API
// message), with its schedule cursor, and its run history, one entry per
// run in run order. Storage only persists them: schedules, runs and what
// the bytes mean belong to server/ (scheduler.h).
//
// Thread-safety: safe for concurrent use.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "storage/kv/store.h"

namespace strata {

struct ScheduledQueryRecord {
  std::string name;
  std::string definition;  // opaque bytes
  // The newest scheduled invocation that is settled (ran, finally failed or
  // was skipped): the next one is the schedule's first time after it.
  int64_t schedule_cursor_nanos = 0;
};

struct ScheduledQueryRun {
  uint64_t sequence = 0;  // increasing per scheduled query
  std::string summary;    // opaque bytes
};

// Where scheduled queries are kept: this node's catalog family (ScheduledQueryStore), or the
// cluster's etcd (cluster/replicated_scheduled_queries.h). ABORTED from a change: another node
// changed the scheduled query since this one last read it, and nothing was written.
class ScheduledQueryRecords {
 public:
  virtual ~ScheduledQueryRecords() = default;
  // Every scheduled query, in name order.
  virtual absl::StatusOr<std::vector<ScheduledQueryRecord>> LoadAll() const = 0;
  // The one named `name`, or nullopt.
  virtual absl::StatusOr<std::optional<ScheduledQueryRecord>> Load(std::string_view name) const = 0;
  // Creates or replaces one; durable when it returns.
  virtual absl::Status Put(const ScheduledQueryRecord& record) = 0;
  // Removes one and its run history in one atomic write.
  virtual absl::Status Delete(std::string_view name) = 0;
  // The runs of `name`, oldest first.
  virtual absl::StatusOr<std::vector<ScheduledQueryRun>> LoadRuns(std::string_view name) const = 0;
  // Appends a run and, in the same synced write, the record (its advanced
  // cursor) and the removal of runs with a sequence below `keep_from`.
  virtual absl::Status PutRun(const ScheduledQueryRecord& record, const ScheduledQueryRun& run,
                              uint64_t keep_from) = 0;
};

class ScheduledQueryStore final : public ScheduledQueryRecords {
 public:
  // `store` must outlive the ScheduledQueryStore.
  explicit ScheduledQueryStore(Store* store) : store_(*store) {}

  absl::StatusOr<std::vector<ScheduledQueryRecord>> LoadAll() const override;
  absl::StatusOr<std::optional<ScheduledQueryRecord>> Load(std::string_view name) const override;
  absl::Status Put(const ScheduledQueryRecord& record) override;
  absl::Status Delete(std::string_view name) override;
  absl::StatusOr<std::vector<ScheduledQueryRun>> LoadRuns(std::string_view name) const override;
  absl::Status PutRun(const ScheduledQueryRecord& record, const ScheduledQueryRun& run,
                      uint64_t keep_from) override;

 private:
  Store& store_;
};

std::string EncodeScheduledQuery(const ScheduledQueryRecord& record);
absl::StatusOr<ScheduledQueryRecord> DecodeScheduledQuery(std::string_view bytes);

}  // namespace strata
