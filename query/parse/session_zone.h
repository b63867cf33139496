// A PostgreSQL session's time zone (SET TIME ZONE 'Europe/Berlin', or the TimeZone a JDBC
// driver sends when it connects), written into the statement as it is parsed
// (docs/protocols.md, "Time zones"). Strata's timestamps are instants, PostgreSQL's
// timestamptz; under a zone the statement reads them as PostgreSQL reads a timestamptz:
// - the calendar's functions (extract and its fields, date(), to_char, ...) read the zone's
//   wall clock: f(t) becomes f(wall_clock(t, zone)); date_trunc(unit, t) becomes PostgreSQL
//   16's date_trunc(unit, t, zone), the instant its local day (hour, month) began;
// - CAST to date, time or varchar reads the wall clock too; CAST to timestamp reads text
//   without an offset and dates as the zone's (timestamp_in_zone), as do TIMESTAMP '...'
//   literals and text compared with a timestamp (the binder, by Expr::session_zone);
// - t AT TIME ZONE 'X', a wall-clock time, is the instant that shows the same digits in the
//   session's zone (from_wall_clock), so that it is truncated as PostgreSQL's timestamp and
//   written with the same digits (and the session's offset, which PostgreSQL leaves out);
// - current_date and current_time are the zone's.
// Adding an interval keeps its fixed length (a day is 24 hours across a change to summer
// time, where PostgreSQL adds a calendar day), and date_add and date_diff count in UTC.
// Every rewrite is a plain call with the zone's name as a literal, so EXPLAIN shows it and a
// cluster's fragments carry it.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "query/parse/ast.h"

namespace strata::query {

// The statement-wide zone a parser writes in; null for UTC (nothing to write).
using SessionZone = std::shared_ptr<const std::string>;

// The zone for a session setting's value (a name LoadTimeZone reads); null for UTC.
SessionZone MakeSessionZone(std::string_view name);

// `e`, a call, cast or AT TIME ZONE the parser just made, written to read `zone` as above
// (itself when nothing about it depends on a zone). The nodes it adds carry the zone.
ExprPtr InSessionZone(ExprPtr e, const SessionZone& zone);

// Whether `e` is a call InSessionZone wrote around the user's expression (wall_clock,
// from_wall_clock or timestamp_in_zone of the statement's zone): named after what it wraps.
bool WrittenForSessionZone(const Expr& e);

// TIMESTAMP 'text' under `zone`: text without an offset is the zone's wall-clock time.
// nullopt for text that is not a timestamp, or one outside the timestamps' range.
std::optional<int64_t> TimestampTextInZone(std::string_view text, const SessionZone& zone);

}  // namespace strata::query
