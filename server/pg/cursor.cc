#include "server/pg/cursor.h"

#include <cctype>

#include "absl/strings/ascii.h"
#include "common/start_thread.h"
#include "common/strings.h"
#include "common/utf8.h"

namespace strata::pg {
namespace {

// The words of a cursor statement: bare words in lower case, "quoted" names
// as written; each with where it starts.
struct Word {
  std::string text;
  bool quoted = false;
  size_t at = 0;
};

class Words {
 public:
  explicit Words(std::string_view sql) : sql_(sql) {}

  std::optional<Word> Next() {
    while (at_ < sql_.size() && std::isspace(static_cast<unsigned char>(sql_[at_]))) ++at_;
    if (at_ >= sql_.size() || sql_[at_] == ';') return std::nullopt;
    Word w{.at = at_};
    if (sql_[at_] == '"') {
      w.quoted = true;
      for (++at_; at_ < sql_.size(); ++at_) {
        if (sql_[at_] == '"') {
          if (at_ + 1 < sql_.size() && sql_[at_ + 1] == '"') {
            w.text.push_back('"');
            ++at_;
            continue;
          }
          ++at_;
          return w;
        }
        w.text.push_back(sql_[at_]);
      }
      return std::nullopt;  // unterminated: not a name
    }
    while (at_ < sql_.size() && !std::isspace(static_cast<unsigned char>(sql_[at_])) &&
           sql_[at_] != ';') {
      w.text.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(sql_[at_++]))));
    }
    return w;
  }
  // True (and consumed) when the next word is the bare `word`.
  bool Accept(std::string_view word) {
    const size_t saved = at_;
    std::optional<Word> w = Next();
    if (w && !w->quoted && w->text == word) return true;
    at_ = saved;
    return false;
  }
  bool AtEnd() {
    const size_t saved = at_;
    const bool end = !Next().has_value();
    at_ = saved;
    return end;
  }

 private:
  std::string_view sql_;
  size_t at_ = 0;
};

absl::Status Malformed(std::string_view what, std::string_view form) {
  return absl::InvalidArgumentError(StrCat("malformed ", what, "; write ", form));
}

constexpr std::string_view kDeclareForm =
    "DECLARE name [BINARY] [NO SCROLL] CURSOR [WITH HOLD | WITHOUT HOLD] FOR query";
constexpr std::string_view kFetchForm = "FETCH [NEXT | n | ALL | FORWARD [n | ALL]] [FROM] name";

absl::StatusOr<CursorStatement> ParseDeclare(Words& words) {
  CursorStatement out{.kind = CursorStatement::Kind::kDeclare};
  std::optional<Word> name = words.Next();
  if (!name) return Malformed("DECLARE", kDeclareForm);
  out.name = name->text;
  for (;;) {
    if (words.Accept("binary")) {
      out.binary = true;
    } else if (words.Accept("asensitive") || words.Accept("insensitive")) {
    } else if (words.Accept("no")) {
      if (!words.Accept("scroll")) return Malformed("DECLARE", kDeclareForm);
    } else if (words.Accept("scroll")) {
      return absl::UnimplementedError(
          "SCROLL cursors are not supported: Strata's cursors stream forward; declare the cursor "
          "without SCROLL (or NO SCROLL)");
    } else {
      break;
    }
  }
  if (!words.Accept("cursor")) return Malformed("DECLARE", kDeclareForm);
  if (words.Accept("with")) {
    if (!words.Accept("hold")) return Malformed("DECLARE", kDeclareForm);
    out.hold = true;
  } else if (words.Accept("without")) {
    if (!words.Accept("hold")) return Malformed("DECLARE", kDeclareForm);
  }
  std::optional<Word> for_word = words.Next();
  if (!for_word || for_word->quoted || for_word->text != "for") {
    return Malformed("DECLARE", kDeclareForm);
  }
  out.query_offset = for_word->at + 3;
  return out;
}

// FETCH and MOVE: [direction] [FROM | IN] name.
absl::StatusOr<CursorStatement> ParseFetch(Words& words, CursorStatement::Kind kind) {
  CursorStatement out{.kind = kind, .count = 1};
  auto number = [](const std::string& text) -> std::optional<int64_t> {
    if (text.empty() || text.size() > 18) return std::nullopt;
    for (char c : text) {
      if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    }
    return std::stoll(text);
  };
  for (std::string_view backward : {"prior", "first", "last", "absolute", "relative", "backward"}) {
    if (words.Accept(backward)) {
      return absl::UnimplementedError(StrCat(
          "FETCH ", absl::AsciiStrToUpper(absl::string_view(backward.data(), backward.size())), " is not supported: Strata's cursors stream "
          "forward; use FETCH NEXT, FETCH n, FETCH ALL or FETCH FORWARD"));
    }
  }
  words.Accept("forward");  // the default direction
  if (words.Accept("next")) {
    out.count = 1;
  } else if (words.Accept("all")) {
    out.count = -1;
  } else {
    Words probe = words;
    std::optional<Word> w = probe.Next();
    if (w && !w->quoted) {
      if (std::optional<int64_t> n = number(w->text)) {
        out.count = *n;
        words = probe;
      } else if (!w->text.empty() && w->text[0] == '-') {
        return absl::UnimplementedError(
            "a negative count fetches backward, which Strata's cursors do not: they stream "
            "forward");
      }
    }
  }
  if (!words.Accept("from")) words.Accept("in");
  std::optional<Word> name = words.Next();
  if (!name || !words.AtEnd()) return Malformed(kind == CursorStatement::Kind::kMove ? "MOVE" : "FETCH", kFetchForm);
  out.name = name->text;
  return out;
}

}  // namespace

std::optional<absl::StatusOr<CursorStatement>> ParseCursorStatement(std::string_view sql) {
  Words words(sql);
  std::optional<Word> first = words.Next();
  if (!first || first->quoted) return std::nullopt;
  if (first->text == "declare") return ParseDeclare(words);
  if (first->text == "fetch") return ParseFetch(words, CursorStatement::Kind::kFetch);
  if (first->text == "move") return ParseFetch(words, CursorStatement::Kind::kMove);
  if (first->text == "close") {
    CursorStatement out{.kind = CursorStatement::Kind::kClose};
    if (!words.Accept("all")) {
      std::optional<Word> name = words.Next();
      if (!name) return absl::StatusOr<CursorStatement>(Malformed("CLOSE", "CLOSE name | CLOSE ALL"));
      out.name = name->text;
    }
    if (!words.AtEnd()) return absl::StatusOr<CursorStatement>(Malformed("CLOSE", "CLOSE name | CLOSE ALL"));
    return out;
  }
  return std::nullopt;
}

// Feeds the cursor's buffer from the query, waiting while it is full.
class Cursor::Sink final : public query::ResultSink {
 public:
  explicit Sink(Cursor* cursor) : cursor_(cursor) {}
  absl::Status Columns(const std::vector<query::ResultColumn>& columns) override {
    absl::MutexLock lock(&cursor_->mu_);
    cursor_->columns_ = columns;
    return absl::OkStatus();
  }
  absl::Status Rows(std::vector<query::Row> page) override {
    Cursor* c = cursor_;
    for (query::Row& row : page) {
      const int64_t bytes = query::RowBytes(row);
      absl::MutexLock lock(&c->mu_);
      // One row always fits, so a row larger than the buffer still passes.
      c->mu_.Await(absl::Condition(
          +[](Cursor* c) {
            c->mu_.AssertHeld();
            return c->closed_ || c->buffer_.empty() || c->buffered_bytes_ < kCursorBufferBytes;
          },
          c));
      if (c->closed_) return absl::CancelledError("the cursor was closed");
      c->buffered_bytes_ += bytes;
      c->buffer_.push_back(std::move(row));
    }
    return absl::OkStatus();
  }

 private:
  Cursor* cursor_;
};

Cursor::Cursor(Run run, std::shared_ptr<std::atomic<bool>> cancel, bool hold, bool binary)
    : cancel_(std::move(cancel)), hold_(hold), binary_(binary) {
  absl::StatusOr<std::thread> started =
      StartThread("a cursor's query", [this, run = std::move(run)] {
        Sink sink(this);
        absl::Status status = run(&sink);
        absl::MutexLock lock(&mu_);
        finished_ = true;
        status_ = std::move(status);
      });
  if (started.ok()) {
    thread_ = *std::move(started);
    return;
  }
  absl::MutexLock lock(&mu_);  // the cursor ends at once with why
  finished_ = true;
  status_ = started.status();
}

Cursor::~Cursor() {
  {
    absl::MutexLock lock(&mu_);
    closed_ = true;
  }
  cancel_->store(true);
  if (thread_.joinable()) thread_.join();
}

absl::StatusOr<std::vector<query::ResultColumn>> Cursor::Columns() {
  absl::MutexLock lock(&mu_);
  mu_.Await(absl::Condition(
      +[](Cursor* c) {
        c->mu_.AssertHeld();
        return c->columns_.has_value() || c->finished_;
      },
      this));
  if (columns_) return *columns_;
  if (!status_.ok()) return status_;
  return std::vector<query::ResultColumn>{};
}

absl::Status Cursor::Fetch(int64_t count, const std::function<bool(const query::Row&)>& row,
                           int64_t* fetched) {
  *fetched = 0;
  std::vector<query::Row> taken;
  while (count < 0 || *fetched < count) {
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(
          +[](Cursor* c) {
            c->mu_.AssertHeld();
            return !c->buffer_.empty() || c->finished_;
          },
          this));
      if (buffer_.empty()) return status_;  // the end, or the query's error
      // Take what is there (up to the count) in one go, then send it unlocked.
      while (!buffer_.empty() && (count < 0 || *fetched + static_cast<int64_t>(taken.size()) < count)) {
        buffered_bytes_ -= query::RowBytes(buffer_.front());
        taken.push_back(std::move(buffer_.front()));
        buffer_.pop_front();
      }
    }
    for (const query::Row& r : taken) {
      if (!row(r)) return absl::CancelledError("the client went away");
      ++*fetched;
    }
    taken.clear();
  }
  return absl::OkStatus();
}

}  // namespace strata::pg
