// The HTTP SQL API (docs/api.md, "HTTP SQL API"): one statement per request
// through the query runner every front door uses, its answer streamed in the
// format asked (server/http/sql_result_format.h).
//
//   POST /api/v1/sql   {"query": .., "params": [..] or {..}, "database": ..,
//                      "timeout_ms": ..} as application/json, or the statement
//                      alone as any other type (text/plain)
//   GET  /api/v1/sql?q=<statement>
//   both: ?database=, ?timeout_ms=, ?format=json|ndjson|csv (or Accept)
//
// An error met before the first rows (syntax, names, grants, admission, an
// aggregate over its budget) is the answer's HTTP status with {"error":{code, message,
// position}}; one met while rows stream (a timeout, KILL QUERY, the memory
// budget) ends the JSON or NDJSON answer with that error object, and cuts a
// CSV answer short so no client takes it for whole.
#pragma once

#include <atomic>
#include <memory>

#include "server/auth/authenticator.h"
#include "server/runner/query_runner.h"

namespace httplib {
class Server;
}  // namespace httplib

namespace strata {

// The largest request the API reads (a statement is at most 256 KiB; its
// parameters may add to that).
inline constexpr size_t kMaxSqlRequestBytes = 1 << 20;

// `stopping`, set when the server stops, ends the queries of requests in
// flight. Every argument must outlive the server.
void RouteSqlApi(httplib::Server& server, StatementRunner* queries, Authenticator* auth,
                 std::shared_ptr<std::atomic<bool>> stopping);

}  // namespace strata
