// The one place a SQL statement is admitted and run, whichever front door it
// came through (gRPC, the PostgreSQL wire, the HTTP SQL API, Prometheus remote read, the
// scheduler): admission to the worker pool (RESOURCE_EXHAUSTED when its queue
// is full), the running-query registry (SHOW QUERIES, KILL QUERY,
// CancelQuery), the memory budget every query shares, the timeout (time in
// the queue counts), cancellation, the caller's grants on every table the
// statement names, and the metrics and slow-query log of every run.
//
// A front door only adapts: it turns its request into a Request and its
// transport's result into a query::ResultSink.
//
// Thread-safety: all methods may be called from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "query/base/memory_budget.h"
#include "query/base/read_choice.h"
#include "query/base/shard_reads.h"
#include "query/copy_rows.h"
#include "query/engine.h"
#include "query/exec/system_tables.h"
#include "server/auth/grants.h"
#include "server/ops/metrics.h"
#include "server/runner/ingest.h"
#include "server/runner/query_workers.h"
#include "server/runner/read_sizes.h"

namespace strata {

struct QueryLimits {
  int64_t default_timeout_millis = 300'000;
  int64_t memory_limit_bytes = 256 << 20;         // one query
  int64_t total_memory_bytes = int64_t{2} << 30;  // all queries together
  int workers = 4;                                // queries running at once
  int queue = 64;                                 // queries waiting for a worker
  int64_t slow_query_millis = 1000;               // slower queries are logged; -1: none
  int64_t testing_delay_millis = 0;               // --testing-query-delay-ms
};

// What a front door needs of the query runner; tests of a front door give it
// a fake.
class StatementRunner {
 public:
  // One statement from a front door.
  struct Request {
    std::shared_ptr<const Principal> caller;
    std::string sql;
    query::QueryParameters parameters;
    std::string peer;  // who sent it, for SHOW QUERIES and fair admission
    // The front door's own cancel (a client gone, a PostgreSQL
    // CancelRequest) may set it; null: the query gets one of its own.
    std::shared_ptr<std::atomic<bool>> cancel;
    int page_size = 1000;          // clamped to 1 .. QueryRunner::kMaxPageRows
    int64_t timeout_millis = 0;    // 0 or less: the server's default
    bool describe_only = false;    // plan only: not counted, logged or delayed
    std::string default_database;  // for unqualified table names
    // Name the select list's unnamed items as PostgreSQL does (QueryOptions::postgres_names).
    bool postgres_names = false;
    // COPY ... FROM STDIN's rows, read from the front door's client while the statement runs.
    query::CopyRows* copy_rows = nullptr;
    // On a cluster node, the query's read choice (query/base/read_choice.h); what is unset
    // (none, 0) is the node's (stratad --read-consistency, --max-staleness-ms,
    // --hedge-after-ms). A single node ignores it.
    std::optional<query::ReadConsistency> read_consistency;
    std::chrono::milliseconds max_staleness{0};
    int max_fragments = 0;
    std::chrono::milliseconds hedge_after{0};
  };

  virtual ~StatementRunner() = default;

  // Runs `request` into `sink` and returns when it has ended.
  virtual absl::StatusOr<query::QueryStats> Run(Request request, query::ResultSink* sink) = 0;

  // The budget every query's memory comes from: a front door that keeps a
  // result past its query (pages waiting for the client, a PostgreSQL
  // portal fetched with a row limit) reserves it here too.
  virtual query::MemoryBudget& memory_budget() = 0;

  // Before a front door lists databases or tables itself (the PostgreSQL wire's catalog
  // answers): brings a cluster node's copy of the catalog up to date, as the runner's own
  // queries do (SetClusterMode's catch_up_catalog). Nothing on a single node.
  virtual void CatchUpCatalog() {}
};

class QueryRunner final : public StatementRunner {
 public:
  // Rows per result page a front door may ask for.
  static constexpr int kMaxPageRows = 100'000;

  // A query from Register until it has run: listed by SHOW QUERIES and open
  // to KILL QUERY all that time.
  class Ticket {
   public:
    const std::string& id() const { return id_; }
    const Request& request() const { return request_; }
    // Set once the query starts on its worker: when its timeout runs out
    // (for a front door that waits on its client while the query runs).
    std::chrono::steady_clock::time_point deadline() const { return deadline_; }

   private:
    friend class QueryRunner;
    std::string id_;
    Request request_;
    std::chrono::steady_clock::time_point admitted_;
    std::shared_ptr<query::QueryProgress> progress_;
    std::chrono::steady_clock::time_point deadline_ = std::chrono::steady_clock::time_point::max();
  };
  using Done = std::function<void(absl::StatusOr<query::QueryStats>)>;

  // `engine` and `metrics` must outlive the runner.
  QueryRunner(Engine* engine, ServerMetrics* metrics, QueryLimits limits);
  ~QueryRunner();

  // Runs `request` into `sink` on a worker and returns when it has ended.
  absl::StatusOr<query::QueryStats> Run(Request request, query::ResultSink* sink) override;

  // The same in two steps, for a front door that must not block: Register
  // gives the query its id at once; Start admits it to a worker, which runs
  // it into `sink` and calls `done` once the query has left the registry.
  // When the queue is full Start returns RESOURCE_EXHAUSTED, having
  // unregistered the query, and never calls `done`. `sink` must live until
  // `done` is called.
  std::shared_ptr<Ticket> Register(Request request);
  absl::Status Start(std::shared_ptr<Ticket> ticket, query::ResultSink* sink, Done done);

  // The running queries `caller` may see: its own, or all for an admin.
  std::vector<query::RunningQuery> ListRunning(const Principal& caller);
  // Queries admitted and waiting for a worker (a query is registered, and listed, a moment
  // before it is queued).
  int queued() const { return workers_.queued(); }
  // Cancels query `id` for `caller`; false when it is not running or not
  // the caller's to cancel.
  bool Cancel(const Principal& caller, const std::string& id);

  query::MemoryBudget& memory_budget() override { return budget_; }
  void CatchUpCatalog() override {
    if (catch_up_catalog_) catch_up_catalog_();
  }

  // Makes the "system" tables a caller sees (query/exec/system_tables.h); set
  // once, before serving.
  using SystemTablesFactory =
      std::function<std::unique_ptr<query::SystemTables>(std::shared_ptr<const Principal> caller)>;
  void SetSystemTables(SystemTablesFactory factory) { system_tables_ = std::move(factory); }

  // A cluster node's: before every query, `prepare` brings the shards this node reads
  // itself up to the query's read choice (`default_read`'s parts where the request sets none;
  // no wait for a describe_only request) and says how its tables are read (no ShardReads: from
  // the engine, which holds them all), or fails the query; `small` when the statement's shape
  // scanned at most `small_read_rows` the last time it ran (ReadSizes). `deletes`: where
  // DELETE's points go (the shards' logs), `ddl` what makes CREATE, ALTER and DROP's changes
  // (the cluster's catalog). `catch_up_catalog` brings the node's catalog up to
  // the cluster's, for a statement naming a table this node does not know yet
  // (query::QueryOptions::catch_up_catalog). Set once, before serving; `deletes` and `ddl`
  // outlive the runner.
  using PrepareReads = std::function<absl::StatusOr<query::PreparedReads>(
      const query::ReadChoice& choice, std::chrono::milliseconds wait, bool describe_only,
      bool small)>;
  // The door INSERT's records go through, as their caller's writes. Set once, before
  // serving; it outlives the runner. Unset: INSERT writes to the engine, its grant checked.
  void SetIngest(Ingest* ingest) { ingest_ = ingest; }

  void SetClusterMode(PrepareReads prepare, query::DeleteSink* deletes, CatalogChanges* ddl,
                      query::ReadChoice default_read, int64_t small_read_rows,
                      std::function<bool()> catch_up_catalog) {
    prepare_reads_ = std::move(prepare);
    catch_up_catalog_ = std::move(catch_up_catalog);
    deletes_ = deletes;
    ddl_ = ddl;
    default_read_ = default_read;
    read_sizes_ = std::make_unique<ReadSizes>(small_read_rows);
  }

 private:
  struct Registered {
    std::shared_ptr<std::atomic<bool>> cancel;
    std::string owner;  // the caller's token name
    std::string text;
    std::string peer;
    int64_t started_nanos = 0;  // since the Unix epoch
    std::chrono::steady_clock::time_point started;
    std::shared_ptr<query::QueryProgress> progress;
  };

  // On a worker: the query's whole run, ending with it unregistered.
  absl::StatusOr<query::QueryStats> RunAdmitted(Ticket& ticket, query::ResultSink* sink);
  // The statement over a cluster's fragments (`options.shard_reads`), planned again while
  // nothing went out when its plan met another node's columns changed (PlanAgain).
  absl::StatusOr<query::QueryStats> RunOverShards(const std::string& sql,
                                                  query::QueryOptions options,
                                                  std::chrono::steady_clock::time_point deadline,
                                                  query::ResultSink* sink);
  // The statement on this node's replicas as `prepared` chose for a small leader read, told
  // what the plan reads of the shards, its answer held back until it confirms they were
  // current; read again the usual way (`choice`, `wait`) when a replica was behind its leader.
  absl::StatusOr<query::QueryStats> RunLocalLeaderRead(
      const std::string& sql, query::QueryOptions options, query::PreparedReads prepared,
      const query::ReadChoice& choice, std::chrono::milliseconds wait,
      std::chrono::steady_clock::time_point deadline, query::ResultSink* sink);
  void Unregister(const std::string& id);
  // Counts a finished query for /metrics, and logs it when it was slow.
  void Observe(const std::string& id, const std::string& token, std::string_view sql,
               const absl::StatusOr<query::QueryStats>& stats, double seconds);

  query::QueryEngine engine_;
  ServerMetrics& metrics_;
  const QueryLimits limits_;
  SystemTablesFactory system_tables_;
  PrepareReads prepare_reads_;
  std::function<bool()> catch_up_catalog_;
  std::unique_ptr<ReadSizes> read_sizes_;  // a cluster node's
  query::DeleteSink* deletes_ = nullptr;
  CatalogChanges* ddl_ = nullptr;  // null: the engine's catalog
  Ingest* ingest_ = nullptr;
  query::ReadChoice default_read_{.max_staleness = std::chrono::milliseconds(5000)};
  query::MemoryBudget budget_;
  absl::Mutex mu_;
  std::map<std::string, Registered> running_ ABSL_GUARDED_BY(mu_);
  uint64_t next_id_ ABSL_GUARDED_BY(mu_) = 0;
  // Last: destroyed first, so running tasks finish while the rest is alive.
  QueryWorkers workers_;
};

}  // namespace strata
