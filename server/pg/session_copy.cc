// Session::RunCopyIn: COPY table FROM STDIN. The statement runs on a query worker while this
// session's thread waits for it, and asks for the client's rows one at a time; the rows are
// read from the connection as it asks (CopyInDecoder), so a copy of any size holds one line
// and one batch of records.
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"
#include "common/strings.h"
#include "query/base/error.h"
#include "server/pg/session.h"

namespace strata::pg {
namespace {

// A COPY runs as long as its client sends, not within the server's query timeout (a load of
// 100 M rows takes minutes); instead it ends when the client sends nothing for this long.
constexpr auto kCopyRunsFor = std::chrono::hours(24);
constexpr auto kCopyIdleFor = std::chrono::minutes(5);

// The statement's answer: the rows it wrote.
class CountSink final : public query::ResultSink {
 public:
  absl::Status Columns(const std::vector<query::ResultColumn>&) override {
    return absl::OkStatus();
  }
  absl::Status Rows(std::vector<query::Row> page) override {
    if (!page.empty() && !page[0].empty()) written = page[0][0].i;
    return absl::OkStatus();
  }
  int64_t written = 0;
};

// The rows a function reads.
class ReadRows final : public query::CopyRows {
 public:
  explicit ReadRows(std::function<absl::StatusOr<bool>(query::CopyRow*)> next)
      : next_(std::move(next)) {}
  absl::StatusOr<bool> Next(query::CopyRow* row) override { return next_(row); }

 private:
  std::function<absl::StatusOr<bool>(query::CopyRow*)> next_;
};

}  // namespace

absl::Status Session::RunCopyIn(const CopyStatement& copy) {
  CopyInDecoder decoder(copy);
  bool started = false;  // CopyInResponse sent: the client is sending its data
  bool ended = false;    // its CopyDone or CopyFail read
  // The client's next message, if it sends one within kCopyIdleFor.
  auto read_message = [this](char* type, std::string* body) {
    stream_->SetReadDeadline(std::chrono::steady_clock::now() + kCopyIdleFor);
    const bool read = ReadMessage(type, body, kMaxMessageBytes);
    stream_->SetReadDeadline(std::nullopt);
    return read;
  };
  ReadRows rows([&](query::CopyRow* row) -> absl::StatusOr<bool> {
    if (!started) {
      out_.Begin('G');  // CopyInResponse: the text format for the whole copy
      out_.Bytes(std::string_view("\0", 1));
      out_.Int16(0);
      out_.End();
      if (!Flush()) return absl::CancelledError("the client went away");
      started = true;
    }
    while (true) {
      ASSIGN_OR_RETURN(const bool got, decoder.Next(row));
      if (got || ended) return got;
      char type;
      std::string body;
      if (!read_message(&type, &body)) {
        broken_ = true;
        return absl::CancelledError(
            StrCat("the client went away (or sent nothing for ",
                   std::chrono::duration_cast<std::chrono::seconds>(kCopyIdleFor).count(),
                   " s) during COPY FROM STDIN"));
      }
      switch (type) {
        case 'd':  // CopyData
          decoder.Feed(body);
          break;
        case 'c':  // CopyDone
          decoder.Finish();
          ended = true;
          break;
        case 'f': {  // CopyFail
          ended = true;
          MessageReader in(body);
          return absl::CancelledError(StrCat("COPY from stdin failed: ", in.CString()));
        }
        case 'H':  // Flush and Sync: ignored during a copy, as PostgreSQL does
        case 'S':
          break;
        default:
          broken_ = true;
          return absl::InvalidArgumentError(StrCat(
              "unexpected message type '", std::string(1, type), "' during COPY FROM STDIN"));
      }
    }
  });
  StatementRunner::Request local{
      .caller = caller_,
      .sql = copy.query,
      .peer = peer_,
      .cancel = cancel_,
      .timeout_millis = std::chrono::duration_cast<std::chrono::milliseconds>(kCopyRunsFor).count(),
      .default_database = database_,
      .copy_rows = &rows};
  // Times without an offset are the session's wall clock, as an INSERT's.
  if (Zone() != nullptr) local.parameters.time_zone = zone_setting_;
  CountSink sink;
  const absl::Status run = context_.queries->Run(local, &sink).status();
  // A COPY that failed while the client sent: the client goes on to CopyDone (or CopyFail)
  // before it reads the error, so the rest of its data is read and dropped.
  while (started && !ended && !broken_) {
    char type;
    std::string body;
    if (!read_message(&type, &body)) {
      broken_ = true;
    } else {
      ended = type == 'c' || type == 'f';
      if (!ended && type != 'd' && type != 'H' && type != 'S') broken_ = true;
    }
  }
  // The statement is Strata's own spelling of the COPY: its errors point nowhere in the COPY.
  if (!run.ok()) return absl::Status(run.code(), query::SqlErrorMessage(run));
  SendCommandComplete(StrCat("COPY ", sink.written));
  return absl::OkStatus();
}

}  // namespace strata::pg
