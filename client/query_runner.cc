#include "client/query_runner.h"

#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "client/column_pages.h"
#include "client/interrupt.h"

namespace strata::cli {
namespace {

// Watches for Ctrl-C while a query streams. The stream's Read blocks, so the
// cancellation has to come from another thread.
class CancelWatcher {
 public:
  CancelWatcher(Connection& connection, grpc::ClientContext& context)
      : connection_(connection), context_(context), thread_([this] { Watch(); }) {}

  ~CancelWatcher() {
    {
      std::lock_guard lock(mutex_);
      done_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }

  void SetQueryId(const std::string& id) {
    std::lock_guard lock(mutex_);
    query_id_ = id;
  }

  bool cancelled() const { return cancelled_.load(); }

  // The stream has ended on our side: its status must follow at once. If it
  // does not within `grace`, the stream stopped at a message that could not
  // be decoded, after which gRPC would wait forever: end the call.
  void ExpectStatusWithin(std::chrono::milliseconds grace) {
    std::lock_guard lock(mutex_);
    status_due_ = std::chrono::steady_clock::now() + grace;
  }
  bool gave_up_waiting() const { return gave_up_.load(); }

 private:
  void Watch() {
    std::unique_lock lock(mutex_);
    while (!done_) {
      wake_.wait_for(lock, std::chrono::milliseconds(20));
      if (done_) continue;
      if (status_due_ && std::chrono::steady_clock::now() > *status_due_) {
        gave_up_ = true;
        context_.TryCancel();
        return;
      }
      if (!Interrupted()) continue;
      cancelled_ = true;
      std::string id = query_id_;
      lock.unlock();
      if (!id.empty()) {
        // Stop the work on the server first, then end our side of the call.
        v1::CancelQueryRequest request;
        request.set_query_id(id);
        v1::CancelQueryResponse response;
        connection_.query().CancelQuery(connection_.UnaryContext().get(), request, &response);
      }
      context_.TryCancel();
      return;
    }
  }

  Connection& connection_;
  grpc::ClientContext& context_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool done_ = false;
  std::string query_id_;
  std::atomic<bool> cancelled_{false};
  std::atomic<bool> gave_up_{false};
  std::optional<std::chrono::steady_clock::time_point> status_due_;
  std::thread thread_;
};

}  // namespace

QueryOutcome RunQuery(Connection& connection, const std::string& sql, ResultWriter& writer,
                      int page_size, double timeout_seconds, const std::string& database,
                      const v1::ReadOptions& read) {
  QueryOutcome outcome;
  grpc::ClientContext context;
  connection.Authorize(context);
  v1::QueryRequest request;
  request.set_query_string(sql);
  request.set_page_size(page_size);
  request.set_database(database);
  request.set_columnar(true);  // smaller and cheaper to decode than row pages
  *request.mutable_read() = read;
  if (timeout_seconds > 0) {
    // At least 1 ms: a fraction of one would round to 0, the server's default.
    request.set_timeout_millis(std::max<int64_t>(1, std::llround(timeout_seconds * 1000)));
  }
  int64_t rows = 0;
  // The header is printed with the first rows (or at a successful end), so
  // a query that fails before any row prints its error alone.
  bool begun = false;
  bool has_metadata = false;
  v1::QueryMetadata metadata;
  auto begin = [&] {
    if (!begun) writer.Begin(metadata);
    begun = true;
  };
  {
    CancelWatcher watcher(connection, context);
    auto reader = connection.query().Query(&context, request);
    v1::QueryResponse response;
    grpc::Status undecodable;
    while (undecodable.ok() && reader->Read(&response)) {
      switch (response.payload_case()) {
        case v1::QueryResponse::kMetadata:
          metadata = response.metadata();
          has_metadata = true;
          watcher.SetQueryId(response.metadata().query_id());
          break;
        case v1::QueryResponse::kColumnPage: {
          absl::StatusOr<v1::RowPage> page = RowsFromColumns(metadata, response.column_page());
          if (!page.ok()) {
            undecodable = grpc::Status(grpc::StatusCode::DATA_LOSS,
                                       absl::StrCat("the server sent a page that does not match "
                                                    "its columns: ",
                                                    page.status().message()));
            context.TryCancel();
            break;
          }
          rows += page->rows_size();
          begin();
          writer.Page(*page);
          break;
        }
        case v1::QueryResponse::kPage:
          rows += response.page().rows_size();
          begin();
          writer.Page(response.page());
          break;
        case v1::QueryResponse::kStatistics:
          outcome.has_statistics = true;
          outcome.statistics = response.statistics();
          break;
        default:
          break;
      }
    }
    watcher.ExpectStatusWithin(std::chrono::seconds(5));
    outcome.status = reader->Finish();
    if (!undecodable.ok()) outcome.status = undecodable;
    outcome.interrupted = watcher.cancelled();
    if (watcher.gave_up_waiting()) {
      outcome.status = grpc::Status(
          grpc::StatusCode::DATA_LOSS,
          "the server's response could not be decoded (invalid UTF-8 text or a message of a "
          "newer protocol version); the rows printed before this point are complete");
    }
  }
  // A query that succeeded with no rows still shows its (empty) result; one
  // cancelled or failed before any row arrived has none: no empty table and
  // "(0 rows)" above "query cancelled" or the error.
  if (has_metadata && outcome.status.ok() && !outcome.interrupted) begin();
  if (begun) writer.Finish();
  return outcome;
}

std::string StatisticsText(const v1::QueryStatistics& s) {
  std::string text = absl::StrFormat("%d row%s in %.1f ms; scanned %d rows (%d bytes)",
                                     s.rows_returned(), s.rows_returned() == 1 ? "" : "s",
                                     s.elapsed_nanos() / 1e6, s.rows_scanned(), s.bytes_scanned());
  absl::StrAppend(&text, ", ", s.series_scanned(), " series (", s.series_pruned(), " pruned), ",
                  s.buckets_scanned(), " time buckets (", s.buckets_pruned(), " pruned), ",
                  s.blocks_scanned(), " blocks (", s.blocks_pruned(), " pruned)");
  return text;
}

}  // namespace strata::cli
