#include "server/http/sql_api.h"

#include <cmath>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "common/start_thread.h"
#include "common/status.h"
#include "common/strings.h"
#include "common/utf8.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "httplib.h"
#include "server/http/auth.h"
#include "server/http/body.h"
#include "server/http/connections.h"
#include "server/http/sql_result_format.h"
#include "server/runner/read_options.h"

namespace strata {
namespace {

constexpr char kPath[] = "/api/v1/sql";
// Encoded result bytes held for a client that reads slower than the query
// produces; the query waits past it.
constexpr size_t kMaxBufferedBytes = 1 << 20;

// One request, read from the query string and (POST) the body.
struct SqlRequest {
  std::string sql;
  query::QueryParameters parameters;
  std::string database;
  int64_t timeout_millis = 0;
};

absl::StatusOr<int64_t> ParseTimeout(std::string_view text) {
  int64_t millis = 0;
  if (!absl::SimpleAtoi(absl::string_view(text.data(), text.size()), &millis) || millis < 0) {
    return absl::InvalidArgumentError(
        StrCat("timeout_ms=", EchoInput(text, 40), " is not a whole number of milliseconds >= 0"));
  }
  return millis;
}

absl::StatusOr<query::Datum> ParameterOf(const google::protobuf::Value& value,
                                         std::string_view where) {
  switch (value.kind_case()) {
    case google::protobuf::Value::kNullValue:
      return query::Datum::Null();
    case google::protobuf::Value::kBoolValue:
      return query::Datum::Bool(value.bool_value());
    case google::protobuf::Value::kStringValue:
      return query::Datum::Varchar(value.string_value());
    case google::protobuf::Value::kNumberValue: {
      // JSON has one number type: a whole number that a double holds exactly
      // is a BIGINT, anything else a DOUBLE.
      const double v = value.number_value();
      constexpr double kExact = 9007199254740992.0;  // 2^53
      if (std::trunc(v) == v && std::fabs(v) <= kExact) {
        return query::Datum::Bigint(static_cast<int64_t>(v));
      }
      return query::Datum::Double(v);
    }
    default:
      return absl::InvalidArgumentError(
          StrCat("parameter ", where,
                 " is an array or object; a parameter is a number, string, "
                 "boolean or null"));
  }
}

absl::Status ReadParameters(const google::protobuf::Value& params, query::QueryParameters* out) {
  if (params.kind_case() == google::protobuf::Value::kListValue) {
    int n = 0;
    for (const google::protobuf::Value& v : params.list_value().values()) {
      ASSIGN_OR_RETURN(query::Datum d, ParameterOf(v, StrCat("$", ++n)));
      out->positional.push_back(std::move(d));
    }
    return absl::OkStatus();
  }
  if (params.kind_case() == google::protobuf::Value::kStructValue) {
    for (const auto& [name, v] : params.struct_value().fields()) {
      ASSIGN_OR_RETURN(query::Datum d, ParameterOf(v, StrCat("@", name)));
      out->named.emplace(name, std::move(d));
    }
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(
      "\"params\" is an array (for $1, $2, ...) or an object (for @name)");
}

absl::Status ReadJsonBody(std::string_view body, SqlRequest* request) {
  google::protobuf::Struct object;
  auto parsed = google::protobuf::util::JsonStringToMessage(
      google::protobuf::StringPiece(body.data(), body.size()), &object);
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(StrCat("the body is not a JSON object (",
                                             EchoInput(std::string(parsed.message()), 200),
                                             "); send {\"query\": \"SELECT ...\"}"));
  }
  for (const auto& [key, value] : object.fields()) {
    const bool text = value.kind_case() == google::protobuf::Value::kStringValue;
    if (key == "query" && text) {
      request->sql = value.string_value();
    } else if (key == "database" && text) {
      request->database = value.string_value();
    } else if (key == "params") {
      RETURN_IF_ERROR(ReadParameters(value, &request->parameters));
    } else if (key == "timeout_ms" && value.kind_case() == google::protobuf::Value::kNumberValue &&
               value.number_value() >= 0 &&
               std::trunc(value.number_value()) == value.number_value()) {
      request->timeout_millis = static_cast<int64_t>(value.number_value());
    } else if (key == "query" || key == "database" || key == "timeout_ms") {
      return absl::InvalidArgumentError(
          StrCat("\"", key, "\" is ", key == "timeout_ms" ? "a whole number >= 0" : "a string"));
    } else {
      return absl::InvalidArgumentError(
          StrCat("unknown field \"", EchoInput(key, 60),
                 "\"; a request has \"query\", \"params\", \"database\" and \"timeout_ms\""));
    }
  }
  return absl::OkStatus();
}

bool IsJson(std::string_view content_type) {
  return EqualsIgnoreCase(content_type.substr(0, content_type.find(';')), "application/json");
}

absl::StatusOr<SqlRequest> ReadSqlRequest(const httplib::Request& req, std::string_view body) {
  SqlRequest request;
  if (req.method == "GET") {
    request.sql = req.get_param_value("q");
  } else if (IsJson(req.get_header_value("Content-Type"))) {
    RETURN_IF_ERROR(ReadJsonBody(body, &request));
  } else {
    request.sql = std::string(body);
  }
  if (req.has_param("database")) request.database = req.get_param_value("database");
  if (req.has_param("timeout_ms")) {
    ASSIGN_OR_RETURN(request.timeout_millis, ParseTimeout(req.get_param_value("timeout_ms")));
  }
  if (StripWhitespace(request.sql).empty()) {
    return absl::InvalidArgumentError(
        req.method == "GET" ? "no statement: send it as ?q=SELECT ..."
                            : "no statement: send {\"query\": \"SELECT ...\"} as application/json, "
                              "or the statement alone as text/plain");
  }
  return request;
}

void ReplySqlError(const absl::Status& status, std::string_view sql, httplib::Response& res) {
  res.status = HttpStatusOf(status);
  std::string body = "{\"error\":";
  AppendSqlErrorObject(status, sql, &body);
  res.set_content(body + "}\n", "application/json");
}

// Between the query, which runs on a thread of its own and pushes pages, and
// the HTTP connection, which takes the encoded text as the client reads it.
// The query waits while kMaxBufferedBytes are unread, so a result of any
// size holds a bounded amount of memory.
class ResultChannel final : public query::ResultSink {
 public:
  ResultChannel(SqlResultFormat format, std::shared_ptr<std::atomic<bool>> cancel,
                std::shared_ptr<std::atomic<bool>> stopping)
      : writer_(SqlResultWriter::For(format)),
        cancel_(std::move(cancel)),
        stopping_(std::move(stopping)) {}

  absl::Status Columns(const std::vector<query::ResultColumn>& columns) override {
    std::string text;
    writer_->Begin(columns, &text);
    std::lock_guard lock(mu_);
    buffer_ += text;
    columns_known_ = true;
    return absl::OkStatus();
  }

  absl::Status Rows(std::vector<query::Row> page) override {
    std::string text;
    for (const query::Row& row : page) writer_->Row(row, &text);
    std::unique_lock lock(mu_);
    changed_.wait(lock, [&] { return buffer_.size() < kMaxBufferedBytes || reader_gone_; });
    if (reader_gone_) return absl::CancelledError("the HTTP client went away");
    buffer_ += text;
    streaming_ = true;
    changed_.notify_all();
    return absl::OkStatus();
  }

  // The query ended (its thread's last call).
  void Finish(absl::StatusOr<query::QueryStats> result) {
    std::lock_guard lock(mu_);
    result_ = std::move(result);
    finished_ = true;
    changed_.notify_all();
  }

  // Waits until the first rows or the query's end: an error met before
  // them (most are: names, types, the budget of an aggregate) can still be
  // the answer's status. True when the answer streams.
  // A client that leaves meanwhile (a browser's Cancel) cancels the query:
  // a long aggregation sends nothing until it ends.
  bool WaitForFirstRows() {
    std::unique_lock lock(mu_);
    while (!changed_.wait_for(lock, kStopCheck, [&] { return streaming_ || finished_; })) {
      if (stopping_->load() || GuardedHttpServer::ClientLeft()) cancel_->store(true);
    }
    return streaming_ || result_.ok();
  }
  absl::Status failure() {
    std::lock_guard lock(mu_);
    return result_.status();
  }

  // The next piece of the answer into `out`, waiting for one; false when the
  // answer is complete (`out` then holds its end, if any), and `whole` says
  // whether the format could say how it ended.
  bool Next(std::string_view sql, std::string* out, bool* whole) {
    std::unique_lock lock(mu_);
    while (!changed_.wait_for(lock, kStopCheck, [&] { return !buffer_.empty() || finished_; })) {
      if (stopping_->load()) cancel_->store(true);
    }
    out->swap(buffer_);
    buffer_.clear();
    changed_.notify_all();
    if (!finished_ || !out->empty()) return true;
    if (!columns_known_) writer_->Begin({}, out);  // a statement that answered no columns
    query::QueryStats stats = result_.ok() ? *result_ : query::QueryStats{};
    *whole = writer_->End(stats, result_.status(), sql, out);
    return false;
  }

  // The client is gone: the query stops at its next page.
  void ReaderGone() {
    cancel_->store(true);
    std::lock_guard lock(mu_);
    reader_gone_ = true;
    changed_.notify_all();
  }

 private:
  const std::unique_ptr<SqlResultWriter> writer_;  // used by the query's thread until finished
  const std::shared_ptr<std::atomic<bool>> cancel_;
  const std::shared_ptr<std::atomic<bool>> stopping_;
  std::mutex mu_;
  std::condition_variable changed_;
  std::string buffer_;
  bool columns_known_ = false;
  bool streaming_ = false;  // rows were pushed: the answer's status is sent
  bool finished_ = false;
  bool reader_gone_ = false;
  absl::StatusOr<query::QueryStats> result_ = query::QueryStats{};
};

// One request's query, on a thread of its own, and its answer.
struct RunningSql {
  std::string sql;
  std::shared_ptr<ResultChannel> channel;
  std::thread thread;
  ~RunningSql() {
    channel->ReaderGone();  // a no-op once the query ended
    if (thread.joinable()) thread.join();
  }
};

// Who asks and in which format: checked before a byte of a body is read.
struct Asker {
  std::shared_ptr<const Principal> caller;
  SqlResultFormat format = SqlResultFormat::kJson;
};

absl::StatusOr<Asker> CheckAsker(const httplib::Request& req, Authenticator& auth) {
  Asker asker;
  ASSIGN_OR_RETURN(asker.caller, AuthenticateHttp(auth, req, QueryPassword::kRefused));
  ASSIGN_OR_RETURN(asker.format, ChooseSqlResultFormat(req.get_param_value("format"),
                                                       req.get_header_value("Accept")));
  return asker;
}

void ServeSql(const httplib::Request& req, httplib::Response& res, const Asker& asker,
              std::string_view body, StatementRunner& queries,
              const std::shared_ptr<std::atomic<bool>>& stopping) {
  absl::StatusOr<SqlRequest> request = ReadSqlRequest(req, body);
  if (!request.ok()) return ReplySqlError(request.status(), "", res);

  auto cancel = std::make_shared<std::atomic<bool>>(false);
  auto running = std::make_shared<RunningSql>();
  running->sql = request->sql;
  running->channel = std::make_shared<ResultChannel>(asker.format, cancel, stopping);
  StatementRunner::Request run{
      .caller = asker.caller,
      .sql = request->sql,
      .parameters = std::move(request->parameters),
      .peer = "ipv4:" + req.remote_addr + ":" + std::to_string(req.remote_port),
      .cancel = cancel,
      .timeout_millis = request->timeout_millis,
      .default_database = request->database};
  for (std::string_view name : kReadOptionNames) {  // a cluster's read choice
    if (!req.has_param(std::string(name))) continue;
    if (absl::Status set = SetReadOption(name, req.get_param_value(std::string(name)), &run);
        !set.ok()) {
      return ReplySqlError(set, "", res);
    }
  }
  absl::StatusOr<std::thread> started = StartThread(
      "an HTTP query", [&queries, run = std::move(run), channel = running->channel]() mutable {
        channel->Finish(queries.Run(std::move(run), channel.get()));
      });
  if (!started.ok()) return ReplySqlError(started.status(), running->sql, res);
  running->thread = *std::move(started);
  if (!running->channel->WaitForFirstRows()) {
    return ReplySqlError(running->channel->failure(), running->sql, res);
  }
  res.set_chunked_content_provider(
      std::string(ContentTypeOf(asker.format)),
      [running](size_t, httplib::DataSink& sink) {
        std::string piece;
        bool whole = true;
        const bool more = running->channel->Next(running->sql, &piece, &whole);
        if (!piece.empty() && !sink.write(piece.data(), piece.size())) {
          running->channel->ReaderGone();
          return false;
        }
        if (more) return true;
        if (!whole) return false;  // cut short: the client sees an unfinished answer
        sink.done();
        return true;
      },
      [running](bool) { running->channel->ReaderGone(); });
}

}  // namespace

void RouteSqlApi(httplib::Server& server, StatementRunner* queries, Authenticator* auth,
                 std::shared_ptr<std::atomic<bool>> stopping) {
  server.Get(kPath, [=](const httplib::Request& req, httplib::Response& res) {
    absl::StatusOr<Asker> asker = CheckAsker(req, *auth);
    if (!asker.ok()) return ReplySqlError(asker.status(), "", res);
    ServeSql(req, res, *asker, "", *queries, stopping);
  });
  // The token and the format first, then the declared size, and only then
  // the body (docs/security.md, "Limits per door"); a refusal leaves the
  // body unread and closes the connection.
  server.Post(kPath, [=](const httplib::Request& req, httplib::Response& res,
                         const httplib::ContentReader& content) {
    absl::StatusOr<Asker> asker = CheckAsker(req, *auth);
    if (!asker.ok()) {
      GuardedHttpServer::CloseConnectionAfterAnswer();
      return ReplySqlError(asker.status(), "", res);
    }
    if (absl::Status declared = CheckDeclaredSize(req, kMaxSqlRequestBytes); !declared.ok()) {
      return ReplyBodyError(declared, res);
    }
    absl::StatusOr<std::string> body = ReadBody(req, content, kMaxSqlRequestBytes);
    if (!body.ok()) return ReplyBodyError(body.status(), res);
    ServeSql(req, res, *asker, *body, *queries, stopping);
  });
}

}  // namespace strata
