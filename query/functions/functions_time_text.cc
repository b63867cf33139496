// Time as text and numbers (Timestream's reference, PostgreSQL's
// to_timestamp): seconds since the epoch, patterns both ways
// (query/base/datetime_text.h), durations, and the extraction fields the basic
// list in functions.cc lacks.
#include <cmath>

#include "common/clock.h"
#include "common/strings.h"
#include "common/time_format.h"
#include "common/utf8.h"
#include "query/base/checked_math.h"
#include "query/base/datetime_text.h"
#include "query/base/interval_text.h"
#include "query/functions/function_families.h"
#include "query/functions/number_template.h"

namespace strata::query {
namespace {

using Types = std::vector<DataType>;
using Args = std::vector<Datum>;
using P = Param;

// Seconds since the epoch (with a fraction) as a timestamp, or the error.
Datum FromUnixSeconds(std::string_view function, double seconds, const EvalContext& c) {
  // Whole seconds and the fraction apart: seconds * 1e9 as one double
  // loses the nanoseconds (1709290810.25 became .249999872).
  const double whole = std::floor(seconds);
  std::optional<int64_t> nanos;
  if (whole > -9.3e9 && whole < 9.3e9) {
    nanos = CheckedIntegerOp('*', static_cast<int64_t>(whole), kNanosPerSecond);
    if (nanos) {
      nanos = CheckedIntegerOp('+', *nanos, static_cast<int64_t>(std::round((seconds - whole) * 1e9)));
    }
  }
  if (!nanos) {
    return FailQuery(c, StrCat(function, "(): ", seconds, " seconds since the epoch is outside the "
                               "range of timestamps (1677-09-21 to 2262-04-11)"), kTs);
  }
  return Datum::Timestamp(*nanos);
}

// The text of a time pattern function's failure.
Datum PatternFailure(std::string_view function, const absl::Status& status, DataType type,
                     const EvalContext& c) {
  return FailQuery(c, StrCat(function, "(): ", status.message()), type);
}

// '42.8ms', '3.81 d', '5m' as nanoseconds: a decimal number, optional
// spaces, a unit of Timestream's interval literals.
std::optional<int64_t> ParseDuration(std::string_view text) {
  size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) ++i;
  const std::string number(text.substr(0, i));
  while (i < text.size() && text[i] == ' ') ++i;
  const std::string_view unit = text.substr(i);
  if (number.empty() || number == "." || std::count(number.begin(), number.end(), '.') > 1) {
    return std::nullopt;
  }
  const int64_t per = DurationUnitNanos(unit);
  if (per == 0) return std::nullopt;
  const double nanos = std::round(std::strtod(number.c_str(), nullptr) * static_cast<double>(per));
  if (!(nanos < 9.223372036854775808e18)) return std::nullopt;
  return static_cast<int64_t>(nanos);
}

std::string HumanReadableSeconds(int64_t seconds) {
  static constexpr std::pair<int64_t, const char*> kUnits[] = {
      {7 * 86'400, "week"}, {86'400, "day"}, {3600, "hour"}, {60, "minute"}, {1, "second"}};
  if (seconds == 0) return "0 seconds";
  std::string out;
  for (const auto& [length, name] : kUnits) {
    const int64_t n = seconds / length;
    if (n == 0) continue;
    seconds -= n * length;
    if (!out.empty()) out += ", ";
    out += StrCat(n, " ", name, n == 1 ? "" : "s");
  }
  return out;
}

}  // namespace

void AddTimeTextFunctions(std::vector<ScalarFunction>* scalars) {
  auto add = CanFailAdder(scalars);

  add({"from_unixtime", "from_unixtime(double) -> timestamp",
       "Seconds since the epoch (with a fraction) to a timestamp.",
       Fixed({P::kNumeric}, kTs, "from_unixtime(double)"), [](const Args& a, const EvalContext& c) {
         return FromUnixSeconds("from_unixtime", a[0].AsDouble(), c);
       }});
  add({"to_timestamp", "to_timestamp(double | varchar, template) -> timestamp",
       "Seconds since the epoch to a timestamp (PostgreSQL's name for from_unixtime), or the "
       "timestamp a text writes by a PostgreSQL template: to_timestamp('05 Dec 2024 14:30', "
       "'DD Mon YYYY HH24:MI'). An offset read by TZH and TZM converts to UTC.",
       [](const Types& t) -> absl::StatusOr<DataType> {
         if ((t.size() == 1 && Accepts(P::kNumeric, t[0])) ||
             (t.size() == 2 && Accepts(P::kVarchar, t[0]) && Accepts(P::kVarchar, t[1]))) {
           return kTs;
         }
         return WrongArguments("to_timestamp(double) or to_timestamp(varchar, varchar)");
       },
       [](const Args& a, const EvalContext& c) {
         if (a.size() == 1) return FromUnixSeconds("to_timestamp", a[0].AsDouble(), c);
         absl::StatusOr<int64_t> nanos =
             ParseTimestampPattern(a[0].s, a[1].s, PatternLanguage::kPostgres);
         if (!nanos.ok()) return PatternFailure("to_timestamp", nanos.status(), kTs, c);
         return Datum::Timestamp(*nanos);
       }});
  add({"to_date", "to_date(varchar, template) -> date",
       "The date a text writes by a PostgreSQL template (as to_timestamp reads it, the time of "
       "day dropped): to_date('2024-12-05', 'YYYY-MM-DD').",
       Fixed({P::kVarchar, P::kVarchar}, DataType::kDate, "to_date(varchar, varchar)"),
       [](const Args& a, const EvalContext& c) {
         absl::StatusOr<int64_t> nanos =
             ParseTimestampPattern(a[0].s, a[1].s, PatternLanguage::kPostgres);
         if (!nanos.ok()) return PatternFailure("to_date", nanos.status(), DataType::kDate, c);
         return Datum::Date(FloorDiv(*nanos, kNanosPerDay));
       }});
  for (auto [name, language, what] :
       {std::tuple{"date_format", PatternLanguage::kMysql, "MySQL specifiers: '%Y-%m-%d %H:%i:%s'"},
        std::tuple{"format_datetime", PatternLanguage::kJoda,
                   "Joda-Time letters: 'yyyy-MM-dd HH:mm:ss.SSS'"},
        std::tuple{"to_char", PatternLanguage::kPostgres,
                   "PostgreSQL's templates: 'YYYY-MM-DD HH24:MI:SS.MS', 'FMDay, DDth FMMonth "
                   "YYYY'; Month and Day are blank-padded to nine letters unless FM"}}) {
    // PostgreSQL's to_char also writes numbers, by its numeric templates.
    const bool numbers = std::string_view(name) == "to_char";
    add({name,
         StrCat(name, numbers ? "(timestamp | number, pattern) -> varchar"
                              : "(timestamp, pattern) -> varchar"),
         StrCat("The timestamp as text by the pattern (", what, ")",
                numbers ? "; a number by PostgreSQL's numeric templates: 9 (a digit, blank when "
                          "a leading zero), 0 (a digit), . or D, , or G, FM (no padding), S, MI, "
                          "PL, SG, PR (signs), EEEE: to_char(1234.5, 'FM9,999.00') is '1,234.50'"
                        : "",
                "."),
         [n = std::string(name), numbers](const Types& t) -> absl::StatusOr<DataType> {
           const bool number = numbers && t.size() == 2 && (t[0] == kBig || t[0] == kDbl);
           if (number && Accepts(P::kVarchar, t[1])) return kStr;
           return Fixed(
               {P::kTimestamp, P::kVarchar}, kStr,
               StrCat(n, numbers ? "(timestamp | number, varchar)" : "(timestamp, varchar)"))(t);
         },
         [n = std::string(name), l = language](const Args& a, const EvalContext& c) {
           if (a[0].type == kBig || a[0].type == kDbl) {
             absl::StatusOr<std::string> text = a[0].type == kBig
                                                    ? FormatNumberTemplate(a[0].i, a[1].s)
                                                    : FormatNumberTemplate(a[0].d, a[1].s);
             if (!text.ok()) return PatternFailure(n, text.status(), kStr, c);
             return Datum::Varchar(*std::move(text));
           }
           absl::StatusOr<std::string> text = FormatTimestampPattern(a[0].i, a[1].s, l);
           if (!text.ok()) return PatternFailure(n, text.status(), kStr, c);
           if (text->size() > kMaxTextBytes) {
             return FailQuery(c, TextTooLongMessage(n + "()"), kStr);
           }
           return Datum::Varchar(*std::move(text));
         }});
  }
  add({"to_number", "to_number(varchar, template) -> double",
       "The number a text writes by a PostgreSQL numeric template, as to_char writes one: "
       "to_number('12,454.8-', '99G999D9S') is -12454.8. Each digit position reads one "
       "character (a non-digit there is passed over), so to_number('1,234', '9999') is 123.",
       Fixed({P::kVarchar, P::kVarchar}, kDbl, "to_number(varchar, varchar)"),
       [](const Args& a, const EvalContext& c) {
         absl::StatusOr<double> number = ReadNumberTemplate(a[0].s, a[1].s);
         if (!number.ok()) return PatternFailure("to_number", number.status(), kDbl, c);
         return Datum::Double(*number);
       }});
  for (auto [name, language, what] :
       {std::tuple{"date_parse", PatternLanguage::kMysql, "MySQL specifiers, as date_format"},
        std::tuple{"parse_datetime", PatternLanguage::kJoda,
                   "Joda-Time letters, as format_datetime; an offset converts to UTC"}}) {
    add({name, StrCat(name, "(varchar, pattern) -> timestamp"),
         StrCat("The timestamp a text writes by the pattern (", what, ")."),
         Fixed({P::kVarchar, P::kVarchar}, kTs, StrCat(name, "(varchar, varchar)")),
         [n = std::string(name), l = language](const Args& a, const EvalContext& c) {
           absl::StatusOr<int64_t> nanos = ParseTimestampPattern(a[0].s, a[1].s, l);
           if (!nanos.ok()) return PatternFailure(n, nanos.status(), kTs, c);
           return Datum::Timestamp(*nanos);
         }});
  }
  add({"parse_duration", "parse_duration(varchar) -> interval",
       "A duration text such as '42.8ms', '3.81 d' or '5m' (units ns us ms s m h d) as an interval.",
       Fixed({P::kVarchar}, DataType::kInterval, "parse_duration(varchar)"),
       [](const Args& a, const EvalContext& c) {
         std::optional<int64_t> nanos = ParseDuration(a[0].s);
         if (nanos) return Datum::Interval(*nanos);
         return FailQuery(c, StrCat("parse_duration(): '", EchoInput(a[0].s),
                                    "' is not a duration; write a number and a unit, as '1.5h' "
                                    "or '250 ms'"), DataType::kInterval);
       }});
  add({"human_readable_seconds", "human_readable_seconds(double) -> varchar",
       "Seconds (rounded) in weeks, days, hours, minutes and seconds: '1 minute, 36 seconds'.",
       Fixed({P::kNumeric}, kStr, "human_readable_seconds(double)"),
       [](const Args& a, const EvalContext& c) {
         const double seconds = std::round(a[0].AsDouble());
         if (!(seconds >= 0 && seconds < 9.2e18)) {
           return FailQuery(c, StrCat("human_readable_seconds(): ", a[0].AsDouble(),
                                      " is not a number of seconds from 0 up"), kStr);
         }
         return Datum::Varchar(HumanReadableSeconds(static_cast<int64_t>(seconds)));
       }});
  add({"current_timezone", "current_timezone() -> varchar",
       "The session's time zone: UTC, or a PostgreSQL session's SET TIME ZONE.",
       Fixed({}, kStr, "current_timezone()"),
       [](const Args&, const EvalContext&) { return Datum::Varchar("UTC"); }});
  scalars->back().can_fail = false;
  add({"nanosecond", "nanosecond(timestamp | time) -> bigint",
       "The nanoseconds within the second (0 to 999999999).",
       [](const Types& t) -> absl::StatusOr<DataType> {
         if (t.size() != 1 || !(Accepts(P::kTimestamp, t[0]) || t[0] == DataType::kTime)) {
           return WrongArguments("nanosecond(timestamp | time)");
         }
         return kBig;
       },
       [](const Args& a, const EvalContext&) { return Datum::Bigint(SubsecondNanos(a[0].i)); }});
  scalars->back().can_fail = false;
  for (std::string name : {"year_of_week", "yow"}) {
    add({name, StrCat(name, "(timestamp) -> bigint"),
         "The ISO week-numbering year (the year of week(t), which can differ near New Year).",
         Fixed({P::kTimestamp}, kBig, StrCat(name, "(timestamp)")),
         [](const Args& a, const EvalContext&) {
           const std::tm tm = ToUtcTm(a[0].i);
           char year[16];
           std::strftime(year, sizeof(year), "%G", &tm);
           return Datum::Bigint(std::atoll(year));
         }});
    scalars->back().can_fail = false;
  }
}

}  // namespace strata::query
