// One PostgreSQL client connection (docs/protocols.md): startup, SSL
// negotiation, authentication with a Strata token as the password, then the
// simple query protocol and the extended one (Parse / Bind / Describe /
// Execute / Close / Sync / Flush, named and unnamed statements and portals,
// `$n` parameters, row limits with PortalSuspended). Statements are run by
// the query runner like gRPC queries (admission, SHOW QUERIES, memory
// budget, metrics, slow-query log); the catalog and session statements
// clients send are answered by server/pg/catalog.h.
#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "query/base/memory_budget.h"
#include "query/engine.h"
#include "server/auth/authenticator.h"
#include "server/pg/catalog.h"
#include "server/pg/copy.h"
#include "server/pg/cursor.h"
#include "server/pg/savepoint.h"
#include "server/pg/wire.h"
#include "server/runner/query_runner.h"

namespace strata::pg {

// Larger messages end the connection (a query is at most 256 KiB of SQL; as
// gRPC's default --max-message-bytes).
inline constexpr int32_t kMaxMessageBytes = 16 << 20;
// A transaction's savepoints (names kept in the session: a loop of SAVEPOINTs would grow it).
inline constexpr size_t kMaxSavepoints = 10'000;

// Between a session and the server's watch of its client (PgServer::WatchClients): while the
// session works on a message (not while it waits for one), a client that closed its
// connection cancels that work, as PostgreSQL's client_connection_check_interval does, rather
// than leaving a query to run to its timeout for no one.
struct ClientWatch {
  std::atomic<bool> busy{false};
  // The session's cancel flag, set before `busy` is first set.
  std::shared_ptr<std::atomic<bool>> cancel;
};

// What a session needs from the server it belongs to.
struct SessionContext {
  StatementRunner* queries = nullptr;
  Engine* engine = nullptr;
  Authenticator* auth = nullptr;
  SSL_CTX* tls = nullptr;  // null: SSLRequest is answered 'N'
  // Startup and authentication must be done within this.
  std::chrono::seconds auth_timeout{60};
  // Registers the session's cancel key; returns it (process id, secret).
  std::function<std::pair<int32_t, int32_t>(std::shared_ptr<std::atomic<bool>>)> register_cancel;
  std::function<void(int32_t)> unregister_cancel;
  // A CancelRequest for another session.
  std::function<void(int32_t, int32_t)> cancel;
  std::shared_ptr<ClientWatch> watch;  // null: the client is not watched
};

class Session {
 public:
  Session(SessionContext context, std::unique_ptr<Stream> stream, std::string peer);
  ~Session();

  // Serves the connection until the client leaves or fails.
  void Run();

 private:
  struct Statement {
    std::string sql;                     // with $n rewritten to @pN
    std::vector<int32_t> declared_oids;  // from Parse (0: not declared)
    int parameters = 0;                  // the largest $n
    std::vector<std::pair<size_t, size_t>> shifts;  // (rewritten offset, +bytes) for positions
    // The text the client sent: a simple query's whole string, shared by its
    // statements (a copy each made a message of many statements quadratic).
    std::shared_ptr<const std::string> original;
    size_t base = 0;       // where `sql` starts in `original`

    // The memory a prepared statement keeps (its own `original`).
    size_t bytes() const {
      return sizeof *this + sql.size() + (original ? original->size() : 0) +
             declared_oids.size() * sizeof(int32_t) + shifts.size() * sizeof(shifts[0]);
    }
  };
  struct Portal {
    std::shared_ptr<const Statement> statement;
    query::QueryParameters parameters;
    std::vector<int16_t> result_formats;
    bool described = false;  // RowDescription sent by Describe
    bool executed = false;
    bool complete = false;
    // A result kept for Execute with a row limit.
    std::vector<query::ResultColumn> columns;
    std::vector<query::Row> rows;
    query::MemoryReservation kept;  // the rows', from the server's query budget
    size_t next_row = 0;
    std::string tag;
  };

  bool Startup();
  bool Authenticate(const std::map<std::string, std::string>& parameters);
  // A message of at most `max_bytes` (a longer one ends the session).
  bool ReadMessage(char* type, std::string* body, int32_t max_bytes);
  // The session's token checked again (as every gRPC call is): a revoked
  // or expired token, or changed grants, take effect at the next statement.
  // False (with a FATAL error sent) when the token no longer authenticates.
  bool RefreshCaller();

  void SimpleQuery(const std::string& text);
  void Parse(MessageReader& in);
  void Bind(MessageReader& in);
  void Describe(MessageReader& in);
  void Execute(MessageReader& in);
  void Close(MessageReader& in);
  void Sync();

  // Runs one statement. `describe_columns`: send RowDescription first (with
  // `formats`); rows go out as DataRows up to `max_rows` (0: all), the rest
  // kept in `portal` when there is one.
  absl::Status RunStatement(const Statement& statement, const query::QueryParameters& parameters,
                            const std::vector<int16_t>& formats, bool describe_columns,
                            Portal* portal, int32_t max_rows);
  // DECLARE, FETCH, MOVE and CLOSE (server/pg/cursor.h).
  // SAVEPOINT, RELEASE, ROLLBACK TO (savepoint.h): checked against the block's names.
  absl::Status RunSavepoint(const SavepointStatement& savepoint);
  absl::Status RunCursorStatement(const CursorStatement& cursor, const Statement& statement,
                                  const query::QueryParameters& parameters,
                                  const std::vector<int16_t>& formats, bool describe_columns,
                                  Portal* portal);
  // COPY ... TO STDOUT: CopyOutResponse, a CopyData for each line, CopyDone, "COPY n".
  absl::Status RunCopy(const CopyStatement& copy);
  // COPY table FROM STDIN (session_copy.cc): CopyInResponse once the statement asks for its
  // first row, then the client's CopyData read as the statement writes them, to CopyDone (or
  // CopyFail); "COPY n" (the rows written).
  absl::Status RunCopyIn(const CopyStatement& copy);
  // Closes the cursors a transaction's end closes (those without HOLD).
  void EndTransaction();
  absl::StatusOr<std::vector<query::ResultColumn>> DescribeStatement(
      const Statement& statement, const query::QueryParameters& parameters);
  void EmitRows(Portal& portal, int32_t max_rows);
  // An answer of server/pg/catalog.h's: RowDescription (when `describe_columns`) and its rows
  // up to `max_rows`, the rest kept in `portal` when there is one.
  void EmitAnswer(CannedResult result, bool describe_columns, const std::vector<int16_t>& formats,
                  Portal* portal, int32_t max_rows);
  // The session's `strata.<read option>` settings (server/runner/read_options.h) onto
  // `request`; INVALID_ARGUMENT naming a setting with a value it cannot take.
  absl::Status ApplyReadSettings(StatementRunner::Request* request) const;
  // The session's TimeZone setting (time_zone_setting.h), loaded; null: UTC.
  const absl::TimeZone* Zone() const;
  CatalogAnswers Catalog();

  void SendRowDescription(const std::vector<query::ResultColumn>& columns,
                          const std::vector<int16_t>& formats);
  void SendDataRow(const query::Row& row, const std::vector<int16_t>& formats);
  // Row `row` of `batch` (a column of size 0 is NULL), with the session's zone `zone`.
  void SendDataRow(const query::Batch& batch, size_t row, const std::vector<int16_t>& formats,
                   const absl::TimeZone* zone);
  // One value of a DataRow, in `format` (1: binary), `scratch` its encoding's room.
  void SendValue(const query::Datum& value, int16_t format, const absl::TimeZone* zone,
                 std::string* scratch);
  void SendCommandComplete(const std::string& tag);
  void SendError(const absl::Status& status, const Statement* statement = nullptr,
                 std::string_view severity = "ERROR");
  void SendReady();
  bool Flush();

  SessionContext context_;
  std::unique_ptr<Stream> stream_;
  const std::string peer_;
  MessageWriter out_;
  std::shared_ptr<const Principal> caller_;
  std::string bearer_;  // "Bearer <token>" with auth on
  std::map<std::string, std::string> settings_;
  // settings_'s "timezone" as Zone() last loaded it.
  mutable std::string zone_setting_ = "UTC";
  mutable std::optional<absl::TimeZone> zone_;
  // The startup packet's database when it names a Strata database: the one of
  // unqualified table names (`FROM cpu`).
  std::string database_;
  std::map<std::string, std::shared_ptr<const Statement>> statements_;
  std::map<std::string, Portal> portals_;
  std::shared_ptr<std::atomic<bool>> cancel_ = std::make_shared<std::atomic<bool>>(false);
  int32_t process_id_ = 0;
  char transaction_ = 'I';  // ReadyForQuery's status: I idle, T in a block, E failed block
  std::vector<std::string> savepoints_;  // the block's, oldest first (savepoint.h)
  bool skip_to_sync_ = false;  // an extended-protocol error: ignore until Sync
  bool broken_ = false;        // the connection failed: stop
  // Last: a cursor's query thread uses the members above until it is joined.
  std::map<std::string, std::unique_ptr<Cursor>> cursors_;
};

// `sql` with PostgreSQL's $1, $2 ... placeholders as Strata's @p1, @p2 (outside
// strings, quoted names and comments); `*max` gets the largest number.
std::string RewritePlaceholders(std::string_view sql, int* max,
                                std::vector<std::pair<size_t, size_t>>* shifts);

}  // namespace strata::pg
