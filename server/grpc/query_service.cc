#include "server/grpc/query_service.h"

#include <chrono>
#include <deque>
#include <optional>

#include "common/status.h"
#include "common/strings.h"
#include "grpcpp/alarm.h"
#include "server/grpc/row_page_encoder.h"
#include "server/grpc/status_map.h"
#include "server/wire/column_pages.h"
#include "server/wire/datum_proto.h"
#include "server/wire/query_parameters.h"

namespace strata {
namespace {

// Pages queued ahead of the network before the query waits.
constexpr size_t kMaxQueuedMessages = 4;
// How long a failed query's status waits behind a write the client does not
// take before the call is cancelled.
constexpr auto kStatusGrace = std::chrono::seconds(5);

std::optional<query::ReadConsistency> ReadConsistencyOf(v1::ReadConsistency consistency) {
  switch (consistency) {
    case v1::READ_CONSISTENCY_LEADER:
      return query::ReadConsistency::kLeader;
    case v1::READ_CONSISTENCY_STRONG:
      return query::ReadConsistency::kStrong;
    case v1::READ_CONSISTENCY_FOLLOWER:
      return query::ReadConsistency::kFollower;
    default:
      return std::nullopt;  // unspecified: the node's (Query refused any other value)
  }
}

}  // namespace

// One streaming Query call, a state machine on one of the server's CallQueues: it
// awaits a request, starts the query, writes its messages one at a time and
// finishes. Shared by gRPC's operations in flight (each holds a reference
// until its step has run) and the query's task on a worker (until it has
// finished the stream); the last to let go deletes it.
class QueryService::Call final : public query::ResultSink,
                                 public std::enable_shared_from_this<Call> {
 public:
  // Asks gRPC for the service's next Query call on `queue`.
  static void Await(QueryService* service, grpc::ServerCompletionQueue* queue) {
    auto call = std::shared_ptr<Call>(new Call(service, queue));
    Call& c = *call;
    c.awaiting_ref_ = call;
    c.done_ref_ = call;  // let go by Requested when no call comes
    c.context_.AsyncNotifyWhenDone(&c.done_tag_);
    service->RequestQuery(&c.context_, &c.request_, &c.writer_, queue, queue, &c.requested_tag_);
  }

  ~Call() override {
    ReleasePending();
    absl::MutexLock lock(&mu_);
    while (!queue_.empty()) ReleaseFront();  // a stream cut short
  }

  // ResultSink, on the worker thread.
  absl::Status Columns(const std::vector<query::ResultColumn>& columns) override {
    v1::QueryResponse message;
    auto* metadata = message.mutable_metadata();
    metadata->set_query_id(ticket_->id());
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
      RETURN_IF_ERROR(FitsAMessage(bytes));
      return Enqueue(RowPageResponse(rows), bytes);
    }
    v1::QueryResponse message;
    message.Swap(&pending_);
    const int64_t bytes = static_cast<int64_t>(message.ByteSizeLong());
    RETURN_IF_ERROR(FitsAMessage(bytes));
    return Enqueue(std::move(message), bytes);
  }

  // A page is cut at page_bytes_, so only a single row can pass the largest message the server
  // sends; gRPC would refuse it with a message that names neither.
  absl::Status FitsAMessage(int64_t bytes) const {
    if (bytes <= max_message_bytes_ - 1024) return absl::OkStatus();  // the message's own fields
    return absl::ResourceExhaustedError(
        StrCat("a result row holds ", bytes, " bytes, more than the ", max_message_bytes_,
               " a message may (the server's --max-message-bytes); select less of it (substr, or "
               "fewer columns)"));
  }

  // The engine's page, sent as pages of at most page_bytes_ (a smaller --max-message-bytes
  // than the engine's page) unless a single row holds more.
  absl::Status Rows(std::vector<query::Row> page) override {
    std::vector<query::Row> part;
    int64_t bytes = 0;
    for (query::Row& row : page) {
      const int64_t row_bytes = query::RowBytes(row);
      if (!part.empty() && bytes + row_bytes > page_bytes_) {
        RETURN_IF_ERROR(SendRows(part, bytes));
        part.clear();
        bytes = 0;
      }
      part.push_back(std::move(row));
      bytes += row_bytes;
    }
    return part.empty() ? absl::OkStatus() : SendRows(part, bytes);
  }
  absl::Status SendRows(const std::vector<query::Row>& rows, int64_t bytes) {
    if (columnar_) {
      v1::QueryResponse message;
      ToColumnPage(types_, rows, message.mutable_column_page());
      RETURN_IF_ERROR(FitsAMessage(static_cast<int64_t>(message.ByteSizeLong())));
      return Enqueue(std::move(message), bytes);
    }
    std::string encoded = EncodeRowPageResponse(rows);
    RETURN_IF_ERROR(FitsAMessage(static_cast<int64_t>(encoded.size())));
    return Enqueue(std::move(encoded), bytes);
  }

  // Batches appended to a page until it holds page_size rows or page_bytes_: columns
  // into a ColumnPage, or rows encoded straight from the batch's vectors.
  bool TakesBatches() const override { return true; }
  absl::Status Batches(const query::Batch& batch) override {
    const size_t page_size = static_cast<size_t>(ticket_->request().page_size);
    for (size_t start = 0; start < batch.rows;) {
      size_t n = query::RowsWithinBytes(batch, start,
                                        std::min(batch.rows - start, page_size - PendingRows()),
                                        page_bytes_ - pending_reserved_);
      if (n == 0 && PendingRows() > 0) {  // the next row goes into a page of its own
        RETURN_IF_ERROR(SendPendingPage());
        continue;
      }
      n = std::max<size_t>(n, 1);  // a row longer than a page is one alone
      if (columnar_) {
        AppendToColumnPage(types_, batch, start, n, pending_.mutable_column_page());
      } else {
        AppendBatchRows(batch, start, n, &pending_rows_);
        pending_row_count_ += n;
      }
      start += n;
      RETURN_IF_ERROR(ReservePending());
      if (PendingRows() == page_size || pending_reserved_ >= page_bytes_) {
        RETURN_IF_ERROR(SendPendingPage());
      }
    }
    return absl::OkStatus();
  }
  absl::Status EndBatches() override { return SendPendingPage(); }
  // Pages other nodes made in this form (NewResultPageEncoder): sent as they are.
  std::optional<query::RelayForm> RelaysPages() const override {
    return query::RelayForm{.page_size = ticket_->request().page_size,
                            .page_bytes = page_bytes_,
                            .row_pages = !columnar_};
  }
  absl::Status RelayPage(std::string bytes, size_t /*rows*/) override {
    const auto size = static_cast<int64_t>(bytes.size());
    RETURN_IF_ERROR(FitsAMessage(size));
    return Enqueue(std::move(bytes), size);
  }
  size_t PendingRows() const {
    return columnar_ ? static_cast<size_t>(pending_.column_page().row_count())
                     : pending_row_count_;
  }

  // The page being filled counts against the server's budget as it grows
  // (a page of long strings can hold many megabytes before it is sent).
  absl::Status ReservePending() {
    const int64_t bytes =
        static_cast<int64_t>(pending_rows_.size()) + ColumnPageBytes(pending_.column_page());
    if (bytes <= pending_reserved_) return absl::OkStatus();
    RETURN_IF_ERROR(
        runner_.memory_budget().Reserve(bytes - pending_reserved_, "the result page being filled"));
    pending_reserved_ = bytes;
    return absl::OkStatus();
  }
  void ReleasePending() {
    runner_.memory_budget().Release(pending_reserved_);
    pending_reserved_ = 0;
  }

  // A write or the finish completed.
  void WriteDone(bool ok) {
    std::shared_ptr<Call> ref;  // the operation's; let go after the lock
    absl::MutexLock lock(&mu_);
    ref = std::move(op_ref_);
    writing_ = false;
    if (done_) {  // the status went out (or the call ended first)
      while (!queue_.empty()) ReleaseFront();
      return;
    }
    ReleaseFront();
    if (!ok) *cancel_ = true;  // the client is gone
    WriteNextLocked();
  }

  // The call is over for gRPC: finished, or cancelled (by the client, the
  // deadline or the server's shutdown), which stops the query.
  void CallDone(bool /*ok*/) {
    std::shared_ptr<Call> ref;
    absl::MutexLock lock(&mu_);  // wakes a producer waiting for room
    ref = std::move(done_ref_);
    if (context_.IsCancelled()) *cancel_ = true;
    ended_ = true;
    if (alarm_ref_ != nullptr) abandon_.Cancel();
  }

  // On the worker, once the query has run and left the registry: the end of
  // the stream.
  void Finished(const std::shared_ptr<Call>& self, absl::StatusOr<query::QueryStats> stats) {
    ReleasePending();  // a page not sent (an error ended the query)
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
        runner_.memory_budget().Release(queue_.back().reserved);
        queue_.pop_back();
      }
      if (writing_) {
        // The status goes out after the pending write, which a client that
        // stopped reading never lets finish: that would hold the call (and
        // its memory) open for good. A cancelled query ends at once (its
        // client hears CANCELLED either way); another error, a timeout too,
        // gets a moment for its status to get through: cut at once, a
        // timeout reached a reading client as "Cancelled on the server side"
        // whenever a page was being written (CI, session 46).
        if (absl::IsCancelled(stats.status())) {
          context_.TryCancel();
        } else if (!ended_) {  // ended: the write fails at once
          // On the call's queue (an alarm with a callback would start
          // gRPC's callback threads, which poll every socket); the call
          // ending cancels it, so its reference is let go then.
          alarm_ref_ = self;
          abandon_.Set(call_queue_, std::chrono::system_clock::now() + kStatusGrace, &abandon_tag_);
        }
      }
    }
    final_status_ = ToGrpcStatus(stats.status());
    finished_ = true;
    WriteNextLocked();
  }

 private:
  Call(QueryService* service, grpc::ServerCompletionQueue* queue)
      : service_(*service),
        runner_(service->runner_),
        call_queue_(queue),
        lease_(service->queues_),
        cancel_(std::make_shared<std::atomic<bool>>(false)),
        max_message_bytes_(service->max_message_bytes_),
        page_bytes_(query::PageBytesWithin(query::kPageBytes, max_message_bytes_)) {}

  // A request came (ok), or the server is shutting down and none will.
  void Requested(bool ok) {
    std::shared_ptr<Call> ref = std::move(awaiting_ref_);
    if (!ok) {
      done_ref_.reset();  // gRPC sends no done notification for a call never begun
      return;
    }
    try {
      Begin();
    } catch (const std::exception& e) {
      FinishNow(ToGrpcStatus(absl::InternalError(StrCat("unexpected error: ", e.what()))));
    }
    Await(&service_, call_queue_);  // once this call's step is done: rpc/call_queues.h
  }

  // The request checked and the query started, or the call refused.
  void Begin() {
    absl::StatusOr<std::shared_ptr<const Principal>> caller =
        AuthenticateCall(service_.auth_, context_);
    if (!caller.ok()) return FinishNow(ToGrpcStatus(caller.status()));
    v1::QueryRequest request;
    if (absl::Status status = ParseRequest(request_, &request); !status.ok()) {
      return FinishNow(ToGrpcStatus(status));
    }
    absl::StatusOr<query::QueryParameters> parameters = ParametersFromProto(request.parameters());
    if (!parameters.ok()) return FinishNow(ToGrpcStatus(parameters.status()));
    if (!v1::ReadConsistency_IsValid(request.read().consistency())) {
      return FinishNow(ToGrpcStatus(absl::InvalidArgumentError(
          StrCat("read.consistency ", request.read().consistency(),
                 " is none of READ_CONSISTENCY_LEADER (1), _STRONG (2) or _FOLLOWER (3)"))));
    }
    columnar_ = request.columnar();
    ticket_ = runner_.Register(
        {.caller = *std::move(caller),
         .sql = request.query_string(),
         .parameters = *std::move(parameters),
         .peer = context_.peer(),
         .cancel = cancel_,
         .page_size = request.page_size() <= 0 ? 1000 : request.page_size(),
         .timeout_millis = request.timeout_millis(),
         .default_database = request.database(),
         .read_consistency = ReadConsistencyOf(request.read().consistency()),
         .max_staleness = std::chrono::milliseconds(request.read().max_staleness_millis()),
         .max_fragments = request.read().max_fragments(),
         .hedge_after = std::chrono::milliseconds(request.read().hedge_after_millis())});
    absl::Status admitted = runner_.Start(
        ticket_, this, [call = shared_from_this()](absl::StatusOr<query::QueryStats> stats) {
          call->Finished(call, std::move(stats));
        });
    if (!admitted.ok()) FinishNow(ToGrpcStatus(admitted));
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
    RETURN_IF_ERROR(runner_.memory_budget().Reserve(bytes, "result pages waiting for the client"));
    absl::MutexLock lock(&mu_);
    auto room = [this] { return queue_.size() < kMaxQueuedMessages || cancel_->load(); };
    // CancelQuery sets the flag without this mutex: look again now and then.
    while (!mu_.AwaitWithTimeout(absl::Condition(&room), absl::Milliseconds(100))) {
      if (std::chrono::steady_clock::now() > ticket_->deadline()) {
        runner_.memory_budget().Release(bytes);
        return absl::DeadlineExceededError(
            "the query ran past its timeout while the client was not reading its results");
      }
    }
    if (cancel_->load()) {
      runner_.memory_budget().Release(bytes);
      return absl::CancelledError("the query was cancelled");
    }
    queue_.push_back(std::move(queued));
    WriteNextLocked();
    return absl::OkStatus();
  }

  void ReleaseFront() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    runner_.memory_budget().Release(queue_.front().reserved);
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
        done_ = true;  // the entry stays queued (its bytes are in flight) until WriteDone
        op_ref_ = shared_from_this();
        writer_.WriteAndFinish(next.bytes, grpc::WriteOptions(), final_status_, &written_tag_);
        return;
      }
      op_ref_ = shared_from_this();
      writer_.Write(next.bytes, &written_tag_);
      return;
    }
    if (finished_) {
      while (!queue_.empty()) ReleaseFront();
      FinishLocked(cancel_->load() && final_status_.ok()
                       ? grpc::Status(grpc::StatusCode::CANCELLED, "the query was cancelled")
                       : final_status_);
    }
  }

  // The call's last operation, once and never beside a write (gRPC allows neither).
  void FinishLocked(const grpc::Status& status) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (done_ || writing_) return;
    done_ = true;
    writing_ = true;  // the finish is the call's last operation
    op_ref_ = shared_from_this();
    writer_.Finish(status, &written_tag_);
  }

  // The status's grace is over (`fired`), or the alarm was cancelled.
  void AbandonIfStuck(bool fired) {
    std::shared_ptr<Call> ref;
    absl::MutexLock lock(&mu_);
    ref = std::move(alarm_ref_);
    if (fired && writing_ && !ended_) context_.TryCancel();
  }

  // Ends a call that never ran (refused before or at admission).
  void FinishNow(const grpc::Status& status) {
    absl::MutexLock lock(&mu_);
    FinishLocked(status);
  }

  QueryService& service_;
  QueryRunner& runner_;
  grpc::ServerCompletionQueue* const call_queue_;  // the one the call came on
  CallQueues::Lease lease_;
  grpc::ServerContext context_;
  grpc::ByteBuffer request_;
  grpc::ServerAsyncWriter<grpc::ByteBuffer> writer_{&context_};
  std::shared_ptr<std::atomic<bool>> cancel_;
  bool columnar_ = false;               // pages as ColumnPage; set before the query starts
  const int64_t max_message_bytes_;     // the largest message the server sends
  const int64_t page_bytes_;            // a page is sent once it holds this many
  // The query in the runner; set before it starts.
  std::shared_ptr<QueryRunner::Ticket> ticket_;
  v1::QueryResponse pending_;           // the columnar page being filled from batches
  std::string pending_rows_;            // or the row page's encoded rows
  size_t pending_row_count_ = 0;
  int64_t pending_reserved_ = 0;        // of the server's budget, for pending_
  std::vector<query::DataType> types_;  // the result's, from Columns
  // gRPC's operations' references to the call, each let go when its step runs.
  std::shared_ptr<Call> awaiting_ref_;                 // the request awaited
  std::shared_ptr<Call> done_ref_;                     // the done notification
  std::shared_ptr<Call> op_ref_ ABSL_GUARDED_BY(mu_);  // a write or the finish in flight
  std::shared_ptr<Call> alarm_ref_ ABSL_GUARDED_BY(mu_);  // abandon_ set
  absl::Mutex mu_;
  std::deque<Queued> queue_ ABSL_GUARDED_BY(mu_);
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
  bool done_ ABSL_GUARDED_BY(mu_) = false;   // the finish started
  bool ended_ ABSL_GUARDED_BY(mu_) = false;  // the done notification came
  grpc::Status final_status_ ABSL_GUARDED_BY(mu_);
  grpc::Alarm abandon_;
  CallQueues::StepTag<Call, &Call::Requested> requested_tag_{this};
  CallQueues::StepTag<Call, &Call::WriteDone> written_tag_{this};
  CallQueues::StepTag<Call, &Call::CallDone> done_tag_{this};
  CallQueues::StepTag<Call, &Call::AbandonIfStuck> abandon_tag_{this};
};

void QueryService::Serve(CallQueues* queues) {
  queues_ = queues;
  for (const auto& queue : queues->queues()) Call::Await(this, queue.get());
  ServeUnary(queues, auth_, this, &QueryService::RequestCancelQuery, &QueryService::CancelQuery);
}

absl::Status QueryService::CancelQuery(const Principal& caller,
                                       const v1::CancelQueryRequest* request,
                                       v1::CancelQueryResponse* response) {
  if (!runner_.Cancel(caller, request->query_id())) {
    response->set_cancellation_message(
        StrCat("query ", request->query_id(), " is not running (finished, cancelled or unknown)"));
    return absl::OkStatus();
  }
  response->set_cancellation_message(StrCat("query ", request->query_id(), " was cancelled"));
  return absl::OkStatus();
}

}  // namespace strata
