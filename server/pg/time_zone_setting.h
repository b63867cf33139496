// PostgreSQL's TimeZone setting (SET TIME ZONE, SET timezone = ..., the TimeZone a driver sends
// when it connects): what the statements of the session are read in (query/parse/
// session_zone.h) and what its timestamps are written in (types.h). docs/protocols.md, "Time
// zones".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/time/time.h"

namespace strata::pg {

// The engine's zone name (query::LoadTimeZone's) for a setting's value, or nullopt where
// PostgreSQL refuses it (invalid value for parameter "TimeZone"). Read as PostgreSQL reads it:
// an IANA name in any letter case ('europe/berlin' is 'Europe/Berlin'); LOCAL and DEFAULT are
// UTC (the server's zone); a number is hours east of UTC (SET TIME ZONE -7, 5.5); POSIX's
// 'UTC+3' and 'GMT-01:00' (what JDBC sends) count hours west, as POSIX does. Unlike
// PostgreSQL, which reads '+05:30' the POSIX way too (west), an offset alone is ISO 8601's
// and Presto's: east of UTC.
std::optional<std::string> ZoneForSetting(std::string_view value);

// The message for a value ZoneForSetting refuses.
std::string InvalidZoneMessage(std::string_view value);

// A timestamp's text in `zone` (PostgreSQL's timestamptz output, microseconds at most, trailing
// zeros cut): "2024-03-01 11:00:00+01", "2024-03-01 15:30:00.25+05:30"; null: UTC ("+00").
std::string TimestampTextIn(int64_t nanos, const absl::TimeZone* zone);

}  // namespace strata::pg
