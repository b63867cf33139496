// Parses one statement of Strata's SQL (the Timestream dialect, docs/sql.md)
// into a syntax tree. Errors are INVALID_ARGUMENT with a caret at the
// offending token.
#pragma once

#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "query/base/datum.h"
#include "query/parse/ast.h"

namespace strata::query {

// Limits that keep every recursive pass over a statement (parser, planner,
// evaluator, destructors) far inside a query thread's stack, whatever the
// client sends. SQLite's default expression depth is 1000.
inline constexpr int kMaxExpressionDepth = 1000;
// Subqueries (FROM and WITH) nested inside each other; each level is planned
// with its own operators.
inline constexpr int kMaxQueryDepth = 64;
// Tables joined in one FROM clause; each join holds its build side in memory.
inline constexpr int kMaxJoins = 32;
// Stack the parser leaves unused: it refuses a statement that nests deeper
// than the thread's stack allows (common/stack_room.h) with this much left,
// room for the error it returns.
inline constexpr size_t kParserStackReserveBytes = 256 * 1024;
// Timestream's quota on the query string.
inline constexpr size_t kMaxQueryBytes = 256 * 1024;

// Values bound to a statement's placeholders: `?` takes the positional ones
// in order, `@name` the named ones. Each is a typed literal in the syntax
// tree, never text spliced into the SQL.
struct QueryParameters {
  std::vector<Datum> positional;
  std::map<std::string, Datum, std::less<>> named;  // names without the '@'
  // Named values sent as text of no declared type (PostgreSQL's "unknown",
  // which node-postgres sends): compared with a column they take its type,
  // as PostgreSQL resolves them ('5' = a BIGINT column is 5).
  std::set<std::string, std::less<>> untyped;
  // Named values the statement need not use (a scheduled query's
  // @scheduled_runtime); any other unused value is an error.
  std::set<std::string, std::less<>> optional;
  // The caller's name, which current_user answers (empty: "strata", the name of a server
  // without authentication, as the PostgreSQL wire reports it).
  std::string session_user;
  // The session's time zone (a PostgreSQL session's TimeZone: query/parse/session_zone.h);
  // empty or UTC: timestamps are read and truncated in UTC.
  std::string time_zone;
  // The database unqualified tables are read from (USE db; a PostgreSQL connection's), which
  // current_schema() answers: a Strata database is a PostgreSQL schema (empty: "public").
  std::string current_schema;
  bool empty() const { return positional.empty() && named.empty(); }
};

// INVALID_ARGUMENT for text longer than kMaxQueryBytes or nested past the
// limits above, and for placeholders without a value or values without a
// placeholder.
absl::StatusOr<Statement> Parse(std::string_view sql, const QueryParameters& parameters = {});

}  // namespace strata::query
