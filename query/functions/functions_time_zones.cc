// Time zones (Timestream's at_timezone and with_timezone, Presto's AT TIME ZONE). Strata's
// timestamps are instants in UTC, as Timestream's are. at_timezone gives an instant's
// wall-clock time in a zone, as a timestamp: grouped by local days or hours with date_trunc, it
// follows summer time. with_timezone is its inverse: the instant a zone's wall-clock time is.
// Zones come from the IANA database (Debian's tzdata, read through Abseil) or are fixed
// offsets. Timestream itself answers in UTC only; its users shift by hand, wrongly across a
// change to summer time. Here too: PostgreSQL's make_date, make_timestamp and make_timestamptz,
// which build a time from its civil fields (in a zone, for the last).
#include <cctype>
#include <cmath>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_format.h"
#include "absl/time/civil_time.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "common/strings.h"
#include "common/time_format.h"
#include "common/utf8.h"
#include "query/base/checked_math.h"
#include "query/base/time_zone.h"
#include "query/functions/function_families.h"

namespace strata::query {

// The zone named `name`, remembered for this thread's next row (a query names one zone).
const absl::TimeZone* FindZone(std::string_view name) {
  thread_local std::string last_name;
  thread_local std::optional<absl::TimeZone> last;
  if (!last || last_name != name) {
    last_name = std::string(name);
    last = LoadTimeZone(last_name);
    if (!last) last_name.clear();
  }
  return last ? &*last : nullptr;
}

Datum UnknownZone(std::string_view function, std::string_view name, const EvalContext& c) {
  return FailQuery(c,
                   StrCat(function, "(): '", EchoInput(name),
                          "' is not a time zone; name one of the IANA database, as "
                          "'Europe/Berlin' or 'America/New_York', or an offset, as '+05:30'"),
                   kTs);
}

namespace {

using Args = std::vector<Datum>;
using P = Param;

Datum OutOfRange(std::string_view function, const EvalContext& c) {
  return FailQuery(c,
                   StrCat(function,
                          "(): the result is outside the range of timestamps "
                          "(1677-09-21 to 2262-04-11)"),
                   kTs);
}

// Civil fields as PostgreSQL's make_* take them: the seconds a double (fraction kept to the
// nanosecond); nullopt, with `*why` saying which field is wrong, for a day the month has not,
// an hour past 23 and the like, or a year outside the timestamps' range.
// What is wrong with a time of day's fields (an hour past 23 and the like); empty when nothing.
std::string TimeOfDayProblem(int64_t hour, int64_t minute, double second) {
  if (hour < 0 || hour > 23) return StrCat("the hour ", hour, " is not 0 to 23");
  if (minute < 0 || minute > 59) return StrCat("the minute ", minute, " is not 0 to 59");
  if (!(second >= 0 && second < 60)) {
    return StrCat("the seconds ", second, " are not at least 0 and below 60");
  }
  return "";
}

std::optional<absl::CivilSecond> CivilFields(const Args& a, int64_t* fraction, std::string* why) {
  const int64_t year = a[0].i, month = a[1].i, day = a[2].i;
  const int64_t hour = a.size() > 3 ? a[3].i : 0, minute = a.size() > 4 ? a[4].i : 0;
  const double second = a.size() > 5 ? a[5].AsDouble() : 0;
  if (year < 1677 || year > 2262) {
    *why = StrCat("the year ", year, " is outside the range of timestamps (1677 to 2262)");
  } else if (month < 1 || month > 12) {
    *why = StrCat("the month ", month, " is not 1 to 12");
  } else if (std::string problem = TimeOfDayProblem(hour, minute, second); !problem.empty()) {
    *why = std::move(problem);
  } else {
    const absl::CivilSecond civil(year, static_cast<int>(month), static_cast<int>(day),
                                  static_cast<int>(hour), static_cast<int>(minute),
                                  static_cast<int>(second));
    if (day >= 1 && civil.day() == day && civil.month() == month) {
      *fraction = static_cast<int64_t>(
          std::llround((second - std::floor(second)) * static_cast<double>(kNanosPerSecond)));
      return civil;
    }
    *why = absl::StrFormat("the month %04d-%02d has no day %d", year, month, day);
  }
  return std::nullopt;
}

// The instant `civil` (+ `fraction` nanoseconds) is in `zone`, within the range of timestamps.
// `pre` (the offset before a change) is Java's and so Presto's choice for both a skipped time
// (it lands after the gap) and a repeated one (the first).
std::optional<int64_t> InstantOf(const absl::CivilSecond& civil, int64_t fraction,
                                 const absl::TimeZone& zone) {
  const int64_t seconds = absl::ToUnixSeconds(zone.At(civil).pre);
  std::optional<int64_t> out = CheckedIntegerOp('*', seconds, kNanosPerSecond);
  if (out) out = CheckedIntegerOp('+', *out, fraction);
  return out;
}

// The wall-clock time in the zone named `zone_name` at the instant `nanos` (at_timezone's).
Datum WallClockIn(std::string_view function, std::string_view zone_name, int64_t nanos,
                  const EvalContext& c) {
  const absl::TimeZone* zone = FindZone(zone_name);
  if (zone == nullptr) return UnknownZone(function, zone_name, c);
  const std::optional<int64_t> local = WallClockAt(nanos, *zone);
  if (!local) return OutOfRange(function, c);
  return Datum::Timestamp(*local);
}

}  // namespace

void AddTimeZoneFunctions(std::vector<ScalarFunction>* scalars) {
  auto add = CanFailAdder(scalars);
  add({"at_timezone", "at_timezone(timestamp, zone) -> timestamp",
       "The wall-clock time in a zone (an IANA name such as 'Europe/Berlin', or an offset such "
       "as '+05:30') at the instant: date_trunc('day', at_timezone(time, 'Europe/Berlin')) is "
       "the local day, summer time included. `ts AT TIME ZONE zone` is the same.",
       Fixed({P::kTimestamp, P::kVarchar}, kTs, "at_timezone(timestamp, varchar)"),
       [](const Args& a, const EvalContext& c) {
         return WallClockIn("at_timezone", a[1].s, a[0].i, c);
       }});
  add({"timezone", "timezone(zone, timestamp) -> timestamp",
       "PostgreSQL's name of at_timezone, the zone first.",
       Fixed({P::kVarchar, P::kTimestamp}, kTs, "timezone(varchar, timestamp)"),
       [](const Args& a, const EvalContext& c) {
         return WallClockIn("timezone", a[0].s, a[1].i, c);
       }});
  add({"with_timezone", "with_timezone(timestamp, zone) -> timestamp",
       "The instant a zone's wall-clock time is, in UTC (at_timezone's inverse): "
       "with_timezone(TIMESTAMP '2024-07-01 00:00:00', 'Europe/Berlin') is 2024-06-30 "
       "22:00:00. A time that a change to summer time skips moves on by the gap; one it "
       "repeats is the first.",
       Fixed({P::kTimestamp, P::kVarchar}, kTs, "with_timezone(timestamp, varchar)"),
       [](const Args& a, const EvalContext& c) {
         const absl::TimeZone* zone = FindZone(a[1].s);
         if (zone == nullptr) return UnknownZone("with_timezone", a[1].s, c);
         const std::optional<int64_t> out = InstantOfWallClock(a[0].i, *zone);
         if (!out) return OutOfRange("with_timezone", c);
         return Datum::Timestamp(*out);
       }});

  // A PostgreSQL session's time zone (SET TIME ZONE) is written into the statement with these
  // two and with_timezone (query/parse/session_zone.h): calendar functions read wall_clock,
  // text and dates become instants through timestamp_in_zone. Both take any argument type,
  // since the parser writes them before types are known.
  add({"wall_clock", "wall_clock(timestamp | date | any, zone) -> timestamp | same type",
       "A timestamp's wall-clock time in the zone (at_timezone's), a date's midnight as a "
       "timestamp; any other value as it is.",
       [](const Types& t) -> absl::StatusOr<DataType> {
         if (t.size() != 2 || !Accepts(P::kVarchar, t[1])) {
           return WrongArguments("wall_clock(value, varchar)");
         }
         return t[0] == DataType::kDate ? kTs : t[0];
       },
       [](const Args& a, const EvalContext& c) {
         if (a[0].type == DataType::kDate) return Datum::Timestamp(MidnightOf(a[0].i));
         if (a[0].type != kTs) return a[0];
         return WallClockIn("wall_clock", a[1].s, a[0].i, c);
       }});
  scalars->back().eval_batch = [](const std::vector<Vector>& a, Vector* out) {
    if (a[0].type != kTs) return false;
    std::optional<std::string_view> name;
    for (size_t i = 0; i < out->size(); ++i) {
      if (a[1].nulls[i]) continue;
      if (name.has_value() && a[1].strings[i] != *name) return false;
      name = a[1].strings[i];
    }
    if (!name.has_value()) return true;  // every zone NULL
    const absl::TimeZone* zone = FindZone(*name);
    if (zone == nullptr) return false;  // eval says so
    ZoneOffsets offsets(*zone);
    for (size_t i = 0; i < out->size(); ++i) {
      if (a[0].nulls[i] || a[1].nulls[i]) continue;
      const int64_t ns = a[0].ints[i];
      const std::optional<int64_t> local = CheckedIntegerOp('+', ns, offsets.At(ns));
      if (!local) return false;
      out->ints[i] = *local;
      out->nulls[i] = 0;
    }
    return true;
  };
  add({"from_wall_clock", "from_wall_clock(timestamp, zone) -> timestamp",
       "wall_clock's inverse, as with_timezone but as PostgreSQL reads a time that a change back "
       "from summer time repeats: the later, in standard time.",
       Fixed({P::kTimestamp, P::kVarchar}, kTs, "from_wall_clock(timestamp, varchar)"),
       [](const Args& a, const EvalContext& c) {
         const absl::TimeZone* zone = FindZone(a[1].s);
         if (zone == nullptr) return UnknownZone("from_wall_clock", a[1].s, c);
         const std::optional<int64_t> out = InstantOfWallClock(a[0].i, *zone, RepeatedTime::kLater);
         if (!out) return OutOfRange("from_wall_clock", c);
         return Datum::Timestamp(*out);
       }});
  add({"timestamp_in_zone", "timestamp_in_zone(varchar | date | timestamp, zone) -> timestamp",
       "CAST(x AS timestamp) with the zone for what names none: text without an offset is a "
       "wall-clock time there ('2024-03-01 10:00' in 'Europe/Berlin' is 09:00 UTC; "
       "'2024-03-01T10:00Z' is 10:00 UTC), a date its midnight there (a repeated time the "
       "later, as from_wall_clock).",
       [](const Types& t) -> absl::StatusOr<DataType> {
         if (t.size() != 2 || !Accepts(P::kVarchar, t[1]) ||
             !(t[0] == DataType::kVarchar || t[0] == DataType::kDate || t[0] == kTs ||
               t[0] == DataType::kUnknown)) {
           return WrongArguments("timestamp_in_zone(varchar | date | timestamp, varchar)");
         }
         return kTs;
       },
       [](const Args& a, const EvalContext& c) {
         if (a[0].type == kTs) return a[0];
         const absl::TimeZone* zone = FindZone(a[1].s);
         if (zone == nullptr) return UnknownZone("timestamp_in_zone", a[1].s, c);
         int64_t wall = 0;
         if (a[0].type == DataType::kDate) {
           wall = MidnightOf(a[0].i);
         } else {
           const std::optional<int64_t> parsed = ParseTimestamp(a[0].s);
           if (!parsed) {
             return FailQuery(c,
                              StrCat("'", EchoInput(a[0].s),
                                     "' is not a timestamp; write '2023-05-17 20:54:39' or "
                                     "'2023-05-17T20:54:39Z'"),
                              kTs);
           }
           if (NamesItsZone(a[0].s)) return Datum::Timestamp(*parsed);
           wall = *parsed;
         }
         const std::optional<int64_t> out = InstantOfWallClock(wall, *zone, RepeatedTime::kLater);
         if (!out) return OutOfRange("timestamp_in_zone", c);
         return Datum::Timestamp(*out);
       }});

  add({"make_date", "make_date(year, month, day) -> date",
       "The date of the fields (PostgreSQL's): make_date(2024, 2, 29) is 2024-02-29; a day the "
       "month has not is an error.",
       Fixed({P::kBigint, P::kBigint, P::kBigint}, DataType::kDate,
             "make_date(bigint, bigint, bigint)"),
       [](const Args& a, const EvalContext& c) {
         int64_t fraction = 0;
         std::string why;
         const std::optional<absl::CivilSecond> civil = CivilFields(a, &fraction, &why);
         if (!civil) return FailQuery(c, StrCat("make_date(): ", why), DataType::kDate);
         // A date is a day whose midnight is a timestamp (as every date's text is written).
         if (!InstantOf(*civil, 0, absl::UTCTimeZone())) {
           return FailQuery(c,
                            "make_date(): the date is outside the range of dates (1677-09-22 to "
                            "2262-04-11)",
                            DataType::kDate);
         }
         return Datum::Date(absl::CivilDay(*civil) - absl::CivilDay(1970, 1, 1));
       }});
  add({"make_time", "make_time(hour, minute, seconds) -> time",
       "The time of day of the fields (PostgreSQL's); the seconds may have a fraction: "
       "make_time(12, 30, 15.5) is 12:30:15.5.",
       Fixed({P::kBigint, P::kBigint, P::kNumeric}, DataType::kTime,
             "make_time(bigint, bigint, double)"),
       [](const Args& a, const EvalContext& c) {
         const int64_t hour = a[0].i, minute = a[1].i;
         const double second = a[2].AsDouble();
         const std::string why = TimeOfDayProblem(hour, minute, second);
         if (!why.empty()) return FailQuery(c, StrCat("make_time(): ", why), DataType::kTime);
         const int64_t nanos = (hour * 3600 + minute * 60) * kNanosPerSecond +
                               std::llround(second * static_cast<double>(kNanosPerSecond));
         return Datum::Time(std::min(nanos, 24 * 3600 * kNanosPerSecond - 1));
       }});
  add({"make_timestamp", "make_timestamp(year, month, day, hour, minute, seconds) -> timestamp",
       "The timestamp of the fields in UTC (PostgreSQL's); the seconds may have a fraction: "
       "make_timestamp(2024, 3, 10, 12, 30, 15.5).",
       Fixed({P::kBigint, P::kBigint, P::kBigint, P::kBigint, P::kBigint, P::kNumeric}, kTs,
             "make_timestamp(bigint, bigint, bigint, bigint, bigint, double)"),
       [](const Args& a, const EvalContext& c) {
         int64_t fraction = 0;
         std::string why;
         const std::optional<absl::CivilSecond> civil = CivilFields(a, &fraction, &why);
         if (!civil) return FailQuery(c, StrCat("make_timestamp(): ", why), kTs);
         const std::optional<int64_t> out = InstantOf(*civil, fraction, absl::UTCTimeZone());
         if (!out) return OutOfRange("make_timestamp", c);
         return Datum::Timestamp(*out);
       }});
  add({"make_timestamptz",
       "make_timestamptz(year, month, day, hour, minute, seconds [, zone]) -> timestamp",
       "The instant the fields are as a wall-clock time in the zone (UTC without one), as "
       "with_timezone(make_timestamp(...), zone).",
       Fixed({P::kBigint, P::kBigint, P::kBigint, P::kBigint, P::kBigint, P::kNumeric, P::kVarchar},
             kTs, "make_timestamptz(bigint, bigint, bigint, bigint, bigint, double [, varchar])",
             1),
       [](const Args& a, const EvalContext& c) {
         const absl::TimeZone utc = absl::UTCTimeZone();
         const absl::TimeZone* zone = a.size() > 6 ? FindZone(a[6].s) : &utc;
         if (zone == nullptr) return UnknownZone("make_timestamptz", a[6].s, c);
         int64_t fraction = 0;
         std::string why;
         const std::optional<absl::CivilSecond> civil = CivilFields(a, &fraction, &why);
         if (!civil) return FailQuery(c, StrCat("make_timestamptz(): ", why), kTs);
         const std::optional<int64_t> out = InstantOf(*civil, fraction, *zone);
         if (!out) return OutOfRange("make_timestamptz", c);
         return Datum::Timestamp(*out);
       }});
}

}  // namespace strata::query
