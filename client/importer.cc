#include "client/importer.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <fstream>
#include <future>
#include <iostream>
#include <mutex>
#include <optional>
#include <random>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "client/command.h"
#include "client/common_attributes.h"
#include "client/interrupt.h"
#include "client/request_encoder.h"
#include "client/write_window.h"
#include "grpcpp/generic/generic_stub.h"

namespace strata::cli {
namespace {

constexpr size_t kFirstRejectionsKept = 5;

// Whether the call found no server to answer it: none listening (UNAVAILABLE), or the
// connection reset the call's stream as a stopping server closed it (INTERNAL "Received
// RST_STREAM with error code 2"). Neither says whether the write was applied.
bool ServerAway(const grpc::Status& status) {
  return status.error_code() == grpc::StatusCode::UNAVAILABLE ||
         (status.error_code() == grpc::StatusCode::INTERNAL &&
          absl::StartsWith(status.error_message(), "Received RST_STREAM"));
}

// Tabs and line breaks would split a reject-log entry.
std::string OneLine(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c != '\r') {
      out += c;
    }
  }
  return out;
}

// One WriteRecords request and where each of its records came from. Its
// records are `request`'s, or already encoded (`encoded`) when the parser
// writes them straight to bytes (RecordParser::EncodesRecords).
struct Batch {
  v1::WriteRecordsRequest request;
  EncodedRecords encoded;
  int size() const { return request.records_size() + encoded.count; }
  std::vector<int64_t> lines;
  std::vector<std::string> texts;  // only kept when rejections are logged
};

class Importer {
 public:
  Importer(Connection& connection, RecordParser& parser, const ImportOptions& options)
      : connection_(connection), parser_(parser), options_(options) {
    if (options.on_reject == OnReject::kLog) {
      reject_log_.open(options.reject_log_path, std::ios::out | std::ios::trunc);
    }
  }

  ImportSummary Run(LineReader& input) {
    auto start = std::chrono::steady_clock::now();
    if (options_.on_reject == OnReject::kLog && !reject_log_) {
      summary_.fatal = grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                                    "cannot write the reject log " + options_.reject_log_path);
      return summary_;
    }
    std::vector<std::thread> senders;
    for (int i = 0; i < options_.in_flight; ++i) senders.emplace_back([this] { Send(); });
    std::thread progress([this, start] { ReportProgress(start); });

    Read(input);
    {
      std::lock_guard lock(mutex_);
      closed_ = true;
    }
    queue_changed_.notify_all();
    for (auto& sender : senders) sender.join();
    {
      std::lock_guard lock(mutex_);
      finished_ = true;
    }
    progress_wake_.notify_all();
    progress.join();

    summary_.ingested = ingested_.load();
    summary_.rejected = rejected_.load();
    summary_.resent = resent_.load();
    summary_.interrupted = Interrupted();
    summary_.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return summary_;
  }

 private:
  void Read(LineReader& input) {
    Batch batch = NewBatch();
    std::string_view line;
    std::string joined;  // a record that spans lines
    int64_t line_number = 0;
    while (!stop_.load() && !stop_reading_.load() && !Interrupted() && input.Next(&line)) {
      int64_t first_line = ++line_number;
      bytes_read_ += line.size() + 1;
      // A quoted CSV field may hold line breaks: read on to its end.
      if (parser_.NeedsMoreLines(line)) {
        joined.assign(line);
        std::string_view next;
        while (parser_.NeedsMoreLines(joined) && input.Next(&next)) {
          ++line_number;
          bytes_read_ += next.size() + 1;
          joined += '\n';
          joined.append(next);
        }
        line = joined;
      }
      summary_.lines_read = line_number;
      // Parsed into the request's next record: a recycled request keeps its
      // records' allocations.
      absl::StatusOr<bool> parsed = encodes_
                                        ? parser_.EncodeInto(line, &batch.encoded)
                                        : parser_.ParseInto(line, records_.Add(&batch.request));
      if (!parsed.ok() || !*parsed) {
        if (!encodes_) batch.request.mutable_records()->RemoveLast();
        if (!parsed.ok()) {
          Reject(first_line, std::string(parsed.status().message()), std::string(line));
        }
        continue;
      }
      batch.lines.push_back(first_line);
      if (options_.on_reject == OnReject::kLog) batch.texts.emplace_back(line);
      if (batch.size() >= options_.batch_size) {
        Enqueue(std::move(batch));
        batch = NewBatch();
      }
    }
    if (!input.error().empty()) {
      std::lock_guard lock(mutex_);
      summary_.fatal = grpc::Status(grpc::StatusCode::DATA_LOSS,
                                    "reading " + options_.source_name + " failed after line " +
                                        std::to_string(line_number) + ": " + input.error());
    }
    // With --on-reject fail the records read before the rejection still go.
    if (batch.size() > 0 && !stop_.load()) Enqueue(std::move(batch));
  }

  // A request a sender is done with (its records kept for the parser), or a new one.
  Batch NewBatch() {
    Batch batch;
    {
      std::lock_guard lock(mutex_);
      if (!spent_.empty()) {
        batch.request = std::move(spent_.back().request);
        batch.encoded = std::move(spent_.back().encoded);
        spent_.pop_back();
      }
    }
    records_.Recycle(&batch.request);
    batch.encoded.Clear();
    batch.request.set_database_name(options_.database);
    batch.request.set_table_name(options_.table);
    return batch;
  }

  void Enqueue(Batch batch) {
    std::unique_lock lock(mutex_);
    // Bounded: the reader waits for the senders instead of filling memory.
    queue_changed_.wait(lock, [this] {
      return queue_.size() < static_cast<size_t>(2 * options_.in_flight) || stop_.load();
    });
    if (stop_.load()) return;
    queue_.push_back(std::move(batch));
    queue_changed_.notify_all();
  }

  void Send() {
    while (true) {
      Batch batch;
      bool probe = false;
      {
        std::unique_lock lock(mutex_);
        // The first request goes alone: an error every request would get
        // (no such table, no grant, no server) comes back once, and the
        // server logs one failed call, not one per request in flight.
        queue_changed_.wait(lock, [this] {
          return stop_.load() || (!probing_ && (!queue_.empty() || closed_));
        });
        if (stop_.load() || queue_.empty()) return;
        batch = std::move(queue_.front());
        queue_.pop_front();
        if (!probed_) probe = probing_ = true;
      }
      queue_changed_.notify_all();
      v1::WriteRecordsResponse response;
      grpc::Status status = Write(batch, &response);
      if (probe || !status.ok()) {
        // One critical section, so no sender takes a batch between the
        // probe's end and the stop its failure makes.
        std::lock_guard lock(mutex_);
        if (probe) {
          probing_ = false;
          probed_ = status.ok();
        }
        if (!status.ok()) {
          if (!summary_.fatal) summary_.fatal = status;
          summary_.nothing_sent = probe;
          stop_ = true;
        }
        queue_changed_.notify_all();
      }
      if (!status.ok()) return;
      ingested_ += response.records_ingested().total();
      for (const auto& rejected : response.rejected_records()) {
        size_t index = rejected.record_index();
        if (index >= batch.lines.size()) continue;
        Reject(batch.lines[index],
               CliRejectionHint(rejected.reason(), options_.database, options_.table),
               index < batch.texts.size() ? batch.texts[index] : std::string());
      }
      std::lock_guard lock(mutex_);
      if (spent_.size() < static_cast<size_t>(2 * options_.in_flight)) {
        spent_.push_back({std::move(batch.request), std::move(batch.encoded)});
      }
    }
  }

  // One request, sent again while the server refuses it for being busy
  // (RESOURCE_EXHAUSTED: its write queue full, or its memory store over
  // budget while hours are sealed; nothing of the request was written):
  // several loaders, or a --batch-size × --parallel beyond the server's
  // --write-queue, must slow the import down, not end it. The window
  // (write_window.h) narrows to what the server takes; a request refused
  // with one in flight backs off, and fails after kAttempts such refusals.
  // Sent again too while a server that answered before is away, for up to
  // --retry-seconds: a restart or a failover should not end a long import, and
  // a record written twice with the same version is stored once.
  grpc::Status Write(Batch& batch, v1::WriteRecordsResponse* response) {
    // Encoded once (request_encoder.h), sent as bytes through a generic stub.
    // The slices are not copied: the call ends before this returns.
    thread_local std::string buffer;
    size_t length = 0;
    if (encodes_) {
      // The request's names, then the records as they were encoded.
      WireWriter writer(&buffer, 0);
      writer.String(1, options_.database);
      writer.String(2, options_.table);
      length = writer.used();
    } else {
      FactorCommonAttributes(&batch.request);
      length = EncodeWriteRecordsRequest(batch.request, &buffer);
    }
    const grpc::Slice slices[] = {
        grpc::Slice(buffer.data(), length, grpc::Slice::STATIC_SLICE),
        grpc::Slice(batch.encoded.bytes.data(), batch.encoded.used, grpc::Slice::STATIC_SLICE)};
    const grpc::ByteBuffer bytes(slices, encodes_ ? 2 : 1);
    constexpr int kAttempts = 10;
    std::chrono::milliseconds backoff(50);
    std::optional<std::chrono::steady_clock::time_point> away_since;
    for (int attempt = 1;;) {
      const uint64_t generation = window_.Acquire();
      std::unique_ptr<grpc::ClientContext> context = connection_.UnaryContext();
      std::promise<grpc::Status> done;
      bulk_write_.UnaryCall(context.get(), "/strata.v1.WriteService/BulkWriteRecords", {},
                            &bytes, response,
                            [&done](grpc::Status status) { done.set_value(std::move(status)); });
      grpc::Status status = done.get_future().get();
      const bool too_large = status.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED &&
                             absl::StrContains(status.error_message(), "larger than max");
      const bool busy = status.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED && !too_large;
      const bool alone = window_.Done(generation, busy          ? WriteWindow::Outcome::kRefused
                                                  : status.ok() ? WriteWindow::Outcome::kTaken
                                                                : WriteWindow::Outcome::kFailed);
      if (too_large) {
        // gRPC's own refusal of a message over the server's --max-message-bytes: the same
        // request would be refused again.
        return grpc::Status(
            status.error_code(),
            absl::StrCat(
                "a request of ", batch.lines.size(), " records (", bytes.Length(),
                " bytes) is larger than the server takes (its --max-message-bytes; gRPC said \"",
                status.error_message(), "\"): import with a smaller --batch-size"));
      }
      const bool away = ServerAway(status);
      if (!away) answered_ = true;
      if (status.ok() && away_since) announced_away_ = false;  // back: the next absence is told
      if (away && answered_.load() && !stop_.load() && !Interrupted()) {
        const auto now = std::chrono::steady_clock::now();
        if (!away_since) away_since = now;
        if (now - *away_since < std::chrono::seconds(options_.retry_seconds)) {
          if (!announced_away_.exchange(true)) {
            std::fprintf(stderr,
                         "\nimport: the server is away (%s); sending again for up to %d s\n",
                         status.error_message().c_str(), options_.retry_seconds);
          }
          ++resent_;
          Backoff(&backoff);
          continue;
        }
      }
      if (!busy || (alone && ++attempt > kAttempts) || stop_.load() || Interrupted()) {
        return status;
      }
      if (!alone) continue;  // sent again once the narrower window lets it
      Backoff(&backoff);
    }
  }

  // Waits `backoff`, jittered so that senders refused together do not come back together, and
  // doubles it up to a second.
  static void Backoff(std::chrono::milliseconds* backoff) {
    thread_local std::minstd_rand jitter(std::random_device{}());
    std::this_thread::sleep_for(*backoff / 2 + *backoff * (jitter() % 100) / 100);
    *backoff = std::min<std::chrono::milliseconds>(2 * *backoff, std::chrono::seconds(1));
  }

  void Reject(int64_t line, const std::string& reason, const std::string& text) {
    ++rejected_;
    std::lock_guard lock(rejections_mutex_);
    summary_.first_rejections.emplace(line, reason);
    if (summary_.first_rejections.size() > kFirstRejectionsKept) {
      summary_.first_rejections.erase(std::prev(summary_.first_rejections.end()));
    }
    if (reject_log_.is_open()) {
      reject_log_ << line << '\t' << OneLine(reason) << '\t' << OneLine(text) << '\n';
    }
    if (options_.on_reject == OnReject::kFail) stop_reading_ = true;
  }

  void ReportProgress(std::chrono::steady_clock::time_point start) {
    using namespace std::chrono_literals;
    if (options_.progress == ImportOptions::Progress::kNone) return;
    const auto interval = options_.progress == ImportOptions::Progress::kBar ? 200ms : 5s;
    std::unique_lock lock(mutex_);
    bool drew = false;
    while (!progress_wake_.wait_for(lock, interval, [this] { return finished_; })) {
      // Print without holding the queue's lock: the reader and senders need it.
      lock.unlock();
      double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      int64_t rows = ingested_.load() + rejected_.load();
      double rate = seconds > 0 ? rows / seconds : 0;
      double fraction = options_.source_bytes > 0
                            ? std::min(1.0, double(bytes_read_.load()) / options_.source_bytes)
                            : 0;
      std::string eta = "";
      if (fraction > 0.01) eta = absl::StrFormat("  ETA %.0fs", seconds / fraction - seconds);
      if (options_.progress == ImportOptions::Progress::kBar) {
        constexpr int kWidth = 30;
        int filled = static_cast<int>(fraction * kWidth);
        std::string bar = options_.source_bytes > 0
                              ? absl::StrFormat("[%s%s] %3.0f%%  ", std::string(filled, '='),
                                                std::string(kWidth - filled, ' '), fraction * 100)
                              : "";
        std::fprintf(stderr, "\r%s%lld rows  %.0f rows/s%s   ", bar.c_str(),
                     static_cast<long long>(rows), rate, eta.c_str());
        drew = true;
      } else {
        std::fprintf(stderr, "import: %lld rows%s, %.0f rows/s%s\n", static_cast<long long>(rows),
                     options_.source_bytes > 0
                         ? absl::StrFormat(" (%.0f%%)", fraction * 100).c_str()
                         : "",
                     rate, eta.c_str());
      }
      std::fflush(stderr);
      lock.lock();
    }
    if (drew) std::fprintf(stderr, "\r\033[K");
  }

  Connection& connection_;
  grpc::TemplatedGenericStub<grpc::ByteBuffer, v1::WriteRecordsResponse> bulk_write_{
      connection_.channel()};
  RecordParser& parser_;
  const bool encodes_ = parser_.EncodesRecords();
  RecordPool records_;  // the reader thread's: records of sent requests, kept allocated
  const ImportOptions& options_;
  WriteWindow window_{options_.in_flight};

  std::mutex mutex_;
  std::condition_variable queue_changed_;
  std::condition_variable progress_wake_;
  std::deque<Batch> queue_;  // GUARDED_BY(mutex_)
  // Requests already sent, for NewBatch to reuse.
  struct Spent {
    v1::WriteRecordsRequest request;
    EncodedRecords encoded;
  };
  std::vector<Spent> spent_;  // GUARDED_BY(mutex_)
  bool closed_ = false;      // GUARDED_BY(mutex_): the reader is done
  bool probing_ = false;     // GUARDED_BY(mutex_): the first request is out, alone
  bool probed_ = false;      // GUARDED_BY(mutex_): it succeeded; the rest go in parallel
  bool finished_ = false;    // GUARDED_BY(mutex_): the senders are done

  std::mutex rejections_mutex_;
  std::ofstream reject_log_;  // GUARDED_BY(rejections_mutex_)

  std::atomic<bool> stop_{false};          // a fatal error: stop everything
  std::atomic<bool> stop_reading_{false};  // --on-reject fail: send what was read, then stop
  std::atomic<int64_t> ingested_{0};
  std::atomic<int64_t> rejected_{0};
  std::atomic<int64_t> bytes_read_{0};
  std::atomic<bool> answered_{false};        // some call reached the server
  std::atomic<bool> announced_away_{false};  // the server's absence was reported
  std::atomic<int64_t> resent_{0};
  ImportSummary summary_;  // fatal GUARDED_BY(mutex_), first_rejections by rejections_mutex_
};

}  // namespace

ImportSummary RunImport(Connection& connection, LineReader& input, RecordParser& parser,
                        const ImportOptions& options) {
  Importer importer(connection, parser, options);
  return importer.Run(input);
}

}  // namespace strata::cli
