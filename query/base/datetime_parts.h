// What a time pattern compiles to (query/base/datetime_text.h): a list of
// fields and literals, the same for each pattern language, so that one
// formatter and one parser serve them all. Internal to datetime_text.cc and
// the PostgreSQL template compiler (datetime_postgres.cc).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace strata::query::datetime {

enum class Field {
  kLiteral,
  kYear,            // %Y, yyyy, YYYY: at least `width` digits (or its last `tail`)
  kYear2,           // %y, yy: two digits, 1970-2069
  kYearComma,       // Y,YYY: 2,024
  kMonth,           // %m %c, M MM
  kMonthShort,      // %b, MMM, Mon
  kMonthLong,       // %M, MMMM, Month
  kRomanMonth,      // RM: I to XII
  kQuarter,         // Q: 1 to 4
  kDay,             // %d %e, d dd
  kDayOfYear,       // %j, D, DDD
  kIsoDayOfYear,    // IDDD: 1 to 371, from the ISO year's first Monday
  kHour24,          // %H %k, H
  kHour12,          // %h %I %l, h (1-12)
  kHour0To11,       // K
  kHour1To24,       // k
  kMinute,          // %i, m
  kSecond,          // %s %S, s
  kSecondsOfDay,    // SSSS: seconds since midnight
  kFraction,        // %f (6 digits), S... (as many digits as letters), MS, US, FF1-FF6
  kAmPm,            // %p, a, AM
  kEra,             // AD (never BC: timestamps start in 1677)
  kWeekdayShort,    // %a, E EEE, Dy
  kWeekdayLong,     // %W, EEEE, Day
  kWeekdayNumber,   // e, ID: 1 (Monday) to 7
  kWeekdaySunday1,  // D: 1 (Sunday) to 7
  kWeekOfYear,      // %v, w, IW: ISO week
  kWeekOfYearJan1,  // WW: weeks of seven days from January 1
  kWeekOfMonth,     // W: weeks of seven days from the month's first
  kWeekYear,        // %x, x, IYYY: ISO week-numbering year (or its last `tail`)
  kCentury,         // CC
  kJulianDay,       // J: days since 4714-11-24 BC
  kZone,            // z, TZ: the zone's name (UTC)
  kOffset,          // Z: +0000, ZZ: +00:00
  kOffsetHours,     // TZH, OF: +00
  kOffsetMinutes,   // TZM: 00
};

// How a name (a month, a weekday, AM, AD, a roman month, the zone) is
// written: as the language stores it (January), or all upper or lower case.
enum class LetterCase { kAsStored, kUpper, kLower };

struct Part {
  Field field = Field::kLiteral;
  int width = 1;        // digits to pad to (fraction: digits written)
  std::string literal;  // kLiteral's text
  // PostgreSQL's templates only:
  int tail = 0;       // YYY, YY, Y, IYY, ...: the year's last digits
  bool fill = false;  // FM: numbers not padded, names not blank-padded
  int pad_to = 0;     // names blank-padded to this many characters
  LetterCase letter_case = LetterCase::kAsStored;
  bool dotted = false;  // A.M., A.D.
  int ordinal = 0;      // TH (1: 1ST) and th (2: 1st) after a number
};

// Adds literal text, joined to a literal before it.
void AddLiteral(std::vector<Part>* parts, std::string_view text);

// PostgreSQL's template patterns (to_char, to_timestamp, to_date):
// 'YYYY-MM-DD HH24:MI:SS.MS', 'FMDay, DDth Month YYYY', "quoted text".
// Unknown letters are literal text, as PostgreSQL has them.
absl::StatusOr<std::vector<Part>> CompilePostgres(std::string_view pattern);

}  // namespace strata::query::datetime
