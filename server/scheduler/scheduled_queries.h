// Scheduled queries (docs/scheduled-queries.md): their definitions and run
// history, the scheduler that fires each enabled one at its invocation times
// (the engine's clock, UTC), and the runs themselves: the SQL with
// @scheduled_runtime bound, run through the query runner like any query
// (its workers, memory limit and timeout) as the token that created it, and
// its result written into the target table through the ingest door.
//
// Exactly once in effect: a run's records carry version = its invocation
// time in milliseconds, so re-running an invocation (a retry, a crash before
// the run was recorded, a manual Execute) writes nothing new, and a later
// invocation that recomputes a bucket upserts it. Each query's schedule
// cursor (the newest settled invocation) is saved with the run that settles
// it, in one synced write: after downtime the missed invocations run in
// order, none twice, at most `max_catch_up` of them (older ones are recorded
// as skipped).
//
// Thread-safety: safe for concurrent use. Start once, Stop before the query
// runner goes away.
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "query/exec/system_tables.h"
#include "server/auth/authenticator.h"
#include "server/runner/ingest.h"
#include "server/runner/query_runner.h"
#include "server/scheduler/schedule_expression.h"
#include "server/scheduler/scheduled_query.h"
#include "storage/engine.h"

namespace strata {

struct ScheduledQueryOptions {
  int workers = 1;                              // runs at once, over all scheduled queries
  int max_catch_up = 1440;                      // missed invocations run after downtime, per query
  int history = 100;                            // runs kept per scheduled query
  int retries = 2;                              // attempts after a failed first one
  int64_t retry_delay_nanos = kNanosPerMinute;  // before the first retry; doubles
  int max_scheduled_queries = 10'000;
  // Where they are kept; null: the engine's own store. On a cluster: etcd
  // (cluster/replicated_scheduled_queries.h).
  ScheduledQueryRecords* records = nullptr;
  // Whether this server runs the schedules now; unset: always. On a cluster
  // one node does (the others list, describe and change them).
  std::function<bool()> runs_here;
};

class ScheduledQueries {
 public:
  // Loads the saved scheduled queries. The arguments must outlive it.
  static absl::StatusOr<std::unique_ptr<ScheduledQueries>> Open(Engine* engine,
                                                                StatementRunner* queries,
                                                                Ingest* ingest, Authenticator* auth,
                                                                ScheduledQueryOptions options);
  ~ScheduledQueries();

  // Starts the scheduler and its workers; Stop waits for running runs (a run
  // cut short by Stop is not recorded: it runs again at the next start).
  void Start();
  void Stop();

  // The API (scheduled_query.proto, which the gRPC service converts);
  // `caller` owns what it creates. Create takes the definition's fields the
  // caller gives (the server sets creation time and owner).
  absl::StatusOr<ScheduledQueryDescription> Create(const std::shared_ptr<const Principal>& caller,
                                                   ScheduledQueryDefinition request);
  absl::StatusOr<ScheduledQueryDescription> Describe(const Principal& caller,
                                                     std::string_view name);
  absl::StatusOr<ScheduledQueryPage> List(const Principal& caller, int max_results,
                                          std::string_view next_token);
  absl::StatusOr<ScheduledQueryDescription> Update(const Principal& caller, std::string_view name,
                                                   ScheduledQueryState state);
  absl::Status Delete(const Principal& caller, std::string_view name);
  // A manual run, as if invoked at `invocation_nanos`; returns when it ended.
  absl::StatusOr<ScheduledQueryRunSummary> Execute(const Principal& caller, std::string_view name,
                                                   int64_t invocation_nanos);

  // Reads every scheduled query again from where they are kept (when this node of
  // a cluster starts running them), or the one named `name` (after another node
  // changed it or recorded a run of it).
  absl::Status Reload();
  absl::Status Reload(std::string_view name);

  // Tests (TestingService.SetClock): wakes the scheduler and returns once no
  // invocation is due at the clock's time and no scheduled run is going on.
  void RunDue();

  // "system"."scheduled_queries" and "system"."scheduled_query_runs" as
  // `caller` sees them (its own scheduled queries; an admin's: all).
  std::unique_ptr<query::SystemTables> SystemTablesFor(std::shared_ptr<const Principal> caller);

 private:
  struct Entry;
  class Tables;
  struct Task {
    std::shared_ptr<Entry> entry;
  };

  ScheduledQueries(Engine* engine, StatementRunner* queries, Ingest* ingest, Authenticator* auth,
                   ScheduledQueryOptions options)
      : engine_(*engine),
        queries_(*queries),
        ingest_(*ingest),
        auth_(*auth),
        options_(options),
        records_(options.records != nullptr ? *options.records : engine->scheduled_queries()) {}

  using Entries = std::map<std::string, std::shared_ptr<Entry>, std::less<>>;
  absl::StatusOr<Entries> LoadEntries() const;
  absl::StatusOr<std::shared_ptr<Entry>> LoadEntry(const ScheduledQueryRecord& record) const;
  // The one named `name` as the records hold it; null when they hold none.
  absl::StatusOr<std::shared_ptr<Entry>> LoadNamed(std::string_view name) const;
  // `loaded` in place of every entry (those it lacks removed).
  void InstallAllLocked(Entries loaded) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Runs `read`, then `install` under mu_, reading again while this server's own writes
  // land between the two (Reload).
  absl::Status ReadThenInstall(const std::function<absl::Status()>& read,
                               const std::function<void()>& install);
  int64_t WritesSoFar() const;
  // Puts `fresh` in place of the entry named `name` (keeping its object: a run of it may be
  // going on here), adds it, or with `fresh` null removes the entry.
  void InstallLocked(const std::string& name, std::shared_ptr<Entry> fresh)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool RunsHere() const { return !options_.runs_here || options_.runs_here(); }
  // The scheduler's loop: hands due invocations to the workers.
  void Schedule();
  void Work();
  // An enabled query's next invocation if it is due now and may start.
  std::optional<int64_t> DueLocked(const Entry& entry, int64_t now) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool IdleLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Runs the entry's next due invocation (after recording the ones skipped
  // beyond max_catch_up), then settles or schedules a retry.
  void RunScheduled(const std::shared_ptr<Entry>& entry);
  // One run: query, map, write. Fills and returns the summary.
  ScheduledQueryRunSummary RunOnce(const ScheduledQueryDefinition& definition,
                                   int64_t invocation_nanos, bool manual, int attempt,
                                   const std::shared_ptr<std::atomic<bool>>& cancel);
  absl::Status RunInto(const ScheduledQueryDefinition& definition, int64_t invocation_nanos,
                       const std::shared_ptr<std::atomic<bool>>& cancel,
                       ScheduledQueryRunSummary* run);
  // Appends a run to the history and saves it with the entry's cursor.
  absl::Status RecordLocked(Entry& entry, ScheduledQueryRunSummary run)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::StatusOr<std::shared_ptr<Entry>> FindLocked(const Principal& caller,
                                                    std::string_view name) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  ScheduledQueryDescription DescribeLocked(const Entry& entry) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  query::SystemTable QueriesTable(const Principal& caller);
  query::SystemTable RunsTable(const Principal& caller);

  Engine& engine_;
  StatementRunner& queries_;
  Ingest& ingest_;
  Authenticator& auth_;
  const ScheduledQueryOptions options_;
  ScheduledQueryRecords& records_;

  mutable absl::Mutex mu_;
  Entries entries_ ABSL_GUARDED_BY(mu_);
  std::deque<Task> tasks_ ABSL_GUARDED_BY(mu_);
  bool poked_ ABSL_GUARDED_BY(mu_) = false;
  // This server's writes to the records so far (each counted as it starts): a reload whose
  // read spans one reads again (Reload).
  int64_t writes_ ABSL_GUARDED_BY(mu_) = 0;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  // Cancels the runs going on at Stop.
  std::vector<std::shared_ptr<std::atomic<bool>>> cancels_ ABSL_GUARDED_BY(mu_);
  std::thread scheduler_;
  std::vector<std::thread> workers_;
};

}  // namespace strata
