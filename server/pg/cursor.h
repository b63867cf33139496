// SQL cursors on the PostgreSQL wire: DECLARE name CURSOR FOR query, FETCH,
// MOVE and CLOSE, as psycopg's named cursors, SQLAlchemy's stream_results
// and pandas' chunked reads use them to read a large result in steps.
//
// A cursor's query runs on a thread of its own and hands rows to FETCH
// through a buffer of at most kCursorBufferBytes: the server holds that much
// per cursor however large the result, and the query waits while the
// client has not fetched. Cursors only go forward (NO SCROLL); the query
// runs under the server's query timeout, so a cursor left unfetched for
// longer fails with the timeout's error.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "query/engine.h"

namespace strata::pg {

// What one cursor holds in rows not yet fetched.
inline constexpr int64_t kCursorBufferBytes = 1 << 20;
// Cursors one session may have open (each runs a query while open).
inline constexpr size_t kMaxCursorsPerSession = 8;

// A cursor statement, parsed. `name` as PostgreSQL folds it (lower case
// unless "quoted").
struct CursorStatement {
  enum class Kind { kDeclare, kFetch, kMove, kClose };
  Kind kind = Kind::kDeclare;
  std::string name;           // empty for CLOSE ALL
  bool hold = false;          // DECLARE ... WITH HOLD: lives past the transaction
  bool binary = false;        // DECLARE BINARY: FETCH sends binary values
  size_t query_offset = 0;    // DECLARE: where the query after FOR starts
  int64_t count = 1;          // FETCH/MOVE: rows; -1 for ALL
};

// nullopt: `sql` is not a cursor statement (its first word is not DECLARE,
// FETCH, MOVE or CLOSE). An error names what is malformed or what Strata's
// cursors do not do (SCROLL, backward fetches).
std::optional<absl::StatusOr<CursorStatement>> ParseCursorStatement(std::string_view sql);

class Cursor {
 public:
  using Run = std::function<absl::Status(query::ResultSink* sink)>;
  // Starts `run` on the cursor's thread; `cancel` is the query's flag.
  Cursor(Run run, std::shared_ptr<std::atomic<bool>> cancel, bool hold, bool binary);
  // Stops the query (if it still runs) and waits for its thread.
  ~Cursor();
  Cursor(const Cursor&) = delete;
  Cursor& operator=(const Cursor&) = delete;

  // The result's columns, once the query has planned; the query's error if
  // it failed first.
  absl::StatusOr<std::vector<query::ResultColumn>> Columns();
  // Hands up to `count` rows (-1: all that are left) to `row`, in order;
  // `*fetched` counts them. The query's error once its rows before it are
  // fetched; CANCELLED when `row` returns false (the client went away).
  absl::Status Fetch(int64_t count, const std::function<bool(const query::Row&)>& row,
                     int64_t* fetched);

  bool hold() const { return hold_; }
  bool binary() const { return binary_; }

 private:
  class Sink;

  std::shared_ptr<std::atomic<bool>> cancel_;
  const bool hold_;
  const bool binary_;
  absl::Mutex mu_;
  std::optional<std::vector<query::ResultColumn>> columns_ ABSL_GUARDED_BY(mu_);
  std::deque<query::Row> buffer_ ABSL_GUARDED_BY(mu_);
  int64_t buffered_bytes_ ABSL_GUARDED_BY(mu_) = 0;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;  // the query returned
  absl::Status status_ ABSL_GUARDED_BY(mu_);     // its result, once finished
  bool closed_ ABSL_GUARDED_BY(mu_) = false;    // the cursor is going away
  std::thread thread_;
};

}  // namespace strata::pg
