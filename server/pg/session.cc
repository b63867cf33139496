#include "server/pg/session.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "common/status.h"
#include "common/strings.h"
#include "common/utf8.h"
#include "query/base/error.h"
#include "query/base/time_zone.h"
#include "query/parse/lexer.h"
#include "query/parse/parser.h"
#include "server/pg/errors.h"
#include "server/pg/startup_options.h"
#include "server/pg/time_zone_setting.h"
#include "server/pg/types.h"
#include "server/runner/read_options.h"
#include "spdlog/spdlog.h"

namespace strata::pg {
namespace {

// Marks the session busy with a message for the server's watch of its client (ClientWatch).
class WatchedWork {
 public:
  explicit WatchedWork(ClientWatch* watch) : watch_(watch) {
    if (watch_ != nullptr) watch_->busy.store(true, std::memory_order_release);
  }
  ~WatchedWork() {
    if (watch_ != nullptr) watch_->busy.store(false, std::memory_order_release);
  }
  WatchedWork(const WatchedWork&) = delete;
  WatchedWork& operator=(const WatchedWork&) = delete;

 private:
  ClientWatch* watch_;
};

constexpr int32_t kProtocolV3 = 196608;
constexpr int32_t kSslRequest = 80877103;
constexpr int32_t kGssEncRequest = 80877104;
constexpr int32_t kCancelRequest = 80877102;
// Before authentication a client may send only small messages, as with
// PostgreSQL: a startup packet of up to 10,000 bytes and a password message
// of up to this (a Strata token is 88 bytes). A larger announced length
// ends the connection before anything is allocated for it.
constexpr int32_t kMaxStartupBytes = 10'000;
// Settings the startup's options may make (each a few bytes of the 10,000 above at least).
constexpr size_t kMaxStartupOptions = 64;
constexpr int32_t kMaxPasswordMessageBytes = 4096;
// The protocol counts a statement's parameters in an Int16.
constexpr int kMaxParameters = 32767;
// Prepared statements and open portals one session may hold: each keeps text
// or rows in memory, so a client cannot make them grow without bound.
constexpr size_t kMaxStatements = 1000;
constexpr size_t kMaxPortals = 64;
// And the bytes its prepared statements keep together (text, rewritten text,
// declared types): 1,000 statements of 256 KiB kept 512 MB per session.
constexpr size_t kMaxStatementBytes = 16 << 20;
// Writes go out once this much is buffered (and at ReadyForQuery).
constexpr size_t kFlushBytes = 64 << 10;
// Results kept for Execute with a row limit come from the server's query
// memory budget; one session's (all its portals together) may hold a quarter
// of it, and at most this much, so that one client cannot take it all.
constexpr int64_t kMaxKeptResultBytes = 256 << 20;

std::string FirstWord(std::string_view sql) {
  size_t i = 0;
  while (i < sql.size() && !std::isalpha(static_cast<unsigned char>(sql[i]))) ++i;
  std::string word;
  while (i < sql.size() && std::isalpha(static_cast<unsigned char>(sql[i]))) {
    word.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(sql[i++]))));
  }
  return word;
}

// CREATE, ALTER and DROP answer no rows, only their command tag.
bool IsCatalogChange(std::string_view first_word) {
  return first_word == "create" || first_word == "alter" || first_word == "drop";
}

// Their tag as PostgreSQL sends it ("CREATE TABLE"): the statement's first two words.
std::string CatalogChangeTag(std::string_view sql) {
  query::Lexer lexer(sql);
  query::Token token;
  std::string tag;
  for (int i = 0; i < 2 && lexer.Next(&token).ok() && token.kind == query::TokenKind::kIdentifier;
       ++i) {
    tag += StrCat(tag.empty() ? "" : " ", absl::AsciiStrToUpper(token.text));
  }
  return tag;
}

bool IsBlank(std::string_view sql) {
  query::Lexer lexer(sql);
  query::Token first;
  return lexer.Next(&first).ok() && first.kind == query::TokenKind::kEnd;
}

// The statements of a simple query, one at a time: split at top-level
// semicolons (the lexer knows strings and comments); blank pieces are left
// out, but for a first one (an empty query). Text the lexer refuses is one
// statement, whose error the engine reports. One statement is held at a
// time: splitting a 16 MB message of `;`s into a vector of every token and
// piece took ~1.3 GB and 5 s of the server.
class StatementSplitter {
 public:
  explicit StatementSplitter(std::string_view text) : text_(text), lexer_(text) {
    // Read once to the end first: a script with an error anywhere runs none
    // of its statements.
    query::Lexer check(text);
    query::Token t;
    do {
      if (!check.Next(&t).ok()) {
        whole_ = true;
        return;
      }
    } while (t.kind != query::TokenKind::kEnd);
  }

  // The next statement, its offset in the text and whether it is blank
  // (only a first one can be); false after the last.
  bool Next(size_t* offset, std::string* statement, bool* blank_statement) {
    if (whole_) {
      if (done_) return false;
      done_ = true;
      *offset = 0;
      statement->assign(text_);
      *blank_statement = false;
      return true;
    }
    while (!done_) {
      const size_t start = start_;
      size_t stop = text_.size();
      bool blank = true;
      while (true) {
        // (The check above read the text without an error; one here ends it.)
        if (!lexer_.Next(&token_).ok() || token_.kind == query::TokenKind::kEnd) {
          done_ = true;
          break;
        }
        if (token_.kind == query::TokenKind::kSymbol && token_.text == ";") {
          stop = static_cast<size_t>(token_.pos.offset);
          break;
        }
        blank = false;
      }
      start_ = stop + 1;
      if (!blank || !emitted_) {
        emitted_ = true;
        *offset = start;
        statement->assign(text_.substr(start, stop - start));
        *blank_statement = blank;
        return true;
      }
    }
    return false;
  }

 private:
  const std::string_view text_;
  query::Lexer lexer_;
  query::Token token_;
  bool whole_ = false;    // the lexer refused the text: it is one statement
  bool done_ = false;
  bool emitted_ = false;
  size_t start_ = 0;      // where the next statement starts
};

// Collects a result: for Describe (columns only) and for Execute with a row
// limit, whose rows are reserved from `budget` (none: Describe keeps no rows)
// within the session's `cap`, of which others of its portals hold `held`.
class KeepingSink final : public query::ResultSink {
 public:
  KeepingSink() = default;
  KeepingSink(query::MemoryBudget* budget, int64_t cap, int64_t held)
      : kept_(budget), cap_(cap), room_(cap - held) {}

  absl::Status Columns(const std::vector<query::ResultColumn>& columns) override {
    columns_ = columns;
    return absl::OkStatus();
  }
  absl::Status Rows(std::vector<query::Row> page) override {
    int64_t bytes = 0;
    for (const query::Row& row : page) bytes += query::RowBytes(row);
    if (kept_.bytes() + bytes > room_) {
      const std::string cap = cap_ % (1 << 20) == 0 ? StrCat(cap_ >> 20, " MiB")
                                                     : StrCat(cap_ >> 10, " KiB");
      return absl::ResourceExhaustedError(StrCat(
          "results fetched with a row limit are kept in memory, at most ", cap,
          " per session (a quarter of the server's --query-memory-total-mb, at most ",
          kMaxKeptResultBytes >> 20, " MiB), and this one would pass that; fetch it without "
          "a row limit, or close this session's other portals first"));
    }
    RETURN_IF_ERROR(kept_.Grow(bytes, "a result kept for Execute with a row limit"));
    rows_.insert(rows_.end(), std::make_move_iterator(page.begin()),
                 std::make_move_iterator(page.end()));
    return absl::OkStatus();
  }
  std::vector<query::ResultColumn> columns_;
  std::vector<query::Row> rows_;
  query::MemoryReservation kept_;

 private:
  int64_t cap_ = kMaxKeptResultBytes;
  int64_t room_ = kMaxKeptResultBytes;
};

// Streams a result to the client as it is produced (on the query's worker
// thread, while the session's thread waits for the query). With `batch_row`, a
// plan that runs on batches hands them on as they are, each row sent from its
// columns: no row is built (and no projection made a row at a time).
class StreamingSink final : public query::ResultSink {
 public:
  using BatchRow = std::function<bool(const query::Batch&, size_t row)>;
  StreamingSink(std::function<void(const std::vector<query::ResultColumn>&)> columns,
                std::function<bool(const query::Row&)> row, BatchRow batch_row = nullptr)
      : columns_(std::move(columns)), row_(std::move(row)), batch_row_(std::move(batch_row)) {}
  absl::Status Columns(const std::vector<query::ResultColumn>& columns) override {
    columns_(columns);
    return absl::OkStatus();
  }
  absl::Status Rows(std::vector<query::Row> page) override {
    for (const query::Row& row : page) {
      if (!row_(row)) return absl::CancelledError("the client went away");
      ++rows_;
    }
    return absl::OkStatus();
  }
  bool TakesBatches() const override { return batch_row_ != nullptr; }
  absl::Status Batches(const query::Batch& batch) override {
    for (size_t i = 0; i < batch.rows; ++i) {
      if (!batch_row_(batch, i)) return absl::CancelledError("the client went away");
      ++rows_;
    }
    return absl::OkStatus();
  }
  int64_t rows_ = 0;

 private:
  std::function<void(const std::vector<query::ResultColumn>&)> columns_;
  std::function<bool(const query::Row&)> row_;
  BatchRow batch_row_;
};

int16_t FormatFor(const std::vector<int16_t>& formats, size_t column) {
  if (formats.empty()) return 0;
  if (formats.size() == 1) return formats[0];
  return column < formats.size() ? formats[column] : 0;
}

}  // namespace

std::string RewritePlaceholders(std::string_view sql, int* max,
                                std::vector<std::pair<size_t, size_t>>* shifts) {
  std::string out;
  *max = 0;
  for (size_t i = 0; i < sql.size();) {
    const char c = sql[i];
    if (c == '\'' || c == '"') {  // a string or a quoted name, '' / "" inside
      size_t end = i + 1;
      while (end < sql.size()) {
        if (sql[end] == c) {
          if (end + 1 < sql.size() && sql[end + 1] == c) {
            end += 2;
            continue;
          }
          break;
        }
        ++end;
      }
      end = std::min(end + 1, sql.size());
      out.append(sql.substr(i, end - i));
      i = end;
    } else if (c == '-' && i + 1 < sql.size() && sql[i + 1] == '-') {
      const size_t end = std::min(sql.find('\n', i), sql.size());
      out.append(sql.substr(i, end - i));
      i = end;
    } else if (c == '/' && i + 1 < sql.size() && sql[i + 1] == '*') {
      const size_t close = sql.find("*/", i + 2);
      const size_t end = close == std::string_view::npos ? sql.size() : close + 2;
      out.append(sql.substr(i, end - i));
      i = end;
    } else if (c == '$' && i + 1 < sql.size() && std::isdigit(static_cast<unsigned char>(sql[i + 1]))) {
      size_t end = i + 1;
      int n = 0;
      while (end < sql.size() && std::isdigit(static_cast<unsigned char>(sql[end])) && n < 100000) {
        n = n * 10 + (sql[end++] - '0');
      }
      *max = std::max(*max, n);
      shifts->emplace_back(out.size(), 1);  // "$1" -> "@p1"
      out += StrCat("@p", n);
      i = end;
    } else {
      out.push_back(c);
      ++i;
    }
  }
  return out;
}

Session::Session(SessionContext context, std::unique_ptr<Stream> stream, std::string peer)
    : context_(std::move(context)),
      stream_(std::move(stream)),
      peer_(std::move(peer)),
      settings_(DefaultSettings()) {
  if (context_.watch) context_.watch->cancel = cancel_;
}

Session::~Session() {
  if (process_id_ != 0) context_.unregister_cancel(process_id_);
}

bool Session::Flush() {
  if (!out_.FlushTo(*stream_)) broken_ = true;
  return !broken_;
}

bool Session::ReadMessage(char* type, std::string* body, int32_t max_bytes) {
  char header[5];
  if (!stream_->ReadExact(header, 5)) return false;
  *type = header[0];
  MessageReader length_reader(std::string_view(header + 1, 4));
  const int32_t length = length_reader.Int32();
  if (length < 4 || length > max_bytes) {
    SendError(absl::InvalidArgumentError(StrCat("a message of ", length, " bytes is not "
                                                "acceptable here (the limit is ", max_bytes,
                                                ")")),
              nullptr, "FATAL");
    Flush();
    return false;
  }
  body->resize(static_cast<size_t>(length - 4));
  return stream_->ReadExact(body->data(), body->size());
}

bool Session::Startup() {
  while (true) {
    char length_bytes[4];
    if (!stream_->ReadExact(length_bytes, 4)) return false;
    const int32_t length = MessageReader(std::string_view(length_bytes, 4)).Int32();
    if (length < 8 || length > kMaxStartupBytes) return false;
    std::string body(static_cast<size_t>(length - 4), '\0');
    if (!stream_->ReadExact(body.data(), body.size())) return false;
    MessageReader in(body);
    const int32_t code = in.Int32();
    if (code == kSslRequest) {
      if (context_.tls == nullptr || stream_->tls()) {
        if (!stream_->WriteAll("N")) return false;
        continue;
      }
      if (!stream_->WriteAll("S") || !stream_->StartTls(context_.tls)) return false;
      continue;
    }
    if (code == kGssEncRequest) {
      if (!stream_->WriteAll("N")) return false;
      continue;
    }
    if (code == kCancelRequest) {
      const int32_t pid = in.Int32();
      const int32_t secret = in.Int32();
      if (!in.failed()) context_.cancel(pid, secret);
      return false;  // a cancel connection carries nothing else
    }
    if (code >> 16 != 3) {
      SendError(absl::UnimplementedError(StrCat("unsupported frontend protocol ", code >> 16, ".",
                                                code & 0xffff, ": Strata speaks 3.0")),
                nullptr, "FATAL");
      Flush();
      return false;
    }
    std::map<std::string, std::string> parameters;
    while (!in.failed() && !in.at_end()) {
      std::string name = in.CString();
      if (name.empty()) break;
      parameters[name] = in.CString();
    }
    if (context_.tls != nullptr && !stream_->tls()) {
      SendError(absl::UnauthenticatedError("this server requires SSL: connect with sslmode=require "
                                           "(psql: \"host=... sslmode=require\")"),
                nullptr, "FATAL");
      Flush();
      return false;
    }
    if (auto it = parameters.find("options"); it != parameters.end()) {
      // libpq's "-c name=value ..." (SQLAlchemy's and psycopg's way to set the session's
      // zone): each a setting, as if the startup packet had carried it.
      std::string error;
      std::optional<std::vector<std::pair<std::string, std::string>>> options =
          ParseStartupOptions(it->second, &error);
      if (options && options->size() > kMaxStartupOptions) {
        error = StrCat("the startup options set ", options->size(), " settings; the most is ",
                       kMaxStartupOptions);
      }
      if (!options || !error.empty()) {
        SendError(absl::InvalidArgumentError(error), nullptr, "FATAL");
        Flush();
        return false;
      }
      for (auto& [name, value] : *options) {
        if (name != "timezone" && name != "application_name") settings_[name] = value;
        parameters[name] = std::move(value);
      }
    }
    if (auto it = parameters.find("application_name"); it != parameters.end()) {
      settings_["application_name"] = it->second;
    }
    for (const auto& [name, value] : parameters) {
      // JDBC sends its JVM's zone as TimeZone, libpq PGTZ's as timezone.
      if (!EqualsIgnoreCase(name, "timezone")) continue;
      std::optional<std::string> zone = ZoneForSetting(value);
      if (!zone) {
        SendError(absl::InvalidArgumentError(InvalidZoneMessage(value)), nullptr, "FATAL");
        Flush();
        return false;
      }
      settings_["timezone"] = *std::move(zone);
    }
    if (auto it = parameters.find("database");
        it != parameters.end() && context_.engine->catalog().DescribeDatabase(it->second).ok()) {
      database_ = it->second;
    }
    return Authenticate(parameters);
  }
}

bool Session::Authenticate(const std::map<std::string, std::string>& parameters) {
  std::vector<std::string_view> authorization;
  if (context_.auth->enabled()) {
    // The password is a Strata token; the user name is not checked.
    out_.Begin('R');
    out_.Int32(3);  // AuthenticationCleartextPassword
    out_.End();
    if (!Flush()) return false;
    char type;
    std::string body;
    if (!ReadMessage(&type, &body, kMaxPasswordMessageBytes) || type != 'p') return false;
    MessageReader in(body);
    bearer_ = "Bearer " + in.CString();
    authorization.push_back(bearer_);
  }
  auto caller = context_.auth->Authenticate(authorization, peer_);
  if (!caller.ok()) {
    SendError(absl::UnauthenticatedError(StrCat(
                  "password authentication failed for user \"",
                  parameters.count("user") ? parameters.at("user") : "", "\": ",
                  caller.status().message(), " (the password is a Strata token)")),
              nullptr, "FATAL");
    Flush();
    return false;
  }
  caller_ = *std::move(caller);
  // A database the token may not see is treated as one that does not exist.
  if (!database_.empty() && !caller_->MaySee(database_)) database_.clear();
  out_.Begin('R');
  out_.Int32(0);  // AuthenticationOk
  out_.End();
  for (const char* name : {"server_version", "server_encoding", "client_encoding", "DateStyle",
                           "IntervalStyle", "TimeZone", "integer_datetimes",
                           "standard_conforming_strings", "is_superuser", "application_name"}) {
    std::string key = name;
    for (char& c : key) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    out_.Begin('S');
    out_.CString(name);
    out_.CString(settings_[key]);
    out_.End();
  }
  const auto [pid, secret] = context_.register_cancel(cancel_);
  process_id_ = pid;
  out_.Begin('K');
  out_.Int32(pid);
  out_.Int32(secret);
  out_.End();
  SendReady();
  return Flush();
}

bool Session::RefreshCaller() {
  if (!context_.auth->enabled()) return true;
  auto caller = context_.auth->Authenticate({bearer_}, peer_);
  if (!caller.ok()) {
    SendError(absl::UnauthenticatedError(StrCat("the session's token no longer authenticates: ",
                                                caller.status().message(),
                                                "; reconnect with a valid token")),
              nullptr, "FATAL");
    Flush();
    return false;
  }
  caller_ = *std::move(caller);
  return true;
}

void Session::Run() {
  stream_->SetReadDeadline(std::chrono::steady_clock::now() + context_.auth_timeout);
  if (!Startup()) return;
  stream_->SetReadDeadline(std::nullopt);
  char type;
  std::string body;
  while (!broken_ && ReadMessage(&type, &body, kMaxMessageBytes)) {
    MessageReader in(body);
    if (type == 'X') return;
    if (skip_to_sync_ && type != 'S') continue;
    if ((type == 'Q' || type == 'P' || type == 'B' || type == 'D' || type == 'E') &&
        !RefreshCaller()) {
      return;
    }
    WatchedWork watched(context_.watch.get());
    switch (type) {
      case 'Q': {
        std::string text = in.CString();
        SimpleQuery(text);
        break;
      }
      case 'P': Parse(in); break;
      case 'B': Bind(in); break;
      case 'D': Describe(in); break;
      case 'E': Execute(in); break;
      case 'C': Close(in); break;
      case 'S': Sync(); break;
      case 'H': Flush(); break;
      case 'd':
      case 'c':
      case 'f':
        break;  // the rest of a COPY's data after it failed: ignored, as PostgreSQL does
      default:
        SendError(absl::InvalidArgumentError(StrCat("unknown message type '", std::string(1, type),
                                                    "'")),
                  nullptr, "FATAL");
        Flush();
        return;
    }
    if (out_.size() > kFlushBytes) Flush();
  }
}

void Session::SimpleQuery(const std::string& text) {
  portals_.erase("");
  const auto whole = std::make_shared<const std::string>(text);
  StatementSplitter statements(text);
  size_t offset = 0;
  std::string piece;
  bool blank = false;
  while (statements.Next(&offset, &piece, &blank)) {
    if (blank) {
      out_.Begin('I');  // EmptyQueryResponse
      out_.End();
      continue;
    }
    Statement statement{.sql = piece, .original = whole, .base = offset};
    if (absl::Status s = RunStatement(statement, {}, {}, true, nullptr, 0); !s.ok()) {
      SendError(s, &statement);
      break;
    }
  }
  skip_to_sync_ = false;  // only the extended protocol skips to Sync
  if (transaction_ == 'I') portals_.clear();  // the implicit transaction ends (as at Sync)
  SendReady();
  Flush();
}

void Session::EmitAnswer(CannedResult result, bool describe_columns,
                         const std::vector<int16_t>& formats, Portal* portal, int32_t max_rows) {
  Portal local;
  Portal& target = portal != nullptr ? *portal : local;
  target.columns = std::move(result.columns);
  target.rows = std::move(result.rows);
  target.next_row = 0;
  target.executed = true;
  if (describe_columns) SendRowDescription(target.columns, formats);
  EmitRows(target, max_rows);
}

absl::Status Session::RunStatement(const Statement& statement,
                                   const query::QueryParameters& parameters,
                                   const std::vector<int16_t>& formats, bool describe_columns,
                                   Portal* portal, int32_t max_rows) {
  const std::string word = FirstWord(statement.sql);
  if (transaction_ == 'E' && word != "rollback" && word != "abort" && word != "commit" &&
      word != "end") {
    return absl::FailedPreconditionError(
        "current transaction is aborted, commands ignored until end of transaction block "
        "(send ROLLBACK)");
  }
  cancel_->store(false);
  if (auto cursor = ParseCursorStatement(statement.sql)) {
    if (!cursor->ok()) return cursor->status();
    return RunCursorStatement(**cursor, statement, parameters, formats, describe_columns, portal);
  }
  if (auto copy = ParseCopyStatement(statement.sql)) {
    if (!copy->ok()) return copy->status();
    return (*copy)->from_stdin ? RunCopyIn(**copy) : RunCopy(**copy);
  }
  if (auto savepoint = ParseSavepointStatement(statement.sql)) {
    if (!savepoint->ok()) return savepoint->status();
    return RunSavepoint(**savepoint);
  }
  CatalogAnswers catalog = Catalog();
  if (auto answer = catalog.Answer(statement.sql, settings_)) {
    if (!answer->ok()) return answer->status();
    CannedResult& result = **answer;
    if (result.tag == "BEGIN") transaction_ = 'T';
    // COMMIT of a failed block rolls it back, and says so, as PostgreSQL's does.
    if (result.tag == "COMMIT" && transaction_ == 'E') result.tag = "ROLLBACK";
    if (result.tag == "COMMIT" || result.tag == "ROLLBACK") EndTransaction();
    if (result.tag == "DEALLOCATE" || result.tag == "DISCARD ALL") {
      const std::string text = statement.sql;
      const size_t last = text.find_last_of(" \t\n");
      std::string name = text.substr(last == std::string::npos ? 0 : last + 1);
      while (!name.empty() && name.back() == ';') name.pop_back();
      if (result.tag == "DISCARD ALL" || name == "ALL" || name == "all") {
        std::erase_if(statements_, [](const auto& entry) { return !entry.first.empty(); });
        if (result.tag == "DISCARD ALL") {
          settings_ = DefaultSettings();
          cursors_.clear();
        }
      } else if (statements_.erase(name) == 0) {
        return absl::NotFoundError(StrCat("prepared statement \"", name, "\" does not exist"));
      }
    }
    if (result.columns.empty() && !result.tag.empty()) {
      SendCommandComplete(result.tag);
      return absl::OkStatus();
    }
    EmitAnswer(std::move(result), describe_columns, formats, portal, max_rows);
    return absl::OkStatus();
  }
  // A tool's probe of the catalogs that the engine cannot run (a form it does not read)
  // answers no rows, as one of a catalog it does not have does, rather than fail the tool.
  const bool catalog_probe = CatalogAnswers::ReadsCatalog(statement.sql);
  const auto probe_unanswered = [&](const absl::Status& run) {
    return !run.ok() && catalog_probe && !cancel_->load();
  };
  StatementRunner::Request local{.caller = caller_,
                                 .sql = statement.sql,
                                 .parameters = parameters,
                                 .peer = peer_,
                                 .cancel = cancel_,
                                 .default_database = database_,
                                 .postgres_names = true};
  RETURN_IF_ERROR(ApplyReadSettings(&local));
  // DELETE and INSERT answer how many rows in their tag, no rows.
  const bool is_delete = word == "delete";
  const bool is_insert = word == "insert";
  const bool is_catalog_change = IsCatalogChange(word);
  if (max_rows > 0 && portal != nullptr && !is_delete && !is_insert && !is_catalog_change) {
    // A row limit: keep the result and hand it out in parts.
    query::MemoryBudget& budget = context_.queries->memory_budget();
    int64_t held = 0;
    for (const auto& [name, other] : portals_) held += other.kept.bytes();
    KeepingSink keep(&budget, std::min(kMaxKeptResultBytes, budget.limit() / 4), held);
    const absl::Status run = context_.queries->Run(local, &keep).status();
    if (probe_unanswered(run)) {
      EmitAnswer(CatalogAnswers::EmptyAnswer(statement.sql), describe_columns, formats, portal,
                 max_rows);
      return absl::OkStatus();
    }
    RETURN_IF_ERROR(run);
    portal->columns = std::move(keep.columns_);
    portal->rows = std::move(keep.rows_);
    portal->kept = std::move(keep.kept_);
    portal->next_row = 0;
    portal->executed = true;
    if (describe_columns) SendRowDescription(portal->columns, formats);
    EmitRows(*portal, max_rows);
    return absl::OkStatus();
  }
  int64_t counted = 0;  // rows deleted or inserted, for the tag
  bool described = false;
  StreamingSink sink(
      [&](const std::vector<query::ResultColumn>& columns) {
        described = true;
        if (describe_columns && !is_delete && !is_insert && !is_catalog_change) {
          SendRowDescription(columns, formats);
        }
      },
      [&](const query::Row& row) {
        if (is_delete || is_insert) {
          if (!row.empty() && !row[0].null) counted = row[0].i;
          return true;
        }
        if (is_catalog_change) return true;
        SendDataRow(row, formats);
        return out_.size() < kFlushBytes || Flush();
      },
      is_delete || is_insert || is_catalog_change
          ? StreamingSink::BatchRow()
          : [&, zone = Zone()](const query::Batch& batch, size_t row) {
              SendDataRow(batch, row, formats, zone);
              return out_.size() < kFlushBytes || Flush();
            });
  const absl::Status run = context_.queries->Run(local, &sink).status();
  if (!described && probe_unanswered(run)) {
    EmitAnswer(CatalogAnswers::EmptyAnswer(statement.sql), describe_columns, formats, portal,
               max_rows);
    return absl::OkStatus();
  }
  RETURN_IF_ERROR(run);
  if (portal != nullptr) portal->complete = true;
  SendCommandComplete(is_delete           ? StrCat("DELETE ", counted)
                      : is_insert         ? StrCat("INSERT 0 ", counted)
                      : is_catalog_change ? CatalogChangeTag(statement.sql)
                                          : StrCat("SELECT ", sink.rows_));
  return absl::OkStatus();
}

absl::Status Session::RunCopy(const CopyStatement& copy) {
  StatementRunner::Request local{.caller = caller_,
                                 .sql = copy.query,
                                 .peer = peer_,
                                 .cancel = cancel_,
                                 .default_database = database_,
                                 .postgres_names = true};
  RETURN_IF_ERROR(ApplyReadSettings(&local));
  int64_t rows = 0;
  std::string line;
  const auto send_line = [&] {
    out_.Begin('d');  // CopyData
    out_.Bytes(line);
    out_.End();
    line.clear();
  };
  StreamingSink sink(
      [&](const std::vector<query::ResultColumn>& columns) {
        out_.Begin('H');  // CopyOutResponse: text (0) for the whole copy and every column
        out_.Bytes(std::string_view("\0", 1));
        out_.Int16(static_cast<int16_t>(columns.size()));
        for (size_t i = 0; i < columns.size(); ++i) out_.Int16(0);
        out_.End();
        if (!copy.header) return;
        std::vector<std::string> names;
        for (const query::ResultColumn& column : columns) names.push_back(column.name);
        AppendCopyHeader(copy, names, &line);
        send_line();
      },
      [&](const query::Row& row) {
        AppendCopyRow(copy, row, &line, Zone());
        send_line();
        ++rows;
        return out_.size() < kFlushBytes || Flush();
      });
  absl::Status run = context_.queries->Run(local, &sink).status();
  if (!run.ok()) {
    if (copy.query_offset) {
      return query::ShiftSqlErrorOffset(run, static_cast<int>(*copy.query_offset));
    }
    return absl::Status(run.code(), query::SqlErrorMessage(run));
  }
  out_.Begin('c');  // CopyDone
  out_.End();
  SendCommandComplete(StrCat("COPY ", rows));
  return absl::OkStatus();
}

absl::Status Session::RunSavepoint(const SavepointStatement& savepoint) {
  using Kind = SavepointStatement::Kind;
  const std::string_view what = savepoint.kind == Kind::kSavepoint ? "SAVEPOINT"
                                : savepoint.kind == Kind::kRelease ? "RELEASE SAVEPOINT"
                                                                   : "ROLLBACK TO SAVEPOINT";
  if (transaction_ == 'I') {
    return absl::FailedPreconditionError(
        StrCat(what, " can only be used in transaction blocks: send BEGIN first"));
  }
  if (savepoint.kind == Kind::kSavepoint) {
    if (savepoints_.size() >= kMaxSavepoints) {
      return absl::ResourceExhaustedError(StrCat("this transaction holds ", savepoints_.size(),
                                                 " savepoints, the most it may; RELEASE some"));
    }
    savepoints_.push_back(savepoint.name);
    SendCommandComplete("SAVEPOINT");
    return absl::OkStatus();
  }
  const auto found = std::find(savepoints_.rbegin(), savepoints_.rend(), savepoint.name);
  if (found == savepoints_.rend()) {
    return absl::NotFoundError(StrCat("savepoint \"", savepoint.name, "\" does not exist"));
  }
  // RELEASE drops the savepoint and those after it; ROLLBACK TO keeps it and leaves the error.
  const auto at = static_cast<size_t>(savepoints_.rend() - found) - 1;
  savepoints_.resize(savepoint.kind == Kind::kRelease ? at : at + 1);
  if (savepoint.kind == Kind::kRollbackTo) transaction_ = 'T';
  SendCommandComplete(savepoint.kind == Kind::kRelease ? "RELEASE" : "ROLLBACK");
  return absl::OkStatus();
}

void Session::EndTransaction() {
  transaction_ = 'I';
  savepoints_.clear();
  std::erase_if(cursors_, [](const auto& entry) { return !entry.second->hold(); });
}

absl::Status Session::RunCursorStatement(const CursorStatement& cursor, const Statement& statement,
                                         const query::QueryParameters& parameters,
                                         const std::vector<int16_t>& formats,
                                         bool describe_columns, Portal* portal) {
  auto complete = [&](std::string tag) {
    if (portal != nullptr) {
      portal->executed = portal->complete = true;
      portal->tag = tag;
    }
    SendCommandComplete(tag);
    return absl::OkStatus();
  };
  using Kind = CursorStatement::Kind;
  if (cursor.kind == Kind::kDeclare) {
    if (!cursor.hold && transaction_ == 'I') {
      return absl::FailedPreconditionError(
          "DECLARE CURSOR can only be used in transaction blocks: send BEGIN first, or declare "
          "the cursor WITH HOLD");
    }
    if (cursors_.contains(cursor.name)) {
      return absl::AlreadyExistsError(StrCat("cursor \"", cursor.name, "\" already exists"));
    }
    if (cursors_.size() >= kMaxCursorsPerSession) {
      return absl::ResourceExhaustedError(
          StrCat("this session has ", kMaxCursorsPerSession,
                 " cursors open, the most it may (each runs its query while open); CLOSE one "
                 "first"));
    }
    auto cancel = std::make_shared<std::atomic<bool>>(false);
    StatementRunner::Request local{.caller = caller_,
                                   .sql = statement.sql.substr(cursor.query_offset),
                                   .parameters = parameters,
                                   .peer = peer_,
                                   .cancel = cancel,
                                   .default_database = database_,
                                   .postgres_names = true};
    RETURN_IF_ERROR(ApplyReadSettings(&local));
    StatementRunner* queries = context_.queries;
    auto opened = std::make_unique<Cursor>(
        [queries, local](query::ResultSink* sink) { return queries->Run(local, sink).status(); },
        cancel, cursor.hold, cursor.binary);
    // A query that does not plan fails the DECLARE, pointing into its text.
    if (auto columns = opened->Columns(); !columns.ok()) {
      return query::ShiftSqlErrorOffset(columns.status(), static_cast<int>(cursor.query_offset));
    }
    cursors_[cursor.name] = std::move(opened);
    return complete("DECLARE CURSOR");
  }
  if (cursor.kind == Kind::kClose) {
    if (cursor.name.empty()) {
      cursors_.clear();
      return complete("CLOSE CURSOR ALL");
    }
    if (cursors_.erase(cursor.name) == 0) {
      return absl::NotFoundError(StrCat("cursor \"", cursor.name, "\" does not exist"));
    }
    return complete("CLOSE CURSOR");
  }
  auto found = cursors_.find(cursor.name);
  if (found == cursors_.end()) {
    return absl::NotFoundError(StrCat("cursor \"", cursor.name, "\" does not exist"));
  }
  Cursor& open = *found->second;
  const bool fetch = cursor.kind == Kind::kFetch;
  const std::vector<int16_t> out_formats = open.binary() ? std::vector<int16_t>{1} : formats;
  if (fetch && describe_columns) {
    ASSIGN_OR_RETURN(std::vector<query::ResultColumn> columns, open.Columns());
    SendRowDescription(columns, out_formats);
  }
  int64_t fetched = 0;
  absl::Status status = open.Fetch(
      cursor.count,
      [&](const query::Row& row) {
        if (!fetch) return true;  // MOVE skips
        SendDataRow(row, out_formats);
        return out_.size() < kFlushBytes || Flush();
      },
      &fetched);
  if (!status.ok()) {
    cursors_.erase(found);  // its query failed: nothing more to fetch
    return status;
  }
  return complete(StrCat(fetch ? "FETCH " : "MOVE ", fetched));
}

CatalogAnswers Session::Catalog() {
  // A table's columns for the catalog answers: `SELECT *` planned with the caller's grants.
  return CatalogAnswers(
      context_.engine->catalog(), *caller_,
      [this](std::string_view db, std::string_view table) {
        return DescribeStatement(
            Statement{.sql = StrCat("SELECT * FROM \"", db, "\".\"", table, "\"")}, {});
      },
      [this] {
        if (context_.queries != nullptr) context_.queries->CatchUpCatalog();
      },
      process_id_,
      [this](std::string_view db, std::string_view name) -> std::optional<int64_t> {
        auto table = context_.engine->catalog().FindTable(db, name);
        if (!table.ok()) return std::nullopt;
        absl::StatusOr<TableStorageStats> stats = context_.engine->StorageStats(**table);
        if (!stats.ok()) return std::nullopt;
        return stats->memory_store.bytes + stats->magnetic_blocks.bytes +
               stats->magnetic_delta.bytes;
      });
}

const absl::TimeZone* Session::Zone() const {
  static const std::string kUtc = "UTC";
  const auto it = settings_.find("timezone");
  const std::string& setting = it == settings_.end() ? kUtc : it->second;
  if (setting != zone_setting_) {
    zone_setting_ = setting;
    zone_ = query::NamesUtc(setting) ? std::nullopt : query::LoadTimeZone(setting);
  }
  return zone_ ? &*zone_ : nullptr;
}

absl::Status Session::ApplyReadSettings(StatementRunner::Request* request) const {
  if (Zone() != nullptr) request->parameters.time_zone = zone_setting_;
  for (std::string_view name : kReadOptionNames) {
    auto it = settings_.find(StrCat("strata.", name));
    if (it == settings_.end()) continue;
    if (absl::Status set = SetReadOption(name, it->second, request); !set.ok()) {
      return absl::InvalidArgumentError(StrCat("SET strata.", name, ": ", set.message()));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<query::ResultColumn>> Session::DescribeStatement(
    const Statement& statement, const query::QueryParameters& parameters) {
  KeepingSink keep;
  StatementRunner::Request local{.caller = caller_,
                                 .sql = statement.sql,
                                 .parameters = parameters,
                                 .peer = peer_,
                                 .cancel = cancel_,
                                 .describe_only = true,
                                 .default_database = database_,
                                 .postgres_names = true};
  if (Zone() != nullptr) local.parameters.time_zone = zone_setting_;
  RETURN_IF_ERROR(context_.queries->Run(local, &keep).status());
  return keep.columns_;
}

void Session::EmitRows(Portal& portal, int32_t max_rows) {
  size_t end = portal.rows.size();
  if (max_rows > 0) end = std::min(end, portal.next_row + static_cast<size_t>(max_rows));
  for (; portal.next_row < end; ++portal.next_row) {
    SendDataRow(portal.rows[portal.next_row], portal.result_formats);
    if (out_.size() > kFlushBytes) Flush();
  }
  if (portal.next_row < portal.rows.size()) {
    out_.Begin('s');  // PortalSuspended
    out_.End();
    return;
  }
  portal.complete = true;
  SendCommandComplete(portal.tag.empty() ? StrCat("SELECT ", portal.rows.size()) : portal.tag);
  // All handed out: the rows and their memory go now, not when the portal does.
  portal.rows = {};
  portal.kept.Reset();
}

void Session::Parse(MessageReader& in) {
  const std::string name = in.CString();
  const std::string sql = in.CString();
  const int16_t count = in.Int16();
  auto statement = std::make_shared<Statement>();
  for (int i = 0; i < count && !in.failed(); ++i) statement->declared_oids.push_back(in.Int32());
  if (in.failed()) {
    SendError(absl::InvalidArgumentError("malformed Parse message"));
    return;
  }
  if (statements_.size() >= kMaxStatements && !statements_.contains(name)) {
    SendError(absl::ResourceExhaustedError(
        StrCat("this session holds ", kMaxStatements, " prepared statements; Close some first")));
    return;
  }
  // Kept until Close: no longer than the engine would run (1,000 statements
  // of 16 MB messages would have held 32 GB).
  if (sql.size() > query::kMaxQueryBytes) {
    SendError(absl::InvalidArgumentError(StrCat("the statement is ", sql.size(),
                                                " bytes; the limit is ", query::kMaxQueryBytes,
                                                " (256 KiB)")));
    return;
  }
  statement->original = std::make_shared<const std::string>(sql);
  statement->sql = RewritePlaceholders(sql, &statement->parameters, &statement->shifts);
  // ParameterDescription and Bind count parameters in an Int16.
  if (statement->parameters > kMaxParameters) {
    SendError(absl::InvalidArgumentError(
        StrCat("the statement uses parameter $", statement->parameters, "; at most ",
               kMaxParameters, " parameters are allowed (as in PostgreSQL)")));
    return;
  }
  size_t held = statement->bytes();
  for (const auto& [other_name, other] : statements_) {
    if (other_name != name) held += other->bytes();
  }
  if (held > kMaxStatementBytes) {
    SendError(absl::ResourceExhaustedError(StrCat(
        "this session's prepared statements would keep ", held >> 10, " KiB; the limit is ",
        kMaxStatementBytes >> 20, " MiB per session; Close or DEALLOCATE some first")));
    return;
  }
  statements_[name] = std::move(statement);
  out_.Begin('1');  // ParseComplete
  out_.End();
}

void Session::Bind(MessageReader& in) {
  const std::string portal_name = in.CString();
  const std::string statement_name = in.CString();
  auto found = statements_.find(statement_name);
  if (found == statements_.end()) {
    SendError(absl::NotFoundError(StrCat("prepared statement \"", statement_name,
                                         "\" does not exist")));
    return;
  }
  const std::shared_ptr<const Statement>& statement = found->second;
  std::vector<int16_t> parameter_formats(static_cast<size_t>(std::max<int16_t>(0, in.Int16())));
  for (int16_t& f : parameter_formats) f = in.Int16();
  const int16_t count = in.Int16();
  Portal portal{.statement = statement};
  for (int i = 0; i < count && !in.failed(); ++i) {
    const int32_t length = in.Int32();
    const int32_t oid = static_cast<size_t>(i) < statement->declared_oids.size()
                            ? statement->declared_oids[static_cast<size_t>(i)]
                            : 0;
    const std::string name = StrCat("p", i + 1);
    bool untyped = oid == 0;
    query::Datum value;
    if (length < 0) {
      value = query::Datum::Null();
    } else {
      std::string_view bytes = in.Bytes(static_cast<size_t>(length));
      auto decoded = DecodeParameter(bytes, FormatFor(parameter_formats, static_cast<size_t>(i)),
                                     oid, &untyped, Zone());
      if (!decoded.ok()) {
        SendError(absl::InvalidArgumentError(
            StrCat("parameter $", i + 1, ": ", decoded.status().message())));
        return;
      }
      value = *std::move(decoded);
    }
    // Only placeholders the statement has: the engine refuses values that bind nothing.
    if (statement->sql.find("@" + name) == std::string::npos) continue;
    portal.parameters.named[name] = std::move(value);
    if (untyped) portal.parameters.untyped.insert(name);
  }
  const int16_t result_formats = in.Int16();
  for (int i = 0; i < result_formats && !in.failed(); ++i) portal.result_formats.push_back(in.Int16());
  if (in.failed()) {
    SendError(absl::InvalidArgumentError("malformed Bind message"));
    return;
  }
  if (count < statement->parameters) {
    SendError(absl::InvalidArgumentError(StrCat("bind message supplies ", count,
                                                " parameters, but prepared statement \"",
                                                statement_name, "\" requires ",
                                                statement->parameters)));
    return;
  }
  if (portals_.size() >= kMaxPortals && !portals_.contains(portal_name)) {
    SendError(absl::ResourceExhaustedError(
        StrCat("this session holds ", kMaxPortals, " open portals; Close some first")));
    return;
  }
  portals_[portal_name] = std::move(portal);
  out_.Begin('2');  // BindComplete
  out_.End();
}

void Session::Describe(MessageReader& in) {
  const std::string_view kind_byte = in.Bytes(1);
  const char kind = kind_byte.empty() ? 0 : kind_byte[0];
  const std::string name = in.CString();
  std::shared_ptr<const Statement> statement;
  query::QueryParameters parameters;
  std::vector<int16_t> formats;
  Portal* portal = nullptr;
  if (kind == 'S') {
    auto found = statements_.find(name);
    if (found == statements_.end()) {
      SendError(absl::NotFoundError(StrCat("prepared statement \"", name, "\" does not exist")));
      return;
    }
    statement = found->second;
    out_.Begin('t');  // ParameterDescription: undeclared ones are text
    out_.Int16(static_cast<int16_t>(statement->parameters));
    for (int i = 0; i < statement->parameters; ++i) {
      const int32_t oid = static_cast<size_t>(i) < statement->declared_oids.size()
                              ? statement->declared_oids[static_cast<size_t>(i)]
                              : 0;
      out_.Int32(oid == 0 ? kOidText : oid);
    }
    out_.End();
    for (int i = 1; i <= statement->parameters; ++i) {
      const std::string p = StrCat("p", i);
      if (statement->sql.find("@" + p) == std::string::npos) continue;
      parameters.named[p] = query::Datum::Null();
      parameters.untyped.insert(p);
    }
  } else if (kind == 'P') {
    auto found = portals_.find(name);
    if (found == portals_.end() && cursors_.contains(name)) {
      // A DECLAREd cursor is a portal too (psycopg describes it by name).
      Cursor& cursor = *cursors_[name];
      auto columns = cursor.Columns();
      if (!columns.ok()) {
        SendError(columns.status());
        return;
      }
      SendRowDescription(*columns, cursor.binary() ? std::vector<int16_t>{1} : formats);
      return;
    }
    if (found == portals_.end()) {
      SendError(absl::NotFoundError(StrCat("portal \"", name, "\" does not exist")));
      return;
    }
    portal = &found->second;
    statement = portal->statement;
    parameters = portal->parameters;
    formats = portal->result_formats;
  } else {
    SendError(absl::InvalidArgumentError("Describe needs 'S' or 'P'"));
    return;
  }
  // As PostgreSQL: no rows from these (a COPY's go in CopyData, not DataRow).
  const std::string first_word = FirstWord(statement->sql);
  if (IsBlank(statement->sql) || first_word == "delete" || first_word == "insert" ||
      first_word == "copy" || IsCatalogChange(first_word) ||
      ParseSavepointStatement(statement->sql).has_value()) {
    out_.Begin('n');  // NoData
    out_.End();
    return;
  }
  if (auto cursor = ParseCursorStatement(statement->sql)) {
    // DECLARE, MOVE and CLOSE return no rows; FETCH the cursor's, once it exists.
    auto open = cursor->ok() && (*cursor)->kind == CursorStatement::Kind::kFetch
                    ? cursors_.find((*cursor)->name)
                    : cursors_.end();
    if (open == cursors_.end()) {
      out_.Begin('n');
      out_.End();
      return;
    }
    auto columns = open->second->Columns();
    if (!columns.ok()) {
      SendError(columns.status());
      return;
    }
    SendRowDescription(*columns, open->second->binary() ? std::vector<int16_t>{1} : formats);
    if (portal != nullptr) portal->described = true;
    return;
  }
  CatalogAnswers catalog = Catalog();
  std::map<std::string, std::string> scratch = settings_;  // describing does not SET
  std::vector<query::ResultColumn> columns;
  if (auto answer = catalog.Answer(statement->sql, scratch)) {
    if (!answer->ok()) {
      SendError(answer->status(), statement.get());
      return;
    }
    columns = (*answer)->columns;
  } else {
    auto described = DescribeStatement(*statement, parameters);
    if (!described.ok() && CatalogAnswers::ReadsCatalog(statement->sql)) {
      described = CatalogAnswers::EmptyAnswer(statement->sql).columns;  // as RunStatement's
    }
    if (!described.ok()) {
      SendError(described.status(), statement.get());
      return;
    }
    columns = *std::move(described);
  }
  if (columns.empty()) {
    out_.Begin('n');
    out_.End();
    return;
  }
  SendRowDescription(columns, formats);
  if (portal != nullptr) portal->described = true;
}

void Session::Execute(MessageReader& in) {
  const std::string name = in.CString();
  const int32_t max_rows = in.Int32();
  auto found = portals_.find(name);
  if (found == portals_.end()) {
    SendError(absl::NotFoundError(StrCat("portal \"", name, "\" does not exist")));
    return;
  }
  Portal& portal = found->second;
  if (portal.complete) {  // executed to the end already: nothing more
    SendCommandComplete(portal.tag.empty() ? StrCat("SELECT 0") : portal.tag);
    return;
  }
  if (portal.executed) {
    EmitRows(portal, max_rows);
    return;
  }
  if (IsBlank(portal.statement->sql)) {
    out_.Begin('I');
    out_.End();
    return;
  }
  absl::Status status = RunStatement(*portal.statement, portal.parameters, portal.result_formats,
                                     /*describe_columns=*/false, &portal, max_rows);
  if (!status.ok()) SendError(status, portal.statement.get());
}

void Session::Close(MessageReader& in) {
  const std::string_view kind = in.Bytes(1);
  const std::string name = in.CString();
  if (!kind.empty() && kind[0] == 'S') statements_.erase(name);
  if (!kind.empty() && kind[0] == 'P') portals_.erase(name);
  out_.Begin('3');  // CloseComplete
  out_.End();
}

void Session::Sync() {
  skip_to_sync_ = false;
  // Outside a transaction block Sync ends the implicit transaction, and with
  // it every portal (as in PostgreSQL): a kept result lives for its batch,
  // or until COMMIT or ROLLBACK and the Sync after it.
  if (transaction_ == 'I') portals_.clear();
  SendReady();
  Flush();
}

void Session::SendRowDescription(const std::vector<query::ResultColumn>& columns,
                                 const std::vector<int16_t>& formats) {
  out_.Begin('T');
  out_.Int16(static_cast<int16_t>(columns.size()));
  for (size_t i = 0; i < columns.size(); ++i) {
    const int32_t oid = OidOf(columns[i].type);
    out_.CString(columns[i].name);
    out_.Int32(0);  // table OID
    out_.Int16(0);  // column number
    out_.Int32(oid);
    out_.Int16(TypeSize(oid));
    out_.Int32(-1);  // type modifier
    out_.Int16(FormatFor(formats, i));
  }
  out_.End();
}

void Session::SendDataRow(const query::Row& row, const std::vector<int16_t>& formats) {
  out_.Begin('D');
  out_.Int16(static_cast<int16_t>(row.size()));
  std::string value;
  const absl::TimeZone* zone = Zone();  // once a row: a settings lookup was 11 % of a large read
  for (size_t i = 0; i < row.size(); ++i) SendValue(row[i], FormatFor(formats, i), zone, &value);
  out_.End();
}

void Session::SendDataRow(const query::Batch& batch, size_t row,
                          const std::vector<int16_t>& formats, const absl::TimeZone* zone) {
  out_.Begin('D');
  out_.Int16(static_cast<int16_t>(batch.columns.size()));
  std::string value;
  for (size_t i = 0; i < batch.columns.size(); ++i) {
    const query::Vector& column = batch.columns[i];
    if (column.size() == 0 || column.null(row)) {
      out_.Null();
      continue;
    }
    SendValue(column.Get(row), FormatFor(formats, i), zone, &value);
  }
  out_.End();
}

void Session::SendValue(const query::Datum& value, int16_t format, const absl::TimeZone* zone,
                        std::string* scratch) {
  if (value.null || value.type == query::DataType::kUnknown) {
    out_.Null();
    return;
  }
  if (format == 1) {
    EncodeBinary(value, scratch);
  } else {
    EncodeText(value, scratch, zone);
  }
  out_.Value(*scratch);
}

void Session::SendCommandComplete(const std::string& tag) {
  out_.Begin('C');
  out_.CString(tag);
  out_.End();
}

void Session::SendError(const absl::Status& status, const Statement* statement,
                        std::string_view severity) {
  if (severity == "ERROR") skip_to_sync_ = true;  // the extended protocol skips to Sync
  if (transaction_ == 'T') transaction_ = 'E';
  // Logged once, as gRPC's failed calls are (server/grpc/call_observer.cc).
  std::string message = EchoInput(query::SqlErrorMessage(status), 300);
  std::replace(message.begin(), message.end(), '\n', ' ');
  spdlog::warn("postgres statement failed: statement={} sqlstate={} token={} peer={} message={}",
               statement != nullptr ? FirstWord(statement->sql) : "-", SqlState(status),
               caller_ != nullptr && !caller_->name().empty() ? caller_->name() : "-", peer_,
               message);
  out_.Begin('E');
  out_.Bytes("S");
  out_.CString(severity);
  out_.Bytes("V");
  out_.CString(severity);
  out_.Bytes("C");
  out_.CString(SqlState(status));
  out_.Bytes("M");
  out_.CString(query::SqlErrorMessage(status));
  if (auto offset = query::SqlErrorOffset(status); offset && statement != nullptr) {
    // Back to the client's text: undo the $n rewriting, add the statement's place in
    // a multi-statement query, and count characters (PostgreSQL's unit), not bytes.
    size_t original = static_cast<size_t>(*offset);
    for (const auto& [at, added] : statement->shifts) {
      if (at < static_cast<size_t>(*offset)) original -= added;
    }
    original += statement->base;
    int64_t characters = 0;
    std::string_view text;  // (a `?:` with "" would view a temporary copy)
    if (statement->original != nullptr) text = *statement->original;
    for (size_t i = 0; i < original && i < text.size(); ++i) {
      if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) ++characters;
    }
    out_.Bytes("P");
    out_.CString(std::to_string(characters + 1));
  }
  out_.Bytes(std::string_view("\0", 1));
  out_.End();
}

void Session::SendReady() {
  out_.Begin('Z');
  out_.Bytes(std::string_view(&transaction_, 1));
  out_.End();
}

}  // namespace strata::pg
