#include "server/scheduler/scheduled_queries.h"

#include <algorithm>
#include <chrono>

#include "common/status.h"
#include "common/strings.h"
#include "common/time_format.h"
#include "query/parse/parser.h"
#include "server/scheduler/scheduled_query_codec.h"
#include "server/scheduler/target_mapping.h"
#include "spdlog/spdlog.h"
#include "storage/catalog/names.h"

namespace strata {
namespace {

constexpr size_t kMaxNameBytes = 64;
constexpr int kDefaultRejectedRowsKept = 100;
constexpr int kMaxRejectedRowsKept = 1000;
constexpr int kRecentFailures = 5;
constexpr std::string_view kRuntimeParameter = "scheduled_runtime";

absl::Status ValidateName(std::string_view name) {
  const bool ok =
      !name.empty() && name.size() <= kMaxNameBytes &&
      std::all_of(name.begin(), name.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-';
      });
  if (ok) return absl::OkStatus();
  return absl::InvalidArgumentError(
      StrCat("scheduled query name \"", name, "\" must be 1..64 characters of [a-zA-Z0-9_.-]"));
}

// The definition's parameters with @scheduled_runtime bound to `runtime`.
absl::StatusOr<query::QueryParameters> RunParameters(const ScheduledQueryDefinition& definition,
                                                     int64_t runtime) {
  query::QueryParameters parameters;
  for (const auto& [name, value] : definition.parameters) {
    if (!parameters.named.emplace(name, value).second) {
      return absl::InvalidArgumentError(StrCat("parameter @", name, " is sent twice"));
    }
  }
  parameters.named[std::string(kRuntimeParameter)] = query::Datum::Timestamp(runtime);
  parameters.optional.insert(std::string(kRuntimeParameter));  // a query need not use it
  return parameters;
}

// Maps result pages to records and writes them, 100 per request.
class TargetWriter final : public query::ResultSink {
 public:
  TargetWriter(Ingest& ingest, const Principal& owner, const TargetSpec& target, int64_t version,
               int max_rejected_kept, ScheduledQueryRunSummary* run)
      : ingest_(ingest),
        owner_(owner),
        target_(target),
        version_(version),
        max_kept_(max_rejected_kept),
        run_(*run),
        stats_(run->stats) {}

  absl::Status Columns(const std::vector<query::ResultColumn>& columns) override {
    auto mapping = TargetMapping::Compile(target_, columns);
    if (!mapping.ok()) {
      return absl::FailedPreconditionError(StrCat(
          "the query's result no longer maps onto the target: ", mapping.status().message()));
    }
    mapping_ = *std::move(mapping);
    return absl::OkStatus();
  }

  absl::Status Rows(std::vector<query::Row> page) override {
    for (const query::Row& row : page) {
      const int64_t index = row_++;
      const size_t before = pending_.size();
      if (absl::Status mapped = mapping_->Map(row, version_, &pending_); !mapped.ok()) {
        Reject(index, StrCat(mapped.message()), std::nullopt);
        continue;
      }
      if (pending_.size() == before) ++stats_.rows_skipped;
      pending_rows_.resize(pending_.size(), index);
      if (pending_.size() >= kMaxRecordsPerWrite) RETURN_IF_ERROR(Flush());
    }
    return absl::OkStatus();
  }

  absl::Status Flush() {
    while (!pending_.empty()) {
      const size_t n = std::min<size_t>(pending_.size(), kMaxRecordsPerWrite);
      WriteRequest request{.database_name = target_.database_name,
                           .table_name = target_.table_name};
      request.records.assign(std::make_move_iterator(pending_.begin()),
                             std::make_move_iterator(pending_.begin() + n));
      ASSIGN_OR_RETURN(WriteResult result, ingest_.Write(owner_, std::move(request)));
      stats_.records_ingested += result.total();
      for (const RejectedRecord& r : result.rejected) {
        Reject(pending_rows_[r.record_index], r.reason, r.existing_version);
      }
      pending_.erase(pending_.begin(), pending_.begin() + n);
      pending_rows_.erase(pending_rows_.begin(), pending_rows_.begin() + n);
    }
    return absl::OkStatus();
  }

  int64_t rows() const { return row_; }

 private:
  void Reject(int64_t row, std::string reason, std::optional<int64_t> existing_version) {
    ++stats_.records_rejected;
    if (static_cast<int>(run_.rejected_rows.size()) >= max_kept_) return;
    run_.rejected_rows.push_back(
        {.row = row, .reason = std::move(reason), .existing_version = existing_version});
  }

  Ingest& ingest_;
  const Principal& owner_;  // the scheduled query's token, whose grants the write needs
  const TargetSpec& target_;
  const int64_t version_;
  const int max_kept_;
  ScheduledQueryRunSummary& run_;
  RunStats& stats_;
  std::optional<TargetMapping> mapping_;
  std::vector<InputRecord> pending_;
  std::vector<int64_t> pending_rows_;  // the result row of each pending record
  int64_t row_ = 0;
};

}  // namespace

struct ScheduledQueries::Entry {
  ScheduledQueryDefinition definition;
  strata::Schedule schedule;
  int64_t cursor = 0;  // ScheduledQueryRecord::schedule_cursor_nanos
  uint64_t next_sequence = 1;
  std::deque<ScheduledQueryRunSummary> runs;  // oldest first
  bool scheduled_running = false;             // a scheduled run is queued or going on
  int failed_attempts = 0;                    // at the invocation after `cursor`
  int64_t retry_at = 0;
  bool deleted = false;

  bool enabled() const { return definition.state != ScheduledQueryState::kDisabled; }
  ScheduledQueryRecord Record() const {
    return {.name = definition.name,
            .definition = EncodeDefinition(definition),
            .schedule_cursor_nanos = cursor};
  }
};

absl::StatusOr<std::unique_ptr<ScheduledQueries>> ScheduledQueries::Open(
    Engine* engine, StatementRunner* queries, Ingest* ingest, Authenticator* auth,
    ScheduledQueryOptions options) {
  std::unique_ptr<ScheduledQueries> out(
      new ScheduledQueries(engine, queries, ingest, auth, std::move(options)));
  ASSIGN_OR_RETURN(Entries loaded, out->LoadEntries());
  absl::MutexLock lock(&out->mu_);
  out->entries_ = std::move(loaded);
  if (!out->entries_.empty()) spdlog::info("scheduled queries: {} loaded", out->entries_.size());
  return out;
}

absl::StatusOr<std::shared_ptr<ScheduledQueries::Entry>> ScheduledQueries::LoadEntry(
    const ScheduledQueryRecord& record) const {
  auto entry = std::make_shared<Entry>();
  absl::StatusOr<ScheduledQueryDefinition> definition = DecodeDefinition(record.definition);
  if (!definition.ok()) return CorruptionError(StrCat("scheduled query \"", record.name, "\""));
  entry->definition = *std::move(definition);
  auto schedule = Schedule::Parse(entry->definition.schedule_expression);
  if (!schedule.ok()) return CorruptionError(StrCat("scheduled query \"", record.name, "\""));
  entry->schedule = *schedule;
  entry->cursor = record.schedule_cursor_nanos;
  ASSIGN_OR_RETURN(std::vector<ScheduledQueryRun> runs, records_.LoadRuns(record.name));
  for (const ScheduledQueryRun& run : runs) {
    absl::StatusOr<ScheduledQueryRunSummary> summary = DecodeRun(run.summary);
    if (!summary.ok()) {
      return CorruptionError(StrCat("a run of scheduled query \"", record.name, "\""));
    }
    entry->runs.push_back(*std::move(summary));
    entry->next_sequence = run.sequence + 1;
  }
  return entry;
}

absl::StatusOr<ScheduledQueries::Entries> ScheduledQueries::LoadEntries() const {
  ASSIGN_OR_RETURN(std::vector<ScheduledQueryRecord> records, records_.LoadAll());
  Entries out;
  for (const ScheduledQueryRecord& record : records) {
    ASSIGN_OR_RETURN(std::shared_ptr<Entry> entry, LoadEntry(record));
    out.emplace(record.name, std::move(entry));
  }
  return out;
}

void ScheduledQueries::InstallLocked(const std::string& name, std::shared_ptr<Entry> fresh) {
  auto it = entries_.find(name);
  if (fresh == nullptr) {
    if (it == entries_.end()) return;
    it->second->deleted = true;
    entries_.erase(it);
    return;
  }
  if (it == entries_.end()) {
    entries_.emplace(name, std::move(fresh));
    return;
  }
  // The same Entry object: a run of it may be going on here (its record then meets the
  // newer revision and is refused, and the invocation runs again).
  Entry& entry = *it->second;
  entry.definition = std::move(fresh->definition);
  entry.schedule = fresh->schedule;
  entry.cursor = fresh->cursor;
  entry.runs = std::move(fresh->runs);
  entry.next_sequence = fresh->next_sequence;
}

// A reload reads the records, then installs what it read. A write of this server's own may
// land between the two (a query created here just as this node took the runner's role, whose
// first reload then dropped it from the schedule: CI, session 81): the read is then taken
// again, as often as that happens (kMaxReloadReads at most, then installed with a warning).
constexpr int kMaxReloadReads = 20;

absl::Status ScheduledQueries::ReadThenInstall(const std::function<absl::Status()>& read,
                                               const std::function<void()>& install) {
  for (int reads = 1;; ++reads) {
    const int64_t writes = WritesSoFar();
    RETURN_IF_ERROR(read());
    absl::MutexLock lock(&mu_);
    if (writes_ == writes || reads == kMaxReloadReads) {
      if (writes_ != writes) {
        spdlog::warn(
            "scheduled queries: {} reloads in a row raced this server's own writes; "
            "installed the last (a change made here meanwhile may show on the next reload)",
            reads);
      }
      install();
      poked_ = true;
      return absl::OkStatus();
    }
  }
}

absl::Status ScheduledQueries::Reload() {
  Entries loaded;
  return ReadThenInstall(
      [&]() -> absl::Status {
        ASSIGN_OR_RETURN(loaded, LoadEntries());
        return absl::OkStatus();
      },
      [&] {  // under mu_: ReadThenInstall holds it
        InstallAllLocked(std::move(loaded));
      });
}

int64_t ScheduledQueries::WritesSoFar() const {
  absl::MutexLock lock(&mu_);
  return writes_;
}

void ScheduledQueries::InstallAllLocked(Entries loaded) {
  std::vector<std::string> gone;
  for (const auto& [name, entry] : entries_) {
    if (!loaded.contains(name)) gone.push_back(name);
  }
  for (const std::string& name : gone) InstallLocked(name, nullptr);
  for (auto& [name, fresh] : loaded) InstallLocked(name, std::move(fresh));
}

absl::Status ScheduledQueries::Reload(std::string_view name) {
  std::shared_ptr<Entry> fresh;
  return ReadThenInstall(
      [&]() -> absl::Status {
        ASSIGN_OR_RETURN(fresh, LoadNamed(name));
        return absl::OkStatus();
      },
      [&] {  // under mu_: ReadThenInstall holds it
        InstallLocked(std::string(name), std::move(fresh));
      });
}

absl::StatusOr<std::shared_ptr<ScheduledQueries::Entry>> ScheduledQueries::LoadNamed(
    std::string_view name) const {
  ASSIGN_OR_RETURN(std::optional<ScheduledQueryRecord> record, records_.Load(name));
  if (!record.has_value()) return nullptr;
  return LoadEntry(*record);
}

ScheduledQueries::~ScheduledQueries() { Stop(); }

void ScheduledQueries::Start() {
  scheduler_ = std::thread([this] { Schedule(); });
  for (int i = 0; i < std::max(1, options_.workers); ++i) {
    workers_.emplace_back([this] { Work(); });
  }
}

void ScheduledQueries::Stop() {
  {
    absl::MutexLock lock(&mu_);
    if (stopping_) return;
    stopping_ = true;
    for (const auto& cancel : cancels_) *cancel = true;
  }
  if (scheduler_.joinable()) scheduler_.join();
  for (std::thread& worker : workers_) worker.join();
  workers_.clear();
}

std::optional<int64_t> ScheduledQueries::DueLocked(const Entry& entry, int64_t now) const {
  if (!entry.enabled() || entry.deleted || entry.scheduled_running || entry.retry_at > now) {
    return std::nullopt;
  }
  std::optional<int64_t> next = entry.schedule.NextAfter(entry.cursor);
  if (!next || *next > now) return std::nullopt;
  return next;
}

bool ScheduledQueries::IdleLocked() const {
  const int64_t now = engine_.clock().NowNanos();
  const bool runs_here = RunsHere();
  for (const auto& [name, entry] : entries_) {
    if (entry->scheduled_running || (runs_here && DueLocked(*entry, now))) return false;
  }
  return true;
}

void ScheduledQueries::Schedule() {
  absl::MutexLock lock(&mu_);
  while (!stopping_) {
    const int64_t now = engine_.clock().NowNanos();
    const bool runs_here = RunsHere();
    for (const auto& [name, entry] : entries_) {
      if (!runs_here || !DueLocked(*entry, now)) continue;
      entry->scheduled_running = true;
      tasks_.push_back({entry});
    }
    poked_ = false;
    // Woken by a change (create, update, a finished run, the test clock) or
    // once a second to look at the clock.
    mu_.AwaitWithTimeout(absl::Condition(
                             +[](ScheduledQueries* s) ABSL_EXCLUSIVE_LOCKS_REQUIRED(s->mu_) {
                               return s->poked_ || s->stopping_;
                             },
                             this),
                         absl::Seconds(1));
  }
}

void ScheduledQueries::Work() {
  while (true) {
    Task task;
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(
          +[](ScheduledQueries* s)
               ABSL_EXCLUSIVE_LOCKS_REQUIRED(s->mu_) { return !s->tasks_.empty() || s->stopping_; },
          this));
      if (stopping_) {
        for (Task& t : tasks_) t.entry->scheduled_running = false;
        tasks_.clear();
        return;
      }
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    RunScheduled(task.entry);
  }
}

void ScheduledQueries::RunScheduled(const std::shared_ptr<Entry>& entry) {
  ScheduledQueryDefinition definition;
  int64_t invocation = 0;
  int attempt = 1;
  auto cancel = std::make_shared<std::atomic<bool>>(false);
  {
    absl::MutexLock lock(&mu_);
    const int64_t now = engine_.clock().NowNanos();
    // The invocations due now, newest `max_catch_up` kept; older ones are
    // recorded as skipped in one entry.
    std::deque<int64_t> due;
    int64_t skipped = 0, first_skipped = 0, last_skipped = 0;
    for (int64_t t = entry->cursor;;) {
      std::optional<int64_t> next = entry->schedule.NextAfter(t);
      if (!next || *next > now) break;
      t = *next;
      due.push_back(t);
      if (static_cast<int>(due.size()) > std::max(1, options_.max_catch_up)) {
        if (skipped++ == 0) first_skipped = due.front();
        last_skipped = due.front();
        due.pop_front();
      }
    }
    if (due.empty() || entry->deleted) {
      entry->scheduled_running = false;
      poked_ = true;
      return;
    }
    if (skipped > 0) {
      const int64_t last = last_skipped;
      ScheduledQueryRunSummary run{.invocation_nanos = last,
                                   .trigger_nanos = now,
                                   .end_nanos = now,
                                   .status = RunStatus::kAutoTriggerSkipped};
      run.failure_reason =
          StrCat(skipped, " invocations from ", FormatIso8601Millis(first_skipped), " to ",
                 FormatIso8601Millis(last), " were missed while the server was down, beyond the ",
                 options_.max_catch_up,
                 " it catches up (--scheduled-query-max-catch-up); run them "
                 "with ExecuteScheduledQuery (strata scheduled-query execute) to backfill");
      spdlog::warn("scheduled query \"{}\": {}", entry->definition.name, run.failure_reason);
      entry->cursor = last;
      entry->failed_attempts = 0;
      if (absl::Status saved = RecordLocked(*entry, std::move(run)); !saved.ok()) {
        spdlog::error("scheduled query \"{}\": could not save its skipped invocations: {}",
                      entry->definition.name, saved.message());
      }
    }
    definition = entry->definition;
    invocation = due.front();
    attempt = entry->failed_attempts + 1;
    cancels_.push_back(cancel);
  }

  ScheduledQueryRunSummary run = RunOnce(definition, invocation, false, attempt, cancel);

  absl::MutexLock lock(&mu_);
  std::erase(cancels_, cancel);
  entry->scheduled_running = false;
  poked_ = true;
  // Cut short by Stop: as if it never started; it runs again at the next start.
  if (stopping_ && *cancel) return;
  if (entry->deleted) return;
  const bool failed = Failed(run.status);
  if (!failed || attempt > options_.retries) {
    entry->cursor = invocation;
    entry->failed_attempts = 0;
    entry->retry_at = 0;
  } else {
    entry->failed_attempts = attempt;
    entry->retry_at = engine_.clock().NowNanos() + (options_.retry_delay_nanos << (attempt - 1));
  }
  if (absl::Status saved = RecordLocked(*entry, std::move(run)); !saved.ok()) {
    spdlog::error(
        "scheduled query \"{}\": could not save its run of {}: {}; the invocation "
        "runs again",
        definition.name, FormatIso8601Millis(invocation), saved.message());
  }
}

ScheduledQueryRunSummary ScheduledQueries::RunOnce(
    const ScheduledQueryDefinition& definition, int64_t invocation_nanos, bool manual, int attempt,
    const std::shared_ptr<std::atomic<bool>>& cancel) {
  ScheduledQueryRunSummary run{.invocation_nanos = invocation_nanos,
                               .trigger_nanos = engine_.clock().NowNanos(),
                               .attempt = attempt};
  const auto started = std::chrono::steady_clock::now();
  const absl::Status status = RunInto(definition, invocation_nanos, cancel, &run);
  const int64_t millis = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::steady_clock::now() - started)
                             .count();
  run.end_nanos = engine_.clock().NowNanos();
  run.stats.execution_millis = millis;
  run.status = status.ok()
                   ? (manual ? RunStatus::kManualTriggerSuccess : RunStatus::kAutoTriggerSuccess)
                   : (manual ? RunStatus::kManualTriggerFailure : RunStatus::kAutoTriggerFailure);
  const RunStats& stats = run.stats;
  if (status.ok()) {
    spdlog::info(
        "scheduled query \"{}\" ran for {} ({}, attempt {}): {} result rows, {} records "
        "written, {} rejected, {} bytes scanned, {} ms",
        definition.name, FormatIso8601Millis(invocation_nanos), manual ? "manual" : "schedule",
        attempt, stats.query_result_rows, stats.records_ingested, stats.records_rejected,
        stats.bytes_scanned, millis);
  } else {
    run.failure_reason = StrCat(status.message());
    spdlog::warn("scheduled query \"{}\" failed for {} ({}, attempt {}): {}", definition.name,
                 FormatIso8601Millis(invocation_nanos), manual ? "manual" : "schedule", attempt,
                 status.message());
  }
  return run;
}

absl::Status ScheduledQueries::RunInto(const ScheduledQueryDefinition& definition,
                                       int64_t invocation_nanos,
                                       const std::shared_ptr<std::atomic<bool>>& cancel,
                                       ScheduledQueryRunSummary* run) {
  absl::StatusOr<std::shared_ptr<const Principal>> owner = auth_.PrincipalNamed(definition.owner);
  if (!owner.ok()) {
    return absl::FailedPreconditionError(
        StrCat("it runs as the token that created it: ", owner.status().message(),
               "; create the scheduled query again with a live token"));
  }
  const TargetSpec& target = definition.target;
  if (!engine_.catalog().FindTable(target.database_name, target.table_name).ok()) {
    return absl::FailedPreconditionError(StrCat("the target table \"", target.database_name,
                                                "\".\"", target.table_name,
                                                "\" does not exist (deleted?)"));
  }
  RETURN_IF_ERROR((*owner)->Require(Action::kWrite, target.database_name, target.table_name));
  ASSIGN_OR_RETURN(query::QueryParameters parameters, RunParameters(definition, invocation_nanos));
  const int kept =
      definition.max_rejected_rows > 0 ? definition.max_rejected_rows : kDefaultRejectedRowsKept;
  TargetWriter sink(ingest_, **owner, target, invocation_nanos / kNanosPerMilli, kept, run);
  ASSIGN_OR_RETURN(query::QueryStats stats,
                   queries_.Run({.caller = *owner,
                                 .sql = definition.query_string,
                                 .parameters = std::move(parameters),
                                 .peer = StrCat("scheduled-query:", definition.name),
                                 .cancel = cancel},
                                &sink));
  run->stats.query_result_rows = stats.rows_returned;
  run->stats.bytes_scanned = stats.bytes_scanned;
  return sink.Flush();
}

absl::Status ScheduledQueries::RecordLocked(Entry& entry, ScheduledQueryRunSummary run) {
  const uint64_t sequence = entry.next_sequence++;
  const std::string bytes = EncodeRun(run);
  entry.runs.push_back(std::move(run));
  const size_t keep = static_cast<size_t>(std::max(1, options_.history));
  while (entry.runs.size() > keep) entry.runs.pop_front();
  const uint64_t keep_from = sequence + 1 > keep ? sequence + 1 - keep : 0;
  ++writes_;
  return records_.PutRun(entry.Record(), {.sequence = sequence, .summary = bytes}, keep_from);
}

absl::StatusOr<ScheduledQueryDescription> ScheduledQueries::Create(
    const std::shared_ptr<const Principal>& caller, ScheduledQueryDefinition definition) {
  RETURN_IF_ERROR(ValidateName(definition.name));
  if (definition.query_string.empty()) {
    return absl::InvalidArgumentError("query_string is empty: give the SELECT to run");
  }
  ASSIGN_OR_RETURN(strata::Schedule schedule, Schedule::Parse(definition.schedule_expression));
  for (const auto& [name, value] : definition.parameters) {
    if (name.empty()) {
      return absl::InvalidArgumentError(
          "scheduled queries take named parameters only (@name); give each parameter a name");
    }
    if (name == kRuntimeParameter) {
      return absl::InvalidArgumentError(
          "@scheduled_runtime is reserved: each run binds it to its invocation time");
    }
  }
  const int kept = definition.max_rejected_rows;
  if (kept < 0 || kept > kMaxRejectedRowsKept) {
    return absl::InvalidArgumentError(
        StrCat("error_report_configuration.max_rejected_rows is ", kept, "; give 0..1000"));
  }
  const TargetSpec& target = definition.target;
  if (target.database_name.empty() || target.table_name.empty()) {
    return absl::InvalidArgumentError(
        "target_configuration needs database_name and table_name: the table results are "
        "written to");
  }
  RETURN_IF_ERROR(caller->Require(Action::kWrite, target.database_name, target.table_name));
  if (!engine_.catalog().FindTable(target.database_name, target.table_name).ok()) {
    return absl::InvalidArgumentError(StrCat("the target table \"", target.database_name, "\".\"",
                                             target.table_name,
                                             "\" does not exist; create it first"));
  }
  // The query must be one SELECT that plans against today's schema.
  const int64_t now = engine_.clock().NowNanos();
  ASSIGN_OR_RETURN(query::QueryParameters parameters, RunParameters(definition, now));
  ASSIGN_OR_RETURN(query::Statement statement, query::Parse(definition.query_string, parameters));
  if (statement.kind != query::Statement::Kind::kSelect) {
    return absl::InvalidArgumentError("a scheduled query is one SELECT statement (WITH allowed)");
  }
  query::ColumnsSink columns;
  absl::StatusOr<query::QueryStats> planned =
      queries_.Run({.caller = caller,
                    .sql = definition.query_string,
                    .parameters = std::move(parameters),
                    .peer = "scheduled-query:create",
                    .cancel = std::make_shared<std::atomic<bool>>(false),
                    .describe_only = true},
                   &columns);
  if (!planned.ok()) {
    // Refusals keep their code (no read on the source is PERMISSION_DENIED,
    // as for the query itself); anything else is the definition's fault.
    const absl::StatusCode code = planned.status().code();
    const bool kept =
        code == absl::StatusCode::kResourceExhausted || code == absl::StatusCode::kPermissionDenied;
    return absl::Status(kept ? code : absl::StatusCode::kInvalidArgument,
                        StrCat("the query does not plan: ", planned.status().message()));
  }
  RETURN_IF_ERROR(TargetMapping::Compile(target, columns.columns()).status());

  if (definition.state == ScheduledQueryState::kUnspecified) {
    definition.state = ScheduledQueryState::kEnabled;
  }
  definition.creation_nanos = now;
  definition.owner = caller->name();

  absl::MutexLock lock(&mu_);
  if (entries_.contains(definition.name)) {
    return absl::AlreadyExistsError(
        StrCat("a scheduled query named \"", definition.name,
               "\" already exists; delete it first or choose another name"));
  }
  if (static_cast<int>(entries_.size()) >= options_.max_scheduled_queries) {
    return absl::ResourceExhaustedError(StrCat("the server has ", entries_.size(),
                                               " scheduled queries, its limit; delete some first"));
  }
  const std::string name = definition.name;
  const std::string schedule_expression = definition.schedule_expression;
  auto entry = std::make_shared<Entry>();
  entry->definition = std::move(definition);
  entry->schedule = schedule;
  entry->cursor = now;
  ++writes_;
  RETURN_IF_ERROR(records_.Put(entry->Record()));
  entries_.emplace(name, entry);
  poked_ = true;
  spdlog::info("scheduled query \"{}\" created by {}: {} into \"{}\".\"{}\"", name,
               caller->name().empty() ? std::string("no token (authentication off)")
                                      : "token \"" + caller->name() + "\"",
               schedule_expression, entry->definition.target.database_name,
               entry->definition.target.table_name);
  return DescribeLocked(*entry);
}

absl::StatusOr<std::shared_ptr<ScheduledQueries::Entry>> ScheduledQueries::FindLocked(
    const Principal& caller, std::string_view name) const {
  auto it = entries_.find(name);
  // Another token's scheduled query is as good as unknown, unless the caller is admin.
  if (it == entries_.end() || (!caller.admin() && it->second->definition.owner != caller.name())) {
    return absl::NotFoundError(StrCat("scheduled query \"", name,
                                      "\" does not exist; list them with ListScheduledQueries"));
  }
  return it->second;
}

ScheduledQueryDescription ScheduledQueries::DescribeLocked(const Entry& entry) const {
  ScheduledQueryDescription out{.definition = entry.definition};
  for (auto it = entry.runs.rbegin(); it != entry.runs.rend(); ++it) {
    if (!Manual(it->status) && it->status != RunStatus::kUnspecified) {
      out.previous_invocation_nanos = it->invocation_nanos;
      break;
    }
  }
  if (entry.enabled()) out.next_invocation_nanos = entry.schedule.NextAfter(entry.cursor);
  if (!entry.runs.empty()) out.last_run = entry.runs.back();
  for (auto it = entry.runs.rbegin();
       it != entry.runs.rend() && out.recently_failed_runs.size() < size_t{kRecentFailures}; ++it) {
    if (Failed(it->status)) out.recently_failed_runs.push_back(*it);
  }
  return out;
}

absl::StatusOr<ScheduledQueryDescription> ScheduledQueries::Describe(const Principal& caller,
                                                                     std::string_view name) {
  absl::MutexLock lock(&mu_);
  ASSIGN_OR_RETURN(std::shared_ptr<Entry> entry, FindLocked(caller, name));
  return DescribeLocked(*entry);
}

absl::StatusOr<ScheduledQueryPage> ScheduledQueries::List(const Principal& caller, int max_results,
                                                          std::string_view next_token) {
  if (max_results < 0 || max_results > kMaxPageSize) {
    return absl::InvalidArgumentError(
        StrCat("max_results is ", max_results, "; give 1..1000, or 0 for 100"));
  }
  const size_t page = max_results == 0 ? kDefaultPageSize : max_results;
  ScheduledQueryPage out;
  absl::MutexLock lock(&mu_);
  for (auto it = entries_.lower_bound(next_token); it != entries_.end(); ++it) {
    const Entry& entry = *it->second;
    if (!caller.admin() && entry.definition.owner != caller.name()) continue;
    if (out.queries.size() == page) {
      out.next_token = it->first;
      break;
    }
    out.queries.push_back(DescribeLocked(entry));
  }
  return out;
}

absl::StatusOr<ScheduledQueryDescription> ScheduledQueries::Update(const Principal& caller,
                                                                   std::string_view name,
                                                                   ScheduledQueryState state) {
  if (state == ScheduledQueryState::kUnspecified) {
    return absl::InvalidArgumentError("state must be ENABLED or DISABLED");
  }
  absl::MutexLock lock(&mu_);
  ASSIGN_OR_RETURN(std::shared_ptr<Entry> entry, FindLocked(caller, name));
  if (entry->definition.state == state) return DescribeLocked(*entry);
  Entry updated = *entry;
  updated.definition.state = state;
  // Enabling starts from now: a disabled period is not caught up.
  const bool enabling = state == ScheduledQueryState::kEnabled;
  if (enabling) updated.cursor = std::max(entry->cursor, engine_.clock().NowNanos());
  ++writes_;
  RETURN_IF_ERROR(records_.Put(updated.Record()));
  entry->definition.state = state;
  entry->cursor = updated.cursor;
  entry->failed_attempts = 0;
  entry->retry_at = 0;
  poked_ = true;
  spdlog::info("scheduled query \"{}\" {} by \"{}\"", name, enabling ? "enabled" : "disabled",
               caller.name());
  return DescribeLocked(*entry);
}

absl::Status ScheduledQueries::Delete(const Principal& caller, std::string_view name) {
  absl::MutexLock lock(&mu_);
  ASSIGN_OR_RETURN(std::shared_ptr<Entry> entry, FindLocked(caller, name));
  ++writes_;
  RETURN_IF_ERROR(records_.Delete(name));
  entry->deleted = true;
  entries_.erase(entries_.find(name));
  spdlog::info("scheduled query \"{}\" deleted by \"{}\"", name, caller.name());
  return absl::OkStatus();
}

absl::StatusOr<ScheduledQueryRunSummary> ScheduledQueries::Execute(const Principal& caller,
                                                                   std::string_view name,
                                                                   int64_t invocation_nanos) {
  if (invocation_nanos <= 0) {
    return absl::InvalidArgumentError(
        "invocation_time is required: the @scheduled_runtime the run computes for");
  }
  std::shared_ptr<Entry> entry;
  ScheduledQueryDefinition definition;
  auto cancel = std::make_shared<std::atomic<bool>>(false);
  {
    absl::MutexLock lock(&mu_);
    ASSIGN_OR_RETURN(entry, FindLocked(caller, name));
    definition = entry->definition;
    cancels_.push_back(cancel);
  }
  ScheduledQueryRunSummary run = RunOnce(definition, invocation_nanos, true, 1, cancel);
  absl::MutexLock lock(&mu_);
  std::erase(cancels_, cancel);
  if (!entry->deleted) RETURN_IF_ERROR(RecordLocked(*entry, run));
  return run;
}

void ScheduledQueries::RunDue() {
  absl::MutexLock lock(&mu_);
  poked_ = true;
  mu_.Await(absl::Condition(
      +[](ScheduledQueries* s)
           ABSL_EXCLUSIVE_LOCKS_REQUIRED(s->mu_) { return s->stopping_ || s->IdleLocked(); },
      this));
}

// The system tables --------------------------------------------------------

class ScheduledQueries::Tables final : public query::SystemTables {
 public:
  Tables(ScheduledQueries* owner, std::shared_ptr<const Principal> caller)
      : owner_(*owner), caller_(std::move(caller)) {}

  std::vector<std::string> Names() const override {
    return {"scheduled_queries", "scheduled_query_runs"};
  }
  absl::StatusOr<query::SystemTable> Read(std::string_view table) const override {
    if (table == "scheduled_queries") return owner_.QueriesTable(*caller_);
    if (table == "scheduled_query_runs") return owner_.RunsTable(*caller_);
    return absl::NotFoundError(StrCat("there is no system table \"", table, "\""));
  }

 private:
  ScheduledQueries& owner_;
  std::shared_ptr<const Principal> caller_;
};

std::unique_ptr<query::SystemTables> ScheduledQueries::SystemTablesFor(
    std::shared_ptr<const Principal> caller) {
  return std::make_unique<Tables>(this, std::move(caller));
}

namespace {

using query::DataType;
using query::Datum;

Datum TimeOrNull(std::optional<int64_t> nanos) {
  return nanos ? Datum::Timestamp(*nanos) : Datum::Null(DataType::kTimestamp);
}

}  // namespace

query::SystemTable ScheduledQueries::QueriesTable(const Principal& caller) {
  query::SystemTable table;
  table.columns = {{"name", DataType::kVarchar},
                   {"state", DataType::kVarchar},
                   {"schedule_expression", DataType::kVarchar},
                   {"target_database", DataType::kVarchar},
                   {"target_table", DataType::kVarchar},
                   {"owner", DataType::kVarchar},
                   {"creation_time", DataType::kTimestamp},
                   {"previous_invocation_time", DataType::kTimestamp},
                   {"next_invocation_time", DataType::kTimestamp},
                   {"last_run_status", DataType::kVarchar},
                   {"query_string", DataType::kVarchar}};
  absl::MutexLock lock(&mu_);
  for (const auto& [name, entry] : entries_) {
    if (!caller.admin() && entry->definition.owner != caller.name()) continue;
    const ScheduledQueryDescription q = DescribeLocked(*entry);
    const ScheduledQueryDefinition& d = q.definition;
    table.rows.push_back(
        {Datum::Varchar(d.name),
         Datum::Varchar(d.state == ScheduledQueryState::kDisabled ? "DISABLED" : "ENABLED"),
         Datum::Varchar(d.schedule_expression), Datum::Varchar(d.target.database_name),
         Datum::Varchar(d.target.table_name), Datum::Varchar(d.owner),
         Datum::Timestamp(d.creation_nanos), TimeOrNull(q.previous_invocation_nanos),
         TimeOrNull(q.next_invocation_nanos),
         q.last_run ? Datum::Varchar(std::string(RunStatusName(q.last_run->status)))
                    : Datum::Null(DataType::kVarchar),
         Datum::Varchar(d.query_string)});
  }
  return table;
}

query::SystemTable ScheduledQueries::RunsTable(const Principal& caller) {
  query::SystemTable table;
  table.columns = {
      {"scheduled_query", DataType::kVarchar},  {"invocation_time", DataType::kTimestamp},
      {"trigger", DataType::kVarchar},          {"attempt", DataType::kBigint},
      {"status", DataType::kVarchar},           {"trigger_time", DataType::kTimestamp},
      {"end_time", DataType::kTimestamp},       {"execution_millis", DataType::kBigint},
      {"query_result_rows", DataType::kBigint}, {"records_ingested", DataType::kBigint},
      {"records_rejected", DataType::kBigint},  {"rows_skipped", DataType::kBigint},
      {"bytes_scanned", DataType::kBigint},     {"failure_reason", DataType::kVarchar},
      {"rejected_rows", DataType::kVarchar}};
  absl::MutexLock lock(&mu_);
  for (const auto& [name, entry] : entries_) {
    if (!caller.admin() && entry->definition.owner != caller.name()) continue;
    for (const ScheduledQueryRunSummary& run : entry->runs) {
      const RunStats& s = run.stats;
      std::string rejected;
      for (const RejectedRow& r : run.rejected_rows) {
        if (!rejected.empty()) rejected += "; ";
        rejected += StrCat("row ", r.row, ": ", r.reason);
      }
      table.rows.push_back(
          {Datum::Varchar(name), Datum::Timestamp(run.invocation_nanos),
           Datum::Varchar(Manual(run.status) ? "manual" : "schedule"), Datum::Bigint(run.attempt),
           Datum::Varchar(std::string(RunStatusName(run.status))),
           Datum::Timestamp(run.trigger_nanos), Datum::Timestamp(run.end_nanos),
           Datum::Bigint(s.execution_millis), Datum::Bigint(s.query_result_rows),
           Datum::Bigint(s.records_ingested), Datum::Bigint(s.records_rejected),
           Datum::Bigint(s.rows_skipped), Datum::Bigint(s.bytes_scanned),
           run.failure_reason.empty() ? Datum::Null(DataType::kVarchar)
                                      : Datum::Varchar(run.failure_reason),
           rejected.empty() ? Datum::Null(DataType::kVarchar) : Datum::Varchar(rejected)});
    }
  }
  return table;
}

}  // namespace strata
