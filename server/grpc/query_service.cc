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

// One streaming Query call. Shared by gRPC (until OnDone) and the query's
// task on a worker (until it has finished the stream); the last to let go
// deletes it.
class QueryService::Call final : public grpc::ServerWriteReactor<grpc::ByteBuffer>,
                                 public query::ResultSink {
 public:
  // The reactor for gRPC: valid until OnDone, whatever the task still does.
  static Call* Start(QueryRunner* runner, grpc::CallbackServerContext* context,
                     const v1::QueryRequest& request, std::shared_ptr<const Principal> caller,
                     query::QueryParameters parameters, int64_t max_message_bytes) {
    auto call =
        std::shared_ptr<Call>(new Call(runner, context, request.columnar(), max_message_bytes));
    call->self_ = call;
    call->ticket_ = runner->Register(
        {.caller = std::move(caller),
         .sql = request.query_string(),
         .parameters = std::move(parameters),
         .peer = context->peer(),
         .cancel = call->cancel_,
         .page_size = request.page_size() <= 0 ? 1000 : request.page_size(),
         .timeout_millis = request.timeout_millis(),
         .default_database = request.database(),
         .read_consistency = ReadConsistencyOf(request.read().consistency()),
         .max_staleness = std::chrono::milliseconds(request.read().max_staleness_millis()),
         .max_fragments = request.read().max_fragments(),
         .hedge_after = std::chrono::milliseconds(request.read().hedge_after_millis())});
    absl::Status admitted =
        runner->Start(call->ticket_, call.get(), [call](absl::StatusOr<query::QueryStats> stats) {
          call->Finished(call, std::move(stats));
        });
    if (!admitted.ok()) call->FinishNow(ToGrpcStatus(admitted));
    return call.get();
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

 private:
  Call(QueryRunner* runner, grpc::CallbackServerContext* context, bool columnar,
       int64_t max_message_bytes)
      : runner_(*runner),
        context_(context),
        cancel_(std::make_shared<std::atomic<bool>>(false)),
        columnar_(columnar),
        max_message_bytes_(max_message_bytes),
        page_bytes_(query::PageBytesWithin(query::kPageBytes, max_message_bytes)) {}

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
    absl::MutexLock lock(&mu_);
    done_ = true;
    Finish(std::move(status));
  }


  QueryRunner& runner_;
  grpc::CallbackServerContext* context_;
  std::shared_ptr<std::atomic<bool>> cancel_;
  const bool columnar_;                 // pages as ColumnPage
  const int64_t max_message_bytes_;     // the largest message the server sends
  const int64_t page_bytes_;            // a page is sent once it holds this many
  // The query in the runner; set before it starts.
  std::shared_ptr<QueryRunner::Ticket> ticket_;
  v1::QueryResponse pending_;           // the columnar page being filled from batches
  std::string pending_rows_;            // or the row page's encoded rows
  size_t pending_row_count_ = 0;
  int64_t pending_reserved_ = 0;        // of the server's budget, for pending_
  std::vector<query::DataType> types_;  // the result's, from Columns
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
  if (!v1::ReadConsistency_IsValid(parsed.read().consistency())) {
    return new RefusedQuery(absl::InvalidArgumentError(
        StrCat("read.consistency ", parsed.read().consistency(),
               " is none of READ_CONSISTENCY_LEADER (1), _STRONG (2) or _FOLLOWER (3)")));
  }
  return Call::Start(&runner_, context, parsed, *std::move(caller), *std::move(parameters),
                     max_message_bytes_);
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
