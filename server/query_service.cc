#include "server/query_service.h"

#include <chrono>
#include <deque>
#include <random>
#include <thread>

#include "common/status.h"
#include "common/strings.h"
#include "common/utf8.h"
#include "server/column_pages.h"
#include "server/datum_proto.h"
#include "server/row_page_encoder.h"
#include "absl/synchronization/notification.h"
#include "grpcpp/alarm.h"
#include "server/status_map.h"
#include "spdlog/spdlog.h"

namespace strata {
namespace {

// Whose share of the query workers a query takes (QueryWorkers): its token,
// or with authentication off the client's connection.
std::string WorkerOwner(const Principal& caller, std::string_view peer) {
  return &caller == &Principal::Unrestricted() ? StrCat("peer ", peer)
                                               : StrCat("token ", caller.name());
}

// Pages queued ahead of the network before the query waits.
constexpr size_t kMaxQueuedMessages = 4;
constexpr int kMaxRowsPerPage = 100'000;
// How long a failed query's status waits behind a write the client does not
// take before the call is cancelled.
constexpr auto kStatusGrace = std::chrono::seconds(5);

// SHOW QUERIES and KILL QUERY for one caller.
class CallerRunningQueries final : public query::RunningQueries {
 public:
  CallerRunningQueries(QueryService* service, const Principal* caller)
      : service_(*service), caller_(*caller) {}
  std::vector<query::RunningQuery> List() const override { return service_.ListRunning(caller_); }
  absl::Status Kill(std::string_view id) const override {
    if (service_.Cancel(caller_, std::string(id))) return absl::OkStatus();
    return absl::NotFoundError(StrCat("query ", EchoInput(id, 40), " is not running (finished, "
                                      "cancelled, or not yours); SHOW QUERIES lists them"));
  }

 private:
  QueryService& service_;
  const Principal& caller_;
};

// What a query's caller may read, from its token's grants.
class PrincipalAccess final : public query::ReadAccess {
 public:
  explicit PrincipalAccess(std::shared_ptr<const Principal> caller) : caller_(std::move(caller)) {}
  absl::Status CheckRead(std::string_view database, std::string_view table) const override {
    return caller_->Require(Action::kRead, database, table);
  }
  absl::Status CheckWrite(std::string_view database, std::string_view table) const override {
    return caller_->Require(Action::kWrite, database, table);
  }
  bool MaySee(std::string_view database) const override { return caller_->MaySee(database); }
  bool MaySee(std::string_view database, std::string_view table) const override {
    return caller_->MaySee(database, table);
  }
  const Principal& caller() const { return *caller_; }
  const std::shared_ptr<const Principal>& shared_caller() const { return caller_; }

 private:
  std::shared_ptr<const Principal> caller_;
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

absl::StatusOr<query::QueryParameters> ParametersFromProto(
    const google::protobuf::RepeatedPtrField<v1::QueryParameter>& parameters) {
  query::QueryParameters out;
  for (int i = 0; i < parameters.size(); ++i) {
    const v1::QueryParameter& p = parameters[i];
    const v1::Datum& v = p.value();
    query::Datum d;
    switch (v.value_case()) {
      case v1::Datum::kNullValue: d = query::Datum::Null(); break;
      case v1::Datum::kDoubleValue: d = query::Datum::Double(v.double_value()); break;
      case v1::Datum::kBigintValue: d = query::Datum::Bigint(v.bigint_value()); break;
      case v1::Datum::kVarcharValue: d = query::Datum::Varchar(v.varchar_value()); break;
      case v1::Datum::kBooleanValue: d = query::Datum::Bool(v.boolean_value()); break;
      case v1::Datum::kTimestampValue: d = query::Datum::Timestamp(v.timestamp_value()); break;
      case v1::Datum::kIntervalNanosValue: d = query::Datum::Interval(v.interval_nanos_value()); break;
      case v1::Datum::kIntervalMonthsValue: d = query::Datum::Months(v.interval_months_value()); break;
      case v1::Datum::kDateValue: {
        // Only days whose midnight is a timestamp (the range every DATE has).
        const int64_t days = v.date_value();
        if (days < query::DateOfTimestamp(INT64_MIN) + 1 || days > query::DateOfTimestamp(INT64_MAX)) {
          return absl::InvalidArgumentError(
              StrCat("parameter ", i + 1, (p.name().empty() ? "" : StrCat(" (@", p.name(), ")")),
                     ": date_value ", days, " is outside 1677-09-22 .. 2262-04-11"));
        }
        d = query::Datum::Date(days);
        break;
      }
      default:
        return absl::InvalidArgumentError(StrCat(
            "parameter ", i + 1, (p.name().empty() ? "" : StrCat(" (@", p.name(), ")")),
            " has no value or a type parameters cannot have; use null, double, bigint, varchar, "
            "boolean, timestamp, date, interval_nanos or interval_months"));
    }
    if (p.name().empty()) {
      out.positional.push_back(std::move(d));
    } else if (!out.named.emplace(p.name(), std::move(d)).second) {
      return absl::InvalidArgumentError(StrCat("parameter @", p.name(), " is sent twice"));
    }
  }
  return out;
}

// One streaming Query call. Shared by gRPC (until OnDone) and the query's
// task on a worker (until it has finished the stream); the last to let go
// deletes it.
class QueryService::Call final : public grpc::ServerWriteReactor<grpc::ByteBuffer>,
                                 public query::ResultSink {
 public:
  // The reactor for gRPC: valid until OnDone, whatever the task still does.
  static Call* Start(QueryService* service, grpc::CallbackServerContext* context,
                     const v1::QueryRequest* request, std::shared_ptr<const Principal> caller,
                     query::QueryParameters parameters) {
    auto call = std::shared_ptr<Call>(new Call(service, context, request, std::move(caller)));
    call->options_.parameters = std::move(parameters);
    call->self_ = call;
    if (!service->workers_.TrySubmit(WorkerOwner(call->access_.caller(), context->peer()),
                                     [call] { call->Run(call); })) {
      call->FinishNow(grpc::Status(
          grpc::StatusCode::RESOURCE_EXHAUSTED,
          StrCat("the server is running ", service->workers_.workers(), " queries with ",
                 service->workers_.queue_capacity(),
                 " more waiting; retry shortly, or raise the server's --query-workers or "
                 "--query-queue")));
    }
    return call.get();
  }

  // ResultSink, on the worker thread.
  absl::Status Columns(const std::vector<query::ResultColumn>& columns) override {
    v1::QueryResponse message;
    auto* metadata = message.mutable_metadata();
    metadata->set_query_id(query_id_);
    for (const auto& c : columns) {
      types_.push_back(c.type);
      auto* info = metadata->add_columns();
      SetWellFormed(c.name, info->mutable_name());
      TypeToProto(c.type, info->mutable_type());
    }
    return Enqueue(std::move(message), /*bytes=*/0);
  }

  absl::Status SendPendingPage() {
    if (PendingRows() == 0) return absl::OkStatus();
    ReleasePending();  // Enqueue reserves the whole page
    if (!columnar_) {
      std::string rows;
      rows.swap(pending_rows_);
      pending_row_count_ = 0;
      const int64_t bytes = static_cast<int64_t>(rows.size());
      return Enqueue(RowPageResponse(rows), bytes);
    }
    v1::QueryResponse message;
    message.Swap(&pending_);
    const int64_t bytes = static_cast<int64_t>(message.ByteSizeLong());
    return Enqueue(std::move(message), bytes);
  }

  absl::Status Rows(std::vector<query::Row> page) override {
    v1::QueryResponse message;
    int64_t bytes = 0;
    if (columnar_) {
      for (const query::Row& row : page) bytes += query::RowBytes(row);
      ToColumnPage(types_, page, message.mutable_column_page());
      return Enqueue(std::move(message), bytes);
    }
    for (const query::Row& row : page) bytes += query::RowBytes(row);  // near enough
    return Enqueue(EncodeRowPageResponse(page), bytes);
  }

  // Batches appended to a page until it holds page_size rows: columns
  // into a ColumnPage, or rows encoded straight from the batch's vectors.
  bool TakesBatches() const override { return true; }
  absl::Status Batches(const query::Batch& batch) override {
    const size_t page_size = static_cast<size_t>(options_.page_size);
    for (size_t start = 0; start < batch.rows;) {
      const size_t n = std::min(batch.rows - start, page_size - PendingRows());
      if (columnar_) {
        AppendToColumnPage(types_, batch, start, n, pending_.mutable_column_page());
      } else {
        AppendBatchRows(batch, start, n, &pending_rows_);
        pending_row_count_ += n;
      }
      start += n;
      RETURN_IF_ERROR(ReservePending());
      if (PendingRows() == page_size) RETURN_IF_ERROR(SendPendingPage());
    }
    return absl::OkStatus();
  }
  absl::Status EndBatches() override { return SendPendingPage(); }
  size_t PendingRows() const {
    return columnar_ ? static_cast<size_t>(pending_.column_page().row_count())
                     : pending_row_count_;
  }

  // The page being filled counts against the server's budget as it grows
  // (a page of long strings can hold many megabytes before it is sent).
  absl::Status ReservePending() {
    int64_t bytes = static_cast<int64_t>(pending_rows_.size());
    for (const v1::ColumnValues& c : pending_.column_page().columns()) {
      bytes += 8 * (c.doubles_size() + c.ints_size()) + c.booleans_size() +
               4 * c.string_ends_size() + static_cast<int64_t>(c.string_data().size() +
                                                              c.nulls().size());
    }
    if (bytes <= pending_reserved_) return absl::OkStatus();
    RETURN_IF_ERROR(
        service_->budget_.Reserve(bytes - pending_reserved_, "the result page being filled"));
    pending_reserved_ = bytes;
    return absl::OkStatus();
  }
  void ReleasePending() {
    service_->budget_.Release(pending_reserved_);
    pending_reserved_ = 0;
  }

  void OnWriteDone(bool ok) override {
    absl::MutexLock lock(&mu_);
    writing_ = false;
    ReleaseFront();
    if (!ok) *cancel_ = true;  // the client is gone
    WriteNextLocked();
  }

  void OnCancel() override {
    absl::MutexLock lock(&mu_);  // wakes a producer waiting for room
    *cancel_ = true;
  }

  void OnDone() override {
    {
      absl::MutexLock lock(&mu_);
      ended_ = true;  // context_ is gRPC's no longer ours to use
      while (!queue_.empty()) ReleaseFront();  // a message written with the status
    }
    self_.reset();
  }

 private:
  Call(QueryService* service, grpc::CallbackServerContext* context, const v1::QueryRequest* request,
       std::shared_ptr<const Principal> caller)
      : service_(service),
        context_(context),
        cancel_(std::make_shared<std::atomic<bool>>(false)),
        sql_(request->query_string()),
        columnar_(request->columnar()),
        admitted_(std::chrono::steady_clock::now()),
        access_(std::move(caller)) {
    query_id_ = service_->Register(
        {.cancel = cancel_, .owner = access_.caller().name(), .text = sql_,
         .peer = context->peer(),
         .started_nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(
                              std::chrono::system_clock::now().time_since_epoch())
                              .count(),
         .started = std::chrono::steady_clock::now(),
         .progress = progress_});
    options_.progress = progress_.get();
    options_.page_size =
        request->page_size() <= 0 ? 1000 : std::min(request->page_size(), kMaxRowsPerPage);
    options_.default_database = request->database();
    options_.timeout_millis = request->timeout_millis() > 0
                                  ? request->timeout_millis()
                                  : service_->limits_.default_timeout_millis;
    options_.memory_limit_bytes = service_->limits_.memory_limit_bytes;
    options_.cancelled = cancel_.get();
    options_.shared_budget = &service_->budget_;
    options_.access = &access_;
    options_.running = &running_;
    if (service_->system_tables_) {
      system_tables_ = service_->system_tables_(access_.shared_caller());
      options_.system_tables = system_tables_.get();
    }
  }

  // On a worker: runs the query, then finishes the stream.
  void Run(const std::shared_ptr<Call>& self) {
    // Time spent waiting for a worker counts against the query's timeout.
    const int64_t waited = std::chrono::duration_cast<std::chrono::milliseconds>(
                               std::chrono::steady_clock::now() - admitted_)
                               .count();
    const int64_t requested_timeout_millis = options_.timeout_millis;
    options_.timeout_millis = std::max<int64_t>(1, options_.timeout_millis - waited);
    deadline_ =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(options_.timeout_millis);
    const auto started = std::chrono::steady_clock::now();
    absl::Status delayed = TestingDelay(*cancel_, service_->limits_.testing_delay_millis,
                                        options_.timeout_millis, requested_timeout_millis);
    absl::StatusOr<query::QueryStats> stats =
        !delayed.ok()    ? delayed
        : cancel_->load() ? absl::CancelledError("the query was cancelled")
                          : service_->engine_.Execute(sql_, options_, this);
    ReleasePending();  // a page not sent (an error ended the query)
    service_->Observe(
        query_id_, access_.caller().name(), sql_, stats,
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
    // Leave the registry before the client can see the end of the stream,
    // so a CancelQuery after that finds the query gone.
    service_->Unregister(query_id_);
    absl::MutexLock lock(&mu_);
    if (stats.ok()) {
      v1::QueryResponse message;
      auto* s = message.mutable_statistics();
      s->set_rows_returned(stats->rows_returned);
      s->set_rows_scanned(stats->rows_scanned);
      s->set_bytes_scanned(stats->bytes_scanned);
      s->set_buckets_scanned(stats->buckets_scanned);
      s->set_buckets_pruned(stats->buckets_pruned);
      s->set_partitions_scanned(stats->partitions_scanned);
      s->set_partitions_pruned(stats->partitions_pruned);
      s->set_series_scanned(stats->series_scanned);
      s->set_series_pruned(stats->series_pruned);
      s->set_blocks_scanned(stats->blocks_scanned);
      s->set_blocks_pruned(stats->blocks_pruned);
      s->set_elapsed_nanos(stats->elapsed_nanos);
      queue_.push_back({std::move(message), 0});
    } else {
      // An error ends the stream: pages not yet sent are of no use.
      while (queue_.size() > (writing_ ? 1u : 0u)) {
        service_->budget_.Release(queue_.back().reserved);
        queue_.pop_back();
      }
      if (writing_) {
        // The status goes out after the pending write, which a client that
        // stopped reading never lets finish: that would hold the call (and
        // its memory) open for good. A cancelled or timed-out query ends at
        // once; another error gets a moment for its status to get through.
        if (absl::IsCancelled(stats.status()) || absl::IsDeadlineExceeded(stats.status())) {
          context_->TryCancel();
        } else {
          // A weak reference: the alarm is the Call's own member, and must
          // not be what keeps the Call alive (its destructor would then run
          // inside the alarm's own callback state).
          abandon_.Set(std::chrono::system_clock::now() + kStatusGrace,
                       [weak = std::weak_ptr<Call>(self)](bool fired) {
                         if (auto call = weak.lock(); call && fired) call->AbandonIfStuck();
                       });
        }
      }
    }
    final_status_ = ToGrpcStatus(stats.status());
    finished_ = true;
    WriteNextLocked();
  }

  struct Queued {
    v1::QueryResponse message;
    int64_t reserved = 0;       // bytes taken from the server's budget
    std::string encoded;        // instead of `message` (never empty when used)
    grpc::ByteBuffer bytes;     // what is written, once it is
  };

  // Queues a response: a message, or one already encoded (row pages).
  // `bytes`: what it holds, reserved from the budget until it is written.
  absl::Status Enqueue(v1::QueryResponse message, int64_t bytes) {
    return Enqueue(Queued{.message = std::move(message), .reserved = bytes});
  }
  absl::Status Enqueue(std::string encoded, int64_t bytes) {
    return Enqueue(Queued{.reserved = bytes, .encoded = std::move(encoded)});
  }
  // Waits for room in the queue: the query runs no further ahead of the
  // client than a few pages, and those pages come from the server's query
  // memory budget. DEADLINE_EXCEEDED when the client does not read in time.
  absl::Status Enqueue(Queued queued) {
    const int64_t bytes = queued.reserved;
    RETURN_IF_ERROR(service_->budget_.Reserve(bytes, "result pages waiting for the client"));
    absl::MutexLock lock(&mu_);
    auto room = [this] { return queue_.size() < kMaxQueuedMessages || cancel_->load(); };
    // CancelQuery sets the flag without this mutex: look again now and then.
    while (!mu_.AwaitWithTimeout(absl::Condition(&room), absl::Milliseconds(100))) {
      if (std::chrono::steady_clock::now() > deadline_) {
        service_->budget_.Release(bytes);
        return absl::DeadlineExceededError(
            "the query ran past its timeout while the client was not reading its results");
      }
    }
    if (cancel_->load()) {
      service_->budget_.Release(bytes);
      return absl::CancelledError("the query was cancelled");
    }
    queue_.push_back(std::move(queued));
    WriteNextLocked();
    return absl::OkStatus();
  }

  void ReleaseFront() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    service_->budget_.Release(queue_.front().reserved);
    queue_.pop_front();
  }

  void WriteNextLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (writing_ || done_) return;
    if (!queue_.empty() && !cancel_->load()) {
      writing_ = true;
      // Serialized here, which is mostly on gRPC's thread as the previous
      // write completes, so it overlaps with the query producing the next
      // page (on 2 cores serializing on the worker cost ~10% of a large
      // result's time).
      Queued& next = queue_.front();
      if (!next.encoded.empty()) {
        next.bytes = TakeAsByteBuffer(std::move(next.encoded));
      } else if (!SerializeResponse(next.message, &next.bytes).ok()) {
        // Only a message past protobuf's 2 GB limit fails; pages are far
        // smaller. End the call rather than send a partial result.
        *cancel_ = true;
        ReleaseFront();
        WriteNextLocked();
        return;
      }
      // The last message of a successful query goes out with the status:
      // one operation instead of a write, its callback and a Finish. (Not
      // buffer_hint for the others: a buffered write does not complete until
      // a later one flushes it, and the next write waits for it. Nor is the
      // metadata held back to go with the first page: it carries the
      // query_id a client needs to cancel a long query.)
      if (finished_ && queue_.size() == 1 && final_status_.ok()) {
        done_ = true;  // the entry stays queued (its bytes are in flight) until OnDone
        StartWriteAndFinish(&next.bytes, grpc::WriteOptions(), final_status_);
        return;
      }
      StartWrite(&next.bytes);
      return;
    }
    if (finished_) {
      while (!queue_.empty()) ReleaseFront();
      done_ = true;
      Finish(cancel_->load() && final_status_.ok()
                 ? grpc::Status(grpc::StatusCode::CANCELLED, "the query was cancelled")
                 : final_status_);
    }
  }

  void AbandonIfStuck() {
    absl::MutexLock lock(&mu_);
    if (writing_ && !ended_) context_->TryCancel();
  }

  // Ends a call that never ran (refused at admission).
  void FinishNow(grpc::Status status) {
    service_->Unregister(query_id_);
    absl::MutexLock lock(&mu_);
    done_ = true;
    Finish(std::move(status));
  }


  QueryService* service_;
  grpc::CallbackServerContext* context_;
  std::shared_ptr<std::atomic<bool>> cancel_;
  // What the query has read so far, for SHOW QUERIES.
  const std::shared_ptr<query::QueryProgress> progress_ = std::make_shared<query::QueryProgress>();
  const std::string sql_;
  const bool columnar_;                 // pages as ColumnPage
  v1::QueryResponse pending_;           // the columnar page being filled from batches
  std::string pending_rows_;            // or the row page's encoded rows
  size_t pending_row_count_ = 0;
  int64_t pending_reserved_ = 0;        // of the server's budget, for pending_
  std::vector<query::DataType> types_;  // the result's, from Columns
  const std::chrono::steady_clock::time_point admitted_;
  std::chrono::steady_clock::time_point deadline_ = std::chrono::steady_clock::time_point::max();
  query::QueryOptions options_;
  std::string query_id_;
  const PrincipalAccess access_;
  const CallerRunningQueries running_{service_, &access_.caller()};
  std::unique_ptr<query::SystemTables> system_tables_;
  std::shared_ptr<Call> self_;  // gRPC's reference, dropped in OnDone
  absl::Mutex mu_;
  std::deque<Queued> queue_ ABSL_GUARDED_BY(mu_);
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
  bool done_ ABSL_GUARDED_BY(mu_) = false;   // Finish called
  bool ended_ ABSL_GUARDED_BY(mu_) = false;  // OnDone called
  grpc::Status final_status_ ABSL_GUARDED_BY(mu_);
  grpc::Alarm abandon_;
};

namespace {

// The answer to a Query request that does not parse.
class RefusedQuery final : public grpc::ServerWriteReactor<grpc::ByteBuffer> {
 public:
  explicit RefusedQuery(const absl::Status& status) { Finish(ToGrpcStatus(status)); }
  void OnDone() override { delete this; }
};

}  // namespace

QueryService::QueryService(Engine* engine, Authenticator* auth, ServerMetrics* metrics,
                           QueryLimits limits)
    : engine_(engine),
      auth_(*auth),
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

grpc::ServerWriteReactor<grpc::ByteBuffer>* QueryService::Query(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* request) {
  absl::StatusOr<std::shared_ptr<const Principal>> caller = AuthenticateCall(auth_, *context);
  if (!caller.ok()) return new RefusedQuery(caller.status());
  v1::QueryRequest parsed;
  if (absl::Status status = ParseRequest(*request, &parsed); !status.ok()) {
    return new RefusedQuery(status);
  }
  absl::StatusOr<query::QueryParameters> parameters = ParametersFromProto(parsed.parameters());
  if (!parameters.ok()) return new RefusedQuery(parameters.status());
  return Call::Start(this, context, &parsed, *std::move(caller), *std::move(parameters));
}

absl::Status QueryService::CancelQuery(const Principal& caller,
                                       const v1::CancelQueryRequest* request,
                                       v1::CancelQueryResponse* response) {
  if (!Cancel(caller, request->query_id())) {
    response->set_cancellation_message(
        StrCat("query ", request->query_id(), " is not running (finished, cancelled or unknown)"));
    return absl::OkStatus();
  }
  response->set_cancellation_message(StrCat("query ", request->query_id(), " was cancelled"));
  return absl::OkStatus();
}

void QueryService::Observe(const std::string& id, const std::string& token, std::string_view sql,
                           const absl::StatusOr<query::QueryStats>& stats, double seconds) {
  static const query::QueryStats kNone;
  const query::QueryStats& s = stats.ok() ? *stats : kNone;
  metrics_.CountQuery(stats.status(), s, seconds);
  const int64_t slow = limits_.slow_query_millis;
  if (slow < 0 || seconds * 1000 < static_cast<double>(slow)) return;
  spdlog::info(
      "slow query: id={} token={} elapsed_ms={:.0f} code={} rows_returned={} rows_scanned={} "
      "bytes_scanned={} text={:?}",
      id, token, seconds * 1000, GrpcCodeName(static_cast<int>(stats.status().code())),
      s.rows_returned, s.rows_scanned, s.bytes_scanned, ToValidUtf8(Utf8Prefix(sql, 500)));
}

absl::StatusOr<query::QueryStats> QueryService::RunLocal(const LocalQuery& local,
                                                         query::ResultSink* sink) {
  const auto admitted = std::chrono::steady_clock::now();
  const PrincipalAccess access(local.caller);
  const CallerRunningQueries running(this, &access.caller());
  const auto progress = std::make_shared<query::QueryProgress>();
  const std::string id = Register(
      {.cancel = local.cancel, .owner = access.caller().name(), .text = local.sql,
       .peer = local.peer,
       .started_nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count(),
       .started = admitted,
       .progress = progress});
  query::QueryOptions options;
  options.progress = progress.get();
  options.page_size = std::clamp(local.page_size, 1, kMaxRowsPerPage);
  options.memory_limit_bytes = limits_.memory_limit_bytes;
  options.cancelled = local.cancel.get();
  options.shared_budget = &budget_;
  options.access = &access;
  options.running = &running;
  std::unique_ptr<query::SystemTables> system_tables;
  if (system_tables_) {
    system_tables = system_tables_(local.caller);
    options.system_tables = system_tables.get();
  }
  options.parameters = local.parameters;
  options.describe_only = local.describe_only;
  options.default_database = local.default_database;
  absl::StatusOr<query::QueryStats> stats;
  absl::Notification done;
  const bool admitted_now = workers_.TrySubmit(WorkerOwner(*local.caller, local.peer), [&] {
    const auto started = std::chrono::steady_clock::now();
    const int64_t waited =
        std::chrono::duration_cast<std::chrono::milliseconds>(started - admitted).count();
    options.timeout_millis = std::max<int64_t>(1, limits_.default_timeout_millis - waited);
    absl::Status delayed = local.describe_only
                               ? absl::OkStatus()
                               : TestingDelay(*local.cancel, limits_.testing_delay_millis,
                                              options.timeout_millis,
                                              limits_.default_timeout_millis);
    stats = !delayed.ok()         ? delayed
            : local.cancel->load() ? absl::CancelledError("the query was cancelled")
                                   : engine_.Execute(local.sql, options, sink);
    if (!local.describe_only) {  // planning a statement for Describe is not a query run
      Observe(id, access.caller().name(), local.sql, stats,
              std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
    }
    done.Notify();
  });
  if (!admitted_now) {
    Unregister(id);
    return absl::ResourceExhaustedError(
        StrCat("the server is running ", workers_.workers(), " queries with ",
               workers_.queue_capacity(),
               " more waiting; retry shortly, or raise the server's --query-workers or "
               "--query-queue"));
  }
  done.WaitForNotification();
  Unregister(id);
  return stats;
}

bool QueryService::Cancel(const Principal& caller, const std::string& id) {
  absl::MutexLock lock(&mu_);
  auto it = running_.find(id);
  // Another token's query is as good as unknown, unless the caller is admin.
  if (it == running_.end() || (!caller.admin() && it->second.owner != caller.name())) return false;
  *it->second.cancel = true;
  return true;
}

std::vector<query::RunningQuery> QueryService::ListRunning(const Principal& caller) {
  const auto now = std::chrono::steady_clock::now();
  std::vector<query::RunningQuery> out;
  absl::MutexLock lock(&mu_);
  for (const auto& [id, q] : running_) {
    if (!caller.admin() && q.owner != caller.name()) continue;
    out.push_back({.id = id, .text = q.text, .token = q.owner, .peer = q.peer,
                   .started_nanos = q.started_nanos,
                   .elapsed_nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        now - q.started)
                                        .count(),
                   .rows_scanned = q.progress->rows_scanned.load(std::memory_order_relaxed),
                   .bytes_scanned = q.progress->bytes_scanned.load(std::memory_order_relaxed)});
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return a.started_nanos < b.started_nanos;
  });
  return out;
}

std::string QueryService::Register(Running running) {
  static thread_local std::mt19937_64 random(std::random_device{}());
  absl::MutexLock lock(&mu_);
  std::string id = fmt::format("{:016x}{:04x}", random(), ++next_id_ & 0xffff);
  running_.emplace(id, std::move(running));
  return id;
}

void QueryService::Unregister(const std::string& query_id) {
  absl::MutexLock lock(&mu_);
  running_.erase(query_id);
}

}  // namespace strata
