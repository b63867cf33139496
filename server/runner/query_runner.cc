#include "server/runner/query_runner.h"

#include <algorithm>
#include <random>
#include <thread>
#include <utility>

#include "absl/synchronization/notification.h"
#include "common/status.h"
#include "common/strings.h"
#include "common/utf8.h"
#include "query/insert_sink.h"
#include "query/parse/statement_shape.h"
#include "spdlog/spdlog.h"

namespace strata {
namespace {

// Whose share of the query workers a query takes (QueryWorkers): its token,
// or with authentication off the client's connection.
std::string WorkerOwner(const Principal& caller, std::string_view peer) {
  return &caller == &Principal::Unrestricted() ? StrCat("peer ", peer)
                                               : StrCat("token ", caller.name());
}

// What is left of a query's time at `deadline`, at least a millisecond (its timeout option).
int64_t MillisUntil(std::chrono::steady_clock::time_point deadline) {
  return std::max<int64_t>(1, std::chrono::duration_cast<std::chrono::milliseconds>(
                                  deadline - std::chrono::steady_clock::now())
                                  .count());
}

int64_t NanosSinceEpoch() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The result on its way to the client, its columns held back until the first rows, so that a
// query planned with another node's remembered columns can be run again when they changed
// (query::IsColumnsChanged) or when its plan failed with them (a column not found), and a
// small leader read on this node's replicas once they proved current (`confirm`,
// query::LocalLeaderRead::Confirm).
class HeldColumnsSink final : public query::ResultSink {
 public:
  explicit HeldColumnsSink(query::ResultSink* sink, std::function<absl::Status()> confirm = nullptr)
      : sink_(*sink), confirm_(std::move(confirm)) {}
  absl::Status Columns(const std::vector<query::ResultColumn>& columns) override {
    columns_ = columns;
    held_ = true;
    planned_ = true;
    return absl::OkStatus();
  }
  absl::Status Rows(std::vector<query::Row> page) override {
    RETURN_IF_ERROR(Release());
    return sink_.Rows(std::move(page));
  }
  bool TakesBatches() const override { return sink_.TakesBatches(); }
  absl::Status Batches(const query::Batch& batch) override {
    RETURN_IF_ERROR(Release());
    return sink_.Batches(batch);
  }
  absl::Status EndBatches() override {
    RETURN_IF_ERROR(Release());
    return sink_.EndBatches();
  }
  std::optional<query::RelayForm> RelaysPages() const override { return sink_.RelaysPages(); }
  absl::Status RelayPage(std::string bytes, size_t rows) override {
    RETURN_IF_ERROR(Release());
    return sink_.RelayPage(std::move(bytes), rows);
  }
  // The held columns handed on (a result without rows), once confirmed.
  absl::Status Release() {
    if (!held_) return absl::OkStatus();
    RETURN_IF_ERROR(Confirm());
    held_ = false;
    sent_ = true;
    return sink_.Columns(columns_);
  }
  // Whether what was read may go out (asked once); an error says it may not, and nothing did.
  absl::Status Confirm() {
    if (!confirm_) return confirmed_;
    confirmed_ = std::exchange(confirm_, nullptr)();
    return confirmed_;
  }
  // Whether Confirm refused.
  bool refused() const { return !confirmed_.ok(); }
  // Whether anything reached the client's sink.
  bool sent() const { return sent_; }
  // Whether the statement was planned (its columns came).
  bool planned() const { return planned_; }

 private:
  query::ResultSink& sink_;
  std::function<absl::Status()> confirm_;  // null once asked
  absl::Status confirmed_;
  std::vector<query::ResultColumn> columns_;
  bool held_ = false;
  bool sent_ = false;
  bool planned_ = false;
};

// Whether a query that ended with `status` is run again with every site's columns asked anew:
// not once its answer went out, and never an INSERT (its rows may be written already).
bool PlanAgain(const std::string& sql, const absl::Status& status, const HeldColumnsSink& held,
               const query::ShardReads& reads) {
  if (held.sent() || query::IsInsertStatement(sql)) return false;
  if (query::IsColumnsChanged(status)) return true;
  // A plan that failed with remembered columns: a column not found, or of another type.
  return !held.planned() && reads.RememberedColumns() &&
         (absl::IsInvalidArgument(status) || absl::IsNotFound(status));
}

// Times a query planned with another node's remembered columns is run again (PlanAgain): once
// is the rule, a second time for a table growing columns meanwhile.
constexpr int kColumnsChangedRetries = 2;

// SHOW QUERIES and KILL QUERY for one caller.
class CallerRunningQueries final : public query::RunningQueries {
 public:
  CallerRunningQueries(QueryRunner* runner, const Principal* caller)
      : runner_(*runner), caller_(*caller) {}
  std::vector<query::RunningQuery> List() const override { return runner_.ListRunning(caller_); }
  absl::Status Kill(std::string_view id) const override {
    if (runner_.Cancel(caller_, std::string(id))) return absl::OkStatus();
    return absl::NotFoundError(StrCat("query ", EchoInput(id, 40),
                                      " is not running (finished, "
                                      "cancelled, or not yours); SHOW QUERIES lists them"));
  }

 private:
  QueryRunner& runner_;
  const Principal& caller_;
};

// What a query's caller may read and write, from its token's grants: the
// engine asks for every table a statement names.
class PrincipalAccess final : public query::ReadAccess {
 public:
  explicit PrincipalAccess(const Principal* caller) : caller_(*caller) {}
  absl::Status CheckRead(std::string_view database, std::string_view table) const override {
    return caller_.Require(Action::kRead, database, table);
  }
  absl::Status CheckWrite(std::string_view database, std::string_view table) const override {
    return caller_.Require(Action::kWrite, database, table);
  }
  absl::Status CheckCatalogChange(std::string_view database, bool table,
                                  std::string_view what) const override {
    return table ? caller_.RequireTableAdmin(database, what) : caller_.RequireAdmin(what);
  }
  bool MaySee(std::string_view database) const override { return caller_.MaySee(database); }
  bool MaySee(std::string_view database, std::string_view table) const override {
    return caller_.MaySee(database, table);
  }

 private:
  const Principal& caller_;
};

// Where an INSERT's records go: the ingest door, as the caller's writes.
class CallerInserts final : public query::InsertSink {
 public:
  CallerInserts(Ingest* ingest, const Principal* caller) : ingest_(*ingest), caller_(*caller) {}
  absl::StatusOr<WriteResult> Write(WriteRequest request) override {
    return ingest_.Write(caller_, std::move(request));
  }
  std::future<absl::StatusOr<WriteResult>> WriteInBackground(WriteRequest request) override {
    InputWriteSource source(request);  // read before WriteInBackground returns
    return ingest_.WriteInBackground(caller_, source);
  }

 private:
  Ingest& ingest_;
  const Principal& caller_;
};

// --testing-query-delay-ms: waits before the query runs, as a long query
// would take, ending early (CANCELLED) when it is cancelled.
// The query's timeout applies to the wait as it does to the run: what is
// left of it after the queue (`remaining_millis`); the message names the
// whole timeout (`timeout_millis`), as the client asked for it.
absl::Status TestingDelay(const std::atomic<bool>& cancel, int64_t millis, int64_t remaining_millis,
                          int64_t timeout_millis) {
  const auto start = std::chrono::steady_clock::now();
  const auto until = start + std::chrono::milliseconds(millis);
  const auto deadline = start + std::chrono::milliseconds(remaining_millis);
  while (std::chrono::steady_clock::now() < until) {
    if (cancel.load()) return absl::CancelledError("the query was cancelled");
    if (remaining_millis > 0 && std::chrono::steady_clock::now() >= deadline) {
      return absl::DeadlineExceededError(
          StrCat("the query ran past its timeout of ", timeout_millis, " ms"));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return absl::OkStatus();
}

}  // namespace

QueryRunner::QueryRunner(Engine* engine, ServerMetrics* metrics, QueryLimits limits)
    : engine_(engine),
      metrics_(*metrics),
      limits_(limits),
      budget_(limits.total_memory_bytes),
      workers_(limits.workers, limits.queue) {
  metrics->SetAdmissionSource([this] {
    return AdmissionSnapshot{.running = workers_.running(),
                             .queued = workers_.queued(),
                             .refused = workers_.refused(),
                             .memory_used_bytes = budget_.used(),
                             .memory_limit_bytes = budget_.limit(),
                             .memory_refusals = budget_.refusals()};
  });
}

QueryRunner::~QueryRunner() { metrics_.SetAdmissionSource(nullptr); }

std::shared_ptr<QueryRunner::Ticket> QueryRunner::Register(Request request) {
  auto ticket = std::make_shared<Ticket>();
  if (request.cancel == nullptr) request.cancel = std::make_shared<std::atomic<bool>>(false);
  request.page_size = std::clamp(request.page_size, 1, kMaxPageRows);
  if (request.timeout_millis <= 0) request.timeout_millis = limits_.default_timeout_millis;
  ticket->admitted_ = std::chrono::steady_clock::now();
  ticket->progress_ = std::make_shared<query::QueryProgress>();
  Registered registered{.cancel = request.cancel,
                        .owner = request.caller->name(),
                        .text = request.sql,
                        .peer = request.peer,
                        .started_nanos = NanosSinceEpoch(),
                        .started = ticket->admitted_,
                        .progress = ticket->progress_};
  ticket->request_ = std::move(request);
  static thread_local std::mt19937_64 random(std::random_device{}());
  absl::MutexLock lock(&mu_);
  ticket->id_ = fmt::format("{:016x}{:04x}", random(), ++next_id_ & 0xffff);
  running_.emplace(ticket->id_, std::move(registered));
  return ticket;
}

absl::Status QueryRunner::Start(std::shared_ptr<Ticket> ticket, query::ResultSink* sink,
                                Done done) {
  const Request& request = ticket->request();
  const std::string owner = WorkerOwner(*request.caller, request.peer);
  const std::string id = ticket->id();
  // The answer goes out once the worker is given back (`then`): a client that sends its
  // next query on reading it must not find this one still holding its place.
  auto result = std::make_shared<absl::StatusOr<query::QueryStats>>();
  const bool admitted = workers_.TrySubmit(
      owner,
      [this, ticket = std::move(ticket), sink, result] { *result = RunAdmitted(*ticket, sink); },
      [done = std::move(done), result] { done(std::move(*result)); });
  if (admitted) return absl::OkStatus();
  Unregister(id);
  return absl::ResourceExhaustedError(StrCat(
      "the server is running ", workers_.workers(), " queries with ", workers_.queue_capacity(),
      " more waiting; retry shortly, or raise the server's --query-workers or "
      "--query-queue"));
}

absl::StatusOr<query::QueryStats> QueryRunner::Run(Request request, query::ResultSink* sink) {
  absl::StatusOr<query::QueryStats> stats;
  absl::Notification done;
  RETURN_IF_ERROR(
      Start(Register(std::move(request)), sink, [&](absl::StatusOr<query::QueryStats> result) {
        stats = std::move(result);
        done.Notify();
      }));
  done.WaitForNotification();
  return stats;
}

absl::StatusOr<query::QueryStats> QueryRunner::RunAdmitted(Ticket& ticket,
                                                           query::ResultSink* sink) {
  const Request& request = ticket.request();
  const auto started = std::chrono::steady_clock::now();
  // Time spent waiting for a worker counts against the query's timeout.
  const int64_t waited =
      std::chrono::duration_cast<std::chrono::milliseconds>(started - ticket.admitted_).count();
  const PrincipalAccess access(request.caller.get());
  const CallerRunningQueries running(this, request.caller.get());
  query::QueryOptions options;
  options.progress = ticket.progress_.get();
  options.page_size = request.page_size;
  options.timeout_millis = std::max<int64_t>(1, request.timeout_millis - waited);
  options.memory_limit_bytes = limits_.memory_limit_bytes;
  options.cancelled = request.cancel.get();
  options.shared_budget = &budget_;
  options.access = &access;
  options.running = &running;
  std::unique_ptr<query::SystemTables> system_tables;
  if (system_tables_) {
    system_tables = system_tables_(request.caller);
    options.system_tables = system_tables.get();
  }
  options.parameters = request.parameters;
  if (request.caller) options.parameters.session_user = request.caller->name();
  options.describe_only = request.describe_only;
  options.default_database = request.default_database;
  options.parameters.current_schema = request.default_database;
  options.postgres_names = request.postgres_names;
  options.copy_rows = request.copy_rows;
  options.deletes = deletes_;
  options.ddl = ddl_;
  std::optional<CallerInserts> inserts;
  if (ingest_ != nullptr) options.inserts = &inserts.emplace(ingest_, request.caller.get());
  options.catch_up_catalog = catch_up_catalog_;
  ticket.deadline_ = started + std::chrono::milliseconds(options.timeout_millis);

  const absl::Status delayed = request.describe_only
                                   ? absl::OkStatus()
                                   : TestingDelay(*request.cancel, limits_.testing_delay_millis,
                                                  options.timeout_millis, request.timeout_millis);
  // A cluster node first brings what it reads itself up to the query's read choice (by
  // default: the shards it leads need nothing, the others are read at their leaders).
  query::ReadChoice choice = default_read_;
  if (request.read_consistency) choice.consistency = *request.read_consistency;
  if (request.max_staleness.count() != 0) choice.max_staleness = request.max_staleness;
  if (request.max_fragments != 0) choice.max_fragments = request.max_fragments;
  if (request.hedge_after.count() != 0) choice.hedge_after = request.hedge_after;
  absl::Status prepared = delayed.ok() ? query::CheckReadChoice(choice) : delayed;
  // A leader read's statement shape, under which what it scanned is remembered: a small one
  // may be read on this node's replicas next time (docs/cluster.md, "A small leader read").
  // An EXPLAIN of one is planned as the statement would run now, and remembers nothing.
  std::optional<std::string> shape;
  bool explain = false;
  if (read_sizes_ != nullptr && read_sizes_->remembers() && !request.describe_only &&
      choice.consistency == query::ReadConsistency::kLeader) {
    shape = query::ReadStatementShape(request.sql);
    if (!shape.has_value()) {
      shape = query::ExplainedStatementShape(request.sql);
      explain = shape.has_value();
    }
    if (shape.has_value()) *shape = StrCat(request.default_database, "\n", *shape);
  }
  const auto wait = std::chrono::milliseconds(std::min<int64_t>(options.timeout_millis, 10000));
  query::PreparedReads reads;
  if (prepare_reads_ && prepared.ok()) {
    absl::StatusOr<query::PreparedReads> chosen = prepare_reads_(
        choice, wait, request.describe_only, shape.has_value() && read_sizes_->Small(*shape));
    if (chosen.ok()) {
      reads = *std::move(chosen);
    } else {
      prepared = chosen.status();
    }
  }
  options.shard_reads = reads.reads.get();
  absl::StatusOr<query::QueryStats> stats;
  if (!prepared.ok()) {
    stats = prepared;
  } else if (request.cancel->load()) {
    stats = absl::CancelledError("the query was cancelled");
  } else if (reads.local_leader_read != nullptr && explain) {
    // Only the plan goes out: no rows to hold, nothing to confirm, no leader to ask.
    reads.local_leader_read->PlanOnly();
    options.local_leader_read = reads.local_leader_read.get();
    stats = engine_.Execute(request.sql, options, sink);
  } else if (reads.local_leader_read != nullptr) {
    stats = RunLocalLeaderRead(request.sql, options, std::move(reads), choice, wait,
                               ticket.deadline_, sink);
  } else if (reads.reads == nullptr) {
    stats = engine_.Execute(request.sql, options, sink);
  } else {
    stats = RunOverShards(request.sql, options, ticket.deadline_, sink);
  }
  if (shape.has_value() && !explain && stats.ok()) read_sizes_->Record(*shape, stats->rows_scanned);
  if (!request.describe_only) {  // planning a statement for Describe is not a query run
    Observe(ticket.id(), request.caller->name(), request.sql, stats,
            std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  }
  // Leave the registry before the front door can tell its client the query
  // ended, so a cancel after that finds it gone.
  Unregister(ticket.id());
  return stats;
}

absl::StatusOr<query::QueryStats> QueryRunner::RunOverShards(
    const std::string& sql, query::QueryOptions options,
    std::chrono::steady_clock::time_point deadline, query::ResultSink* sink) {
  query::ShardReads& reads = *options.shard_reads;
  HeldColumnsSink held(sink);
  absl::StatusOr<query::QueryStats> stats;
  for (int retries = 0;; ++retries) {
    stats = engine_.Execute(sql, options, &held);
    if (stats.ok() || retries == kColumnsChangedRetries ||
        !PlanAgain(sql, stats.status(), held, reads)) {
      break;
    }
    reads.Refresh();
    options.timeout_millis = MillisUntil(deadline);
  }
  if (stats.ok()) RETURN_IF_ERROR(held.Release());
  return stats;
}

absl::StatusOr<query::QueryStats> QueryRunner::RunLocalLeaderRead(
    const std::string& sql, query::QueryOptions options, query::PreparedReads prepared,
    const query::ReadChoice& choice, std::chrono::milliseconds wait,
    std::chrono::steady_clock::time_point deadline, query::ResultSink* sink) {
  query::LocalLeaderRead& local = *prepared.local_leader_read;
  HeldColumnsSink held(sink, [&local] { return local.Confirm(); });
  options.local_leader_read = &local;
  absl::StatusOr<query::QueryStats> stats = engine_.Execute(sql, options, &held);
  options.local_leader_read = nullptr;
  if (absl::IsCancelled(stats.status()) || absl::IsDeadlineExceeded(stats.status())) {
    return stats;  // no answer to confirm
  }
  // An error is confirmed too, against every shard: a replica behind (any of them, as a
  // table's columns are all its shards') may fail where its leader would not.
  if (!stats.ok()) local.ReadingEvery();
  if (!held.sent()) {
    const absl::Status confirmed = stats.ok() ? held.Release() : held.Confirm();
    if (!confirmed.ok() && !held.refused()) return confirmed;  // the client's sink failed
  }
  metrics_.CountLocalLeaderRead(!held.refused(), local.leaders_asked());
  if (!held.refused()) return stats;
  // A replica here was behind its leader: read at the leaders, as any leader read.
  ASSIGN_OR_RETURN(query::PreparedReads reads,
                   prepare_reads_(choice, wait, /*describe_only=*/false, /*small=*/false));
  options.shard_reads = reads.reads.get();
  options.timeout_millis = MillisUntil(deadline);
  if (reads.reads == nullptr) return engine_.Execute(sql, options, sink);
  return RunOverShards(sql, options, deadline, sink);
}

void QueryRunner::Observe(const std::string& id, const std::string& token, std::string_view sql,
                          const absl::StatusOr<query::QueryStats>& stats, double seconds) {
  static const query::QueryStats kNone;
  const query::QueryStats& s = stats.ok() ? *stats : kNone;
  metrics_.CountQuery(stats.status(), s, seconds);
  const int64_t slow = limits_.slow_query_millis;
  if (slow < 0 || seconds * 1000 < static_cast<double>(slow)) return;
  spdlog::info(
      "slow query: id={} token={} elapsed_ms={:.0f} code={} rows_returned={} rows_scanned={} "
      "bytes_scanned={} text={:?}",
      id, token, seconds * 1000, StatusCodeName(stats.status().code()), s.rows_returned,
      s.rows_scanned, s.bytes_scanned, ToValidUtf8(Utf8Prefix(sql, 500)));
}

bool QueryRunner::Cancel(const Principal& caller, const std::string& id) {
  absl::MutexLock lock(&mu_);
  auto it = running_.find(id);
  // Another token's query is as good as unknown, unless the caller is admin.
  if (it == running_.end() || (!caller.admin() && it->second.owner != caller.name())) return false;
  *it->second.cancel = true;
  return true;
}

std::vector<query::RunningQuery> QueryRunner::ListRunning(const Principal& caller) {
  const auto now = std::chrono::steady_clock::now();
  std::vector<query::RunningQuery> out;
  absl::MutexLock lock(&mu_);
  for (const auto& [id, q] : running_) {
    if (!caller.admin() && q.owner != caller.name()) continue;
    out.push_back(
        {.id = id,
         .text = q.text,
         .token = q.owner,
         .peer = q.peer,
         .started_nanos = q.started_nanos,
         .elapsed_nanos =
             std::chrono::duration_cast<std::chrono::nanoseconds>(now - q.started).count(),
         .rows_scanned = q.progress->rows_scanned.load(std::memory_order_relaxed),
         .bytes_scanned = q.progress->bytes_scanned.load(std::memory_order_relaxed)});
  }
  std::sort(out.begin(), out.end(),
            [](const auto& a, const auto& b) { return a.started_nanos < b.started_nanos; });
  return out;
}

void QueryRunner::Unregister(const std::string& id) {
  absl::MutexLock lock(&mu_);
  running_.erase(id);
}

}  // namespace strata
