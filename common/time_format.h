// Reading and writing UTC timestamps (nanoseconds since the Unix epoch), in
// the forms the API and SQL use. One implementation for every module.
#pragma once

#include <cstdint>
#include <ctime>
#include <optional>
#include <string>
#include <string_view>

namespace strata {

// Broken-down UTC time of a (possibly negative) nanosecond timestamp.
std::tm ToUtcTm(int64_t nanos);
// Nanoseconds within the second, in [0, 1e9).
int64_t SubsecondNanos(int64_t nanos);

// A proleptic Gregorian date, by Howard Hinnant's algorithms (exact for every year an int64
// of days reaches, without a broken-down time or the C library's time zone lock).
struct CivilDate {
  int64_t year = 1970;
  int month = 1;  // 1-12
  int day = 1;    // 1-31
};
CivilDate CivilFromDays(int64_t days_since_epoch);
// Days from 1970-01-01 to y-m-d; a day past its month's end counts on into the next month,
// as timegm counts it.
int64_t DaysFromCivil(int64_t year, int64_t month, int64_t day);

// "2023-02-13T19:22:45.051Z": ISO-8601 with milliseconds (rejection texts).
std::string FormatIso8601Millis(int64_t nanos);
// "2021-12-01 19:00:00.000000000": SQL TIMESTAMP text, as Timestream prints it.
std::string FormatSqlTimestamp(int64_t nanos);

// Parses "YYYY-MM-DD", "YYYY-MM-DD HH:MM[:SS[.fffffffff]]" (or with 'T'),
// optionally followed by 'Z' or an offset "+hh:mm" / "-hh:mm" / "+hh", as UTC.
std::optional<int64_t> ParseTimestamp(std::string_view text);

}  // namespace strata
