#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <ctime>
#include <map>
#include <optional>
#include <set>
#include <type_traits>

#include "absl/container/flat_hash_set.h"
#include "common/clock.h"
#include "common/strings.h"
#include "common/time_format.h"
#include "common/utf8.h"
#include "query/base/calendar.h"
#include "query/base/checked_math.h"
#include "query/base/interval_text.h"
#include "query/base/regex_cache.h"
#include "query/base/time_zone.h"
#include "query/functions/function_families.h"
#include "query/functions/functions.h"

namespace strata::query {

absl::Status WrongArguments(std::string_view signature) {
  return absl::InvalidArgumentError(StrCat("wrong arguments; expected ", signature));
}

// The common type of several arguments (greatest, least, coalesce).
absl::StatusOr<DataType> CommonElementType(const std::vector<DataType>& types, std::string_view signature) {
  DataType common = DataType::kUnknown;
  for (DataType t : types) {
    if (t == DataType::kUnknown) continue;
    if (common == DataType::kUnknown || common == t) {
      common = t;
    } else if (IsNumeric(common) && IsNumeric(t)) {
      common = DataType::kDouble;
    } else {
      return WrongArguments(signature);
    }
  }
  if (types.empty()) return WrongArguments(signature);
  return common;
}

Datum CoerceTo(const Datum& d, DataType to) {
  if (d.null || d.type == to) return d.null ? Datum::Null(to) : d;
  if (to == DataType::kDouble && IsNumeric(d.type)) return Datum::Double(d.AsDouble());
  return d;
}

Datum CallScalar(const ScalarFunction& f, const std::vector<Datum>& args, DataType result,
                 const EvalContext& context) {
  Datum out = f.eval_typed ? f.eval_typed(args, result, context) : f.eval(args, context);
  if (out.null || IsComposite(result)) out.type = result;
  // replace, lpad, concat... nested: each may copy up to 16 MiB.
  if (!context.KeepGoingAfterText(out.s.size())) return Datum::Null(result);
  return out;
}

Datum FailQuery(const EvalContext& context, std::string message, DataType type) {
  if (context.error.empty()) context.error = std::move(message);
  return Datum::Null(type);
}

Datum FailStartBeforeFirst(const EvalContext& context, std::string_view function, int64_t start,
                           DataType type) {
  return FailQuery(context,
                   StrCat(function, "(): the start ", start,
                          " is before the first character; count positions from 1"),
                   type);
}

std::string TextTooLongMessage(std::string_view what) {
  return StrCat(what, " would make a text of more than ", kMaxTextBytes >> 20,
                " MiB, the most a query computes");
}

std::string EvalContext::TooManyValueBytesMessage() const {
  return StrCat("the rows being computed would hold more than ", max_value_bytes >> 20,
                " MiB of long texts or arrays at once (the query's memory limit, "
                "--query-memory-mb); compute shorter values, or fewer of them per row");
}

bool ArrayBytes::Add(const Datum& element) {
  bytes_ += static_cast<int64_t>(sizeof(Datum)) + element.HeapBytes();
  if (bytes_ <= context_.max_value_bytes) return true;
  FailQuery(context_,
            StrCat(what_, " would make an array of more than ", context_.max_value_bytes >> 20,
                   " MiB, the most one value may hold (the query's memory limit, "
                   "--query-memory-mb)"),
            DataType::kUnknown);
  return false;
}

absl::StatusOr<DataType> Interned(std::optional<DataType> type) {
  if (!type) return absl::ResourceExhaustedError(TooManyTypesMessage());
  return *type;
}

bool Accepts(Param p, DataType t) {
  if (t == DataType::kUnknown) return true;  // NULL fits anywhere
  switch (p) {
    case Param::kAny: return true;
    case Param::kNumeric: return IsNumeric(t);
    case Param::kBigint: return t == DataType::kBigint;
    case Param::kDouble: return IsNumeric(t);
    case Param::kVarchar: return t == DataType::kVarchar;
    case Param::kBoolean: return t == DataType::kBoolean;
    case Param::kTimestamp: return t == DataType::kTimestamp;
    case Param::kInterval: return t == DataType::kInterval;
  }
  return false;
}

std::function<absl::StatusOr<DataType>(const std::vector<DataType>&)> Fixed(
    std::vector<Param> params, DataType result, std::string signature, size_t optional) {
  return [params, result, signature, optional](
             const std::vector<DataType>& types) -> absl::StatusOr<DataType> {
    if (types.size() > params.size() || types.size() + optional < params.size()) {
      return WrongArguments(signature);
    }
    for (size_t i = 0; i < types.size(); ++i) {
      if (!Accepts(params[i], types[i])) return WrongArguments(signature);
    }
    return result;
  };
}

absl::StatusOr<DataType> SameNumeric(const std::vector<DataType>& types, std::string_view signature) {
  if (types.size() != 1 || !Accepts(Param::kNumeric, types[0])) return WrongArguments(signature);
  return types[0] == DataType::kUnknown ? DataType::kDouble : types[0];
}

namespace {

using Types = std::vector<DataType>;
using Args = std::vector<Datum>;
constexpr int64_t kDay = kNanosPerDay;


// The start of the bin of width `width` (> 0) holding `t`; nullopt when that
// start is before the earliest representable time (NULL, as bin(t, 0)).
std::optional<int64_t> BinStart(int64_t t, int64_t width) {
  return CheckedIntegerOp('*', FloorDiv(t, width), width);
}

// time_bucket's and date_bin's width: an interval's nanoseconds, or its text's ('5 minutes',
// Grafana's '300.000s'); a query error naming `name` for a text that is none or a width that is
// not positive.
absl::StatusOr<int64_t> BucketWidth(std::string_view name, const Datum& width) {
  int64_t nanos = width.i;
  if (width.type == DataType::kVarchar) {
    absl::StatusOr<IntervalText> text = ParseIntervalText(width.s);
    if (!text.ok())
      return absl::InvalidArgumentError(StrCat(name, "(): ", text.status().message()));
    if (text->months != 0) {
      return absl::InvalidArgumentError(StrCat(name,
                                               "(): a width of months or years has no "
                                               "fixed length; use date_trunc('month', time)"));
    }
    nanos = text->nanos;
  }
  if (nanos <= 0) return absl::InvalidArgumentError(StrCat(name, "(): the width must be positive"));
  return nanos;
}

// The start of the bucket of `width` holding `t`, buckets counted from `origin`; nullopt
// outside the range of timestamps.
std::optional<int64_t> BucketStart(int64_t t, int64_t width, int64_t origin) {
  const std::optional<int64_t> since = CheckedIntegerOp('-', t, origin);
  const std::optional<int64_t> start = since ? BinStart(*since, width) : std::nullopt;
  return start ? CheckedIntegerOp('+', *start, origin) : std::nullopt;
}

constexpr int64_t kMonday2000 = 946'857'600'000'000'000;  // 2000-01-03T00:00:00Z

// `value` as a timestamp, or NULL with the query error `message()` recorded.
template <typename Message>
Datum CheckedTimestamp(std::optional<int64_t> value, const EvalContext& context,
                       Message message) {
  if (value) return Datum::Timestamp(*value);
  if (context.error.empty()) context.error = message();
  return Datum::Null(DataType::kTimestamp);
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Calendar arithmetic: a value; nullopt for a unit it does not know (the
// SQL result is NULL); OUT_OF_RANGE when the result is not a representable
// timestamp (the query fails: a wrapped value would be silently wrong).
using CalendarResult = absl::StatusOr<std::optional<int64_t>>;

absl::Status OutsideTimestampRange(std::string_view function) {
  return absl::OutOfRangeError(
      StrCat(function, "(): the result is outside the range of timestamps (1677-09-21 to "
                       "2262-04-11)"));
}

// `seconds` since the epoch plus `sub` nanoseconds, if representable.
std::optional<int64_t> SecondsToNanos(int64_t seconds, int64_t sub) {
  std::optional<int64_t> nanos = CheckedIntegerOp('*', seconds, kNanosPerSecond);
  return nanos ? CheckedIntegerOp('+', *nanos, sub) : std::nullopt;
}

// The length of a unit date_trunc truncates to by division (millisecond to day; `unit` in
// lower case); nullopt for the calendar's units (week, month, quarter, year) and unknown ones.
std::optional<int64_t> TruncationNanos(const std::string& unit) {
  static const std::map<std::string, int64_t> kFixed = {{"millisecond", 1'000'000},
                                                        {"second", kNanosPerSecond},
                                                        {"minute", 60 * kNanosPerSecond},
                                                        {"hour", 3600 * kNanosPerSecond},
                                                        {"day", kDay}};
  auto it = kFixed.find(unit);
  return it == kFixed.end() ? std::nullopt : std::optional<int64_t>(it->second);
}

// `ns` down to a multiple of `length` since the epoch; nullopt past the timestamps' range.
std::optional<int64_t> TruncateBy(int64_t ns, int64_t length) {
  return CheckedIntegerOp('*', FloorDiv(ns, length), length);
}

// A unit no calendar function knows: an error, as Presto's, rather than a NULL on every row
// that hides a misspelt 'hours'.
absl::Status NotATimeUnit(std::string_view function, std::string_view unit,
                          std::string_view units) {
  return absl::InvalidArgumentError(
      StrCat(function, "(): '", unit, "' is not a unit of time; use ", units));
}
constexpr std::string_view kTruncationUnits =
    "'millisecond', 'second', 'minute', 'hour', 'day', 'week', 'month', 'quarter' or 'year'";
constexpr std::string_view kArithmeticUnits =
    "'nanosecond', 'microsecond', 'millisecond', 'second', 'minute', 'hour', 'day', 'week', "
    "'month', 'quarter' or 'year'";

// date_trunc(unit, ns, zone), PostgreSQL's: truncated on the zone's wall clock. A unit below a
// day keeps the instant's own offset (the first 02:00 of a night that repeats it stays the
// first); a day or more is the wall clock's instant, a repeated one the later (PostgreSQL's
// rule for a day that begins inside a change).
CalendarResult TruncateInZone(const std::string& unit, int64_t ns, const absl::TimeZone& zone);
// The same, `lower_unit` in lower case and `offset` the zone's at `ns` (nanoseconds).
CalendarResult TruncateInZone(const std::string& lower_unit, int64_t ns, int64_t offset,
                              const absl::TimeZone& zone);

CalendarResult Truncate(std::string unit, int64_t ns) {
  unit = Lower(unit);
  std::optional<int64_t> out;
  if (const std::optional<int64_t> length = TruncationNanos(unit)) {
    out = TruncateBy(ns, *length);
  } else {
    std::tm tm = ToUtcTm(ns);
    tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
    if (unit == "week") {
      int days_since_monday = (tm.tm_wday + 6) % 7;
      out = SecondsToNanos(static_cast<int64_t>(timegm(&tm)) - days_since_monday * 86'400, 0);
    } else {
      tm.tm_mday = 1;
      if (unit == "quarter") tm.tm_mon = tm.tm_mon / 3 * 3;
      if (unit == "year") tm.tm_mon = 0;
      if (unit != "month" && unit != "quarter" && unit != "year") {
        return NotATimeUnit("date_trunc", unit, kTruncationUnits);
      }
      out = SecondsToNanos(static_cast<int64_t>(timegm(&tm)), 0);
    }
  }
  if (!out) return OutsideTimestampRange("date_trunc");
  return out;
}

CalendarResult TruncateInZone(const std::string& unit, int64_t ns, const absl::TimeZone& zone) {
  ZoneOffsets offsets(zone);
  return TruncateInZone(Lower(unit), ns, offsets.At(ns), zone);
}

CalendarResult TruncateInZone(const std::string& lower_unit, int64_t ns, int64_t offset,
                              const absl::TimeZone& zone) {
  const std::optional<int64_t> wall = CheckedIntegerOp('+', ns, offset);
  if (!wall) return OutsideTimestampRange("date_trunc");
  const std::optional<int64_t> length = TruncationNanos(lower_unit);
  if (length && *length < kDay) {  // the instant's own offset
    std::optional<int64_t> start = TruncateBy(*wall, *length);
    if (start) start = CheckedIntegerOp('-', *start, offset);
    if (!start) return OutsideTimestampRange("date_trunc");
    return start;
  }
  CalendarResult truncated = Truncate(lower_unit, *wall);
  if (!truncated.ok() || !*truncated) return truncated;
  const std::optional<int64_t> out = InstantOfWallClock(**truncated, zone, RepeatedTime::kLater);
  if (!out) return OutsideTimestampRange("date_trunc");
  return out;
}

// The same unit and zone for the whole batch (the session's zone, a literal): date_trunc of a
// zone over a vector; false for anything else (eval then makes each row and any error).
bool TruncateBatchInZone(const std::vector<Vector>& a, Vector* out) {
  std::optional<std::string_view> unit, name;
  for (size_t i = 0; i < out->size(); ++i) {
    if (a[0].nulls[i] || a[2].nulls[i]) continue;
    if ((unit.has_value() && a[0].strings[i] != *unit) ||
        (name.has_value() && a[2].strings[i] != *name)) {
      return false;
    }
    unit = a[0].strings[i];
    name = a[2].strings[i];
  }
  if (!unit.has_value()) return true;  // every row NULL
  const absl::TimeZone* zone = FindZone(*name);
  if (zone == nullptr) return false;
  const std::string u = Lower(std::string(*unit));
  ZoneOffsets offsets(*zone);
  // Rows of one local day (month, ...) truncate alike: the last wall clock's answer is kept.
  int64_t last_wall = 0, last_start = 0;
  bool have_last = false;
  const bool below_a_day = TruncationNanos(u).value_or(kDay) < kDay;
  for (size_t i = 0; i < out->size(); ++i) {
    if (a[0].nulls[i] || a[1].nulls[i] || a[2].nulls[i]) continue;
    const int64_t ns = a[1].ints[i];
    const int64_t offset = offsets.At(ns);
    CalendarResult start;
    if (below_a_day) {
      start = TruncateInZone(u, ns, offset, *zone);
    } else {
      // A day or more: the wall clock's instant, looked up once per day the rows share.
      const std::optional<int64_t> wall = CheckedIntegerOp('+', ns, offset);
      if (!wall) return false;
      const CalendarResult wall_start = Truncate(u, *wall);
      if (!wall_start.ok() || !*wall_start) return false;
      if (!have_last || **wall_start != last_wall) {
        const std::optional<int64_t> instant =
            InstantOfWallClock(**wall_start, *zone, RepeatedTime::kLater);
        if (!instant) return false;
        last_wall = **wall_start, last_start = *instant, have_last = true;
      }
      start = std::optional<int64_t>(last_start);
    }
    if (!start.ok() || !*start) return false;
    out->ints[i] = **start;
    out->nulls[i] = 0;
  }
  return true;
}

// The length of a unit of date_add and date_diff that has one (nanosecond
// to week); nullopt for the calendar's units and unknown ones.
std::optional<int64_t> FixedUnitNanos(const std::string& unit) {
  static const std::map<std::string, int64_t> kFixed = {{"nanosecond", 1},
                                                        {"microsecond", 1'000},
                                                        {"millisecond", 1'000'000},
                                                        {"second", kNanosPerSecond},
                                                        {"minute", 60 * kNanosPerSecond},
                                                        {"hour", 3600 * kNanosPerSecond},
                                                        {"day", kDay},
                                                        {"week", 7 * kDay}};
  auto it = kFixed.find(unit);
  return it == kFixed.end() ? std::nullopt : std::optional<int64_t>(it->second);
}

// Months in a calendar unit (month, quarter, year); 0 for any other.
int64_t MonthsPerUnit(std::string_view unit) {
  return unit == "month" ? 1 : unit == "quarter" ? 3 : unit == "year" ? 12 : 0;
}

CalendarResult AddUnits(std::string unit, int64_t n, int64_t ns) {
  unit = Lower(unit);
  if (const std::optional<int64_t> length = FixedUnitNanos(unit)) {
    std::optional<int64_t> step = CheckedIntegerOp('*', n, *length);
    std::optional<int64_t> out = step ? CheckedIntegerOp('+', ns, *step) : std::nullopt;
    if (!out) return OutsideTimestampRange("date_add");
    return out;
  }
  const int64_t per = MonthsPerUnit(unit);
  if (per == 0) return NotATimeUnit("date_add", unit, kArithmeticUnits);
  if (n > kMaxCalendarMonths / per || n < -kMaxCalendarMonths / per) {
    return OutsideTimestampRange("date_add");
  }
  std::optional<int64_t> out = AddMonths(ns, per * n);
  if (!out) return OutsideTimestampRange("date_add");
  return out;
}

CalendarResult DiffUnits(std::string unit, int64_t a, int64_t b) {
  unit = Lower(unit);
  if (const std::optional<int64_t> length = FixedUnitNanos(unit)) {
    std::optional<int64_t> span = CheckedIntegerOp('-', b, a);
    if (!span) {
      return absl::OutOfRangeError(
          "date_diff(): the span does not fit in 64 bits of nanoseconds; use a larger unit");
    }
    return *span / *length;
  }
  const int64_t per = MonthsPerUnit(unit);
  if (per == 0) return NotATimeUnit("date_diff", unit, kArithmeticUnits);
  std::tm ta = ToUtcTm(a), tb = ToUtcTm(b);
  int64_t months = (tb.tm_year - ta.tm_year) * 12LL + (tb.tm_mon - ta.tm_mon);
  // A month counts only once the day and time of month are reached.
  auto within = [](int64_t ns, const std::tm& tm) {
    return (tm.tm_mday - 1) * kDay + (ns - FloorDiv(ns, kDay) * kDay);
  };
  if (months > 0 && within(b, tb) < within(a, ta)) --months;
  if (months < 0 && within(b, tb) > within(a, ta)) ++months;
  return months / per;
}

// The SQL value of calendar arithmetic: NULL for an unknown unit, NULL and
// the query's error for a result out of range.
Datum CalendarDatum(const CalendarResult& result, DataType type, const EvalContext& context) {
  if (!result.ok()) {
    if (context.error.empty()) context.error = std::string(result.status().message());
    return Datum::Null(type);
  }
  if (!*result) return Datum::Null(type);
  Datum d = Datum::Bigint(**result);
  d.type = type;
  return d;
}

bool TimestampOrDate(DataType t) {
  return t == DataType::kTimestamp || t == DataType::kDate || t == DataType::kUnknown;
}

// A timestamp's nanoseconds, a date's midnight.
int64_t PointNanos(const Datum& d) { return d.type == DataType::kDate ? MidnightOf(d.i) : d.i; }

// Units that keep a date a date (Presto refuses the smaller ones for dates).
bool DateUnit(std::string unit) {
  unit = Lower(std::move(unit));
  return unit == "day" || unit == "week" || unit == "month" || unit == "quarter" || unit == "year";
}

Datum NotADateUnit(std::string_view function, std::string_view unit, const EvalContext& context) {
  return FailQuery(context,
                   StrCat(function, "(): '", unit, "' is not a unit of a date; use 'day', 'week', "
                          "'month', 'quarter' or 'year', or CAST the date to timestamp"),
                   DataType::kDate);
}

// Calendar arithmetic done at a date's midnight, back to a date; or on a timestamp.
Datum OnDateOrTimestamp(const CalendarResult& result, DataType type, const EvalContext& context) {
  Datum d = CalendarDatum(result, DataType::kTimestamp, context);
  if (type != DataType::kDate) return d;
  return d.null ? Datum::Null(DataType::kDate) : Datum::Date(DateOfTimestamp(d.i));
}

std::string ToIso8601(int64_t ns) {
  std::string text = FormatTimestamp(ns);
  text[10] = 'T';
  return text.substr(0, 23) + "Z";
}

Datum Field(std::string_view field, int64_t ns) {
  std::tm tm = ToUtcTm(ns);
  if (field == "year") return Datum::Bigint(tm.tm_year + 1900);
  if (field == "quarter") return Datum::Bigint(tm.tm_mon / 3 + 1);
  if (field == "month") return Datum::Bigint(tm.tm_mon + 1);
  if (field == "day" || field == "day_of_month") return Datum::Bigint(tm.tm_mday);
  if (field == "day_of_week" || field == "dow") return Datum::Bigint(tm.tm_wday == 0 ? 7 : tm.tm_wday);
  if (field == "day_of_year" || field == "doy") return Datum::Bigint(tm.tm_yday + 1);
  if (field == "hour") return Datum::Bigint(tm.tm_hour);
  if (field == "minute") return Datum::Bigint(tm.tm_min);
  if (field == "second") return Datum::Bigint(tm.tm_sec);
  if (field == "millisecond") {
    return Datum::Bigint((ns - FloorDiv(ns, kNanosPerSecond) * kNanosPerSecond) / 1'000'000);
  }
  if (field == "milliseconds") {
    constexpr int64_t kMinute = 60 * kNanosPerSecond;
    return Datum::Bigint((ns - FloorDiv(ns, kMinute) * kMinute) / 1'000'000);
  }
  if (field == "week" || field == "week_of_year") {
    char buf[8];
    std::strftime(buf, sizeof(buf), "%V", &tm);
    return Datum::Bigint(std::atoi(buf));
  }
  return Datum::Null(DataType::kBigint);
}

// The fields of a timestamp that arithmetic on its days and seconds gives (CivilFieldOf).
enum class CivilField {
  kYear,
  kQuarter,
  kMonth,
  kDay,
  kDayOfWeek,
  kDayOfYear,
  kHour,
  kMinute,
  kSecond
};

std::optional<CivilField> CivilFieldNamed(std::string_view field) {
  static const std::map<std::string_view, CivilField> kFields = {
      {"year", CivilField::kYear},        {"quarter", CivilField::kQuarter},
      {"month", CivilField::kMonth},      {"day", CivilField::kDay},
      {"day_of_month", CivilField::kDay}, {"day_of_week", CivilField::kDayOfWeek},
      {"dow", CivilField::kDayOfWeek},    {"day_of_year", CivilField::kDayOfYear},
      {"doy", CivilField::kDayOfYear},    {"hour", CivilField::kHour},
      {"minute", CivilField::kMinute},    {"second", CivilField::kSecond}};
  const auto it = kFields.find(field);
  return it == kFields.end() ? std::nullopt : std::optional(it->second);
}

// Field(field, ns) for the fields CivilFieldNamed knows, without a broken-down time: the civil
// date of the day number (CivilFromDays).
int64_t CivilFieldOf(CivilField field, int64_t ns) {
  const int64_t days = FloorDiv(ns, kDay);
  const int64_t of_day = (ns - days * kDay) / kNanosPerSecond;
  switch (field) {
    case CivilField::kHour:
      return of_day / 3600;
    case CivilField::kMinute:
      return of_day / 60 % 60;
    case CivilField::kSecond:
      return of_day % 60;
    case CivilField::kDayOfWeek: {
      const int64_t weekday = (days % 7 + 7 + 3) % 7;  // 1970-01-01 was a Thursday: Monday 0
      return weekday + 1;
    }
    default:
      break;
  }
  const CivilDate date = CivilFromDays(days);
  switch (field) {
    case CivilField::kYear:
      return date.year;
    case CivilField::kQuarter:
      return (date.month - 1) / 3 + 1;
    case CivilField::kMonth:
      return date.month;
    case CivilField::kDay:
      return date.day;
    case CivilField::kDayOfYear:
      return days - DaysFromCivil(date.year, 1, 1) + 1;
    default:
      return 0;
  }
}

bool IsInterval(DataType t) {
  return t == DataType::kInterval || t == DataType::kIntervalYearToMonth;
}

// A field of an interval, as Presto and PostgreSQL count them: the whole days of a duration
// and the hours, minutes, seconds and milliseconds left over; the whole years of months and
// the months left over. Each keeps the interval's sign.
Datum IntervalField(std::string_view field, const Datum& interval) {
  const int64_t v = interval.i;
  if (interval.type == DataType::kIntervalYearToMonth) {
    return Datum::Bigint(field == "year" ? v / 12 : v % 12);
  }
  constexpr int64_t kMinute = 60 * kNanosPerSecond, kHour = 60 * kMinute;
  if (field == "day") return Datum::Bigint(v / kNanosPerDay);
  if (field == "hour") return Datum::Bigint(v % kNanosPerDay / kHour);
  if (field == "minute") return Datum::Bigint(v % kHour / kMinute);
  if (field == "second") return Datum::Bigint(v % kMinute / kNanosPerSecond);
  if (field == "milliseconds") return Datum::Bigint(v % kMinute / 1'000'000);
  return Datum::Bigint(v % kNanosPerSecond / 1'000'000);
}

// --- aggregates ---------------------------------------------------------

}  // namespace

void Accumulator::AddRun(const std::vector<const Vector*>& args, size_t begin, size_t end) {
  Args values(args.size());
  for (size_t i = begin; i < end; ++i) {
    for (size_t k = 0; k < args.size(); ++k) values[k] = args[k]->Get(i);
    Add(values);
  }
}

// Unreachable: the planner offers statistics only to functions that declare
// a `stats_use`, and those override this.
void Accumulator::AddStats(const ColumnStats&) {}

namespace {

bool IsNumericVector(const Vector& v) {
  return v.type == DataType::kDouble || v.type == DataType::kBigint;
}

class CountAcc : public Accumulator {
 public:
  explicit CountAcc(bool star) : star_(star) {}
  void Add(const Args& a) override {
    if (star_ || !a[0].null) ++n_;
  }
  void AddRun(const std::vector<const Vector*>& args, size_t begin, size_t end) override {
    if (star_) {
      n_ += static_cast<int64_t>(end - begin);
      return;
    }
    for (size_t i = begin; i < end; ++i) n_ += args[0]->nulls[i] == 0;
  }
  void AddStats(const ColumnStats& stats) override { n_ += stats.count; }
  absl::StatusOr<Datum> Finish() override { return Datum::Bigint(n_); }

 private:
  bool star_;
  int64_t n_ = 0;
};

class CountIfAcc : public Accumulator {
 public:
  void Add(const Args& a) override { n_ += a[0].truthy(); }
  absl::StatusOr<Datum> Finish() override { return Datum::Bigint(n_); }

 private:
  int64_t n_ = 0;
};

class SumAcc : public Accumulator {
 public:
  explicit SumAcc(DataType type) : type_(type) {}
  void Add(const Args& a) override {
    if (a[0].null) return;
    seen_ = true;
    if (type_ == DataType::kBigint) {
      AddInteger(a[0].i);
    } else {
      d_ += a[0].AsDouble();
    }
  }
  // The run's total in a local (the members could alias the vector's values, which made
  // every addition a store), added in the rows' order as before.
  void AddRun(const std::vector<const Vector*>& args, size_t begin, size_t end) override {
    const Vector& v = *args[0];
    if (!IsNumericVector(v)) return Accumulator::AddRun(args, begin, end);
    const uint8_t* nulls = v.nulls.data();
    bool seen = false;
    if (type_ == DataType::kBigint) {
      for (size_t i = begin; i < end; ++i) {
        if (nulls[i]) continue;
        seen = true;
        AddInteger(v.ints[i]);
      }
    } else if (v.type == DataType::kDouble) {
      const double* values = v.doubles.data();
      double total = d_;
      for (size_t i = begin; i < end; ++i) {
        if (nulls[i]) continue;
        seen = true;
        total += values[i];
      }
      d_ = total;
    } else {
      const int64_t* values = v.ints.data();
      double total = d_;
      for (size_t i = begin; i < end; ++i) {
        if (nulls[i]) continue;
        seen = true;
        total += static_cast<double>(values[i]);
      }
      d_ = total;
    }
    seen_ = seen_ || seen;
  }
  // A BIGINT sum's statistic is a double: exact when it has_sum.
  void AddStats(const ColumnStats& stats) override {
    if (stats.count == 0) return;
    seen_ = true;
    if (type_ == DataType::kBigint) {
      AddInteger(static_cast<int64_t>(stats.sum));
    } else {
      d_ += stats.sum;
    }
  }
  absl::StatusOr<Datum> Finish() override {
    if (overflow_) {
      return absl::InvalidArgumentError(
          "bigint addition overflow in sum(): the total does not fit in 64 bits; "
          "sum(CAST(x AS double)) gives an approximate total");
    }
    if (!seen_) return Datum::Null(type_);
    return type_ == DataType::kBigint ? Datum::Bigint(i_) : Datum::Double(d_);
  }

 private:
  void AddInteger(int64_t v) { overflow_ |= __builtin_add_overflow(i_, v, &i_); }

  DataType type_;
  bool seen_ = false;
  bool overflow_ = false;  // sticky: once past 64 bits the total is meaningless
  int64_t i_ = 0;
  double d_ = 0;
};

// What avg and its final step over partial states keep: a DOUBLE sum in arrival order, or a
// BIGINT column's exact sum (AvgAcc says why), and the count.
class MeanAcc : public Accumulator {
 public:
  explicit MeanAcc(bool integers) : integers_(integers) {}
  absl::StatusOr<Datum> Finish() override {
    if (n_ == 0) return Datum::Null(DataType::kDouble);
    const double sum = integers_ ? static_cast<double>(integer_sum_) : sum_;
    return Datum::Double(sum / static_cast<double>(n_));
  }

 protected:
  const bool integers_;
  double sum_ = 0;
  __int128 integer_sum_ = 0;
  int64_t n_ = 0;
};

// The mean: for DOUBLE, the sum of the values in arrival order over their count, as Presto's
// avg(double) (and so Timestream's). For BIGINT the sum is exact (128 bits), so the mean is
// the same whatever the order and however the rows are read: a double sum of integers loses
// the small ones beside a large one (2^62 + 250 is 2^62 in a double), and lost them
// differently row by row than whole blocks by their headers' sums.
class AvgAcc : public MeanAcc {
 public:
  explicit AvgAcc(bool integers) : MeanAcc(integers) {}
  void Add(const Args& a) override {
    if (a[0].null) return;
    if (integers_ && a[0].type == DataType::kBigint) {
      integer_sum_ += a[0].i;
    } else {
      sum_ += a[0].AsDouble();
    }
    ++n_;
  }
  // In locals, in the rows' order (as SumAcc's).
  void AddRun(const std::vector<const Vector*>& args, size_t begin, size_t end) override {
    const Vector& v = *args[0];
    if (!IsNumericVector(v)) return Accumulator::AddRun(args, begin, end);
    const uint8_t* nulls = v.nulls.data();
    int64_t n = n_;
    if (v.type == DataType::kDouble) {
      const double* values = v.doubles.data();
      double sum = sum_;
      for (size_t i = begin; i < end; ++i) {
        if (nulls[i]) continue;
        sum += values[i];
        ++n;
      }
      sum_ = sum;
    } else if (integers_) {
      __int128 sum = integer_sum_;
      for (size_t i = begin; i < end; ++i) {
        if (nulls[i]) continue;
        sum += v.ints[i];
        ++n;
      }
      integer_sum_ = sum;
    } else {
      double sum = sum_;
      for (size_t i = begin; i < end; ++i) {
        if (nulls[i]) continue;
        sum += static_cast<double>(v.ints[i]);
        ++n;
      }
      sum_ = sum;
    }
    n_ = n;
  }
  // A BIGINT column's statistic has_sum only when its double is the exact integer sum.
  void AddStats(const ColumnStats& stats) override {
    if (integers_) {
      integer_sum_ += static_cast<__int128>(stats.sum);
    } else {
      sum_ += stats.sum;
    }
    n_ += stats.count;
  }
};

// Welford's online mean and variance.
class MomentsAcc : public Accumulator {
 public:
  enum class Output { kVarSamp, kVarPop, kStddevSamp, kStddevPop };
  explicit MomentsAcc(Output output) : output_(output) {}
  void Add(const Args& a) override {
    if (!a[0].null) Push(a[0].AsDouble());
  }
  void AddRun(const std::vector<const Vector*>& args, size_t begin, size_t end) override {
    const Vector& v = *args[0];
    if (!IsNumericVector(v)) return Accumulator::AddRun(args, begin, end);
    for (size_t i = begin; i < end; ++i) {
      if (!v.nulls[i]) Push(v.AsDouble(i));
    }
  }
  absl::StatusOr<Datum> Finish() override {
    switch (output_) {
      case Output::kVarSamp:
        return n_ > 1 ? Datum::Double(m2_ / (n_ - 1)) : Datum::Null(DataType::kDouble);
      case Output::kVarPop: return n_ ? Datum::Double(m2_ / n_) : Datum::Null(DataType::kDouble);
      case Output::kStddevSamp:
        return n_ > 1 ? Datum::Double(std::sqrt(m2_ / (n_ - 1))) : Datum::Null(DataType::kDouble);
      case Output::kStddevPop:
        return n_ ? Datum::Double(std::sqrt(m2_ / n_)) : Datum::Null(DataType::kDouble);
    }
    return Datum::Null(DataType::kDouble);
  }

 private:
  void Push(double x) {
    ++n_;
    double delta = x - mean_;
    mean_ += delta / n_;
    m2_ += delta * (x - mean_);
  }

  Output output_;
  int64_t n_ = 0;
  double mean_ = 0, m2_ = 0;
};

class ExtremeAcc : public Accumulator {
 public:
  explicit ExtremeAcc(bool max) : max_(max) {}
  void Add(const Args& a) override { Offer(a[0]); }
  // Finds the run's extreme in the typed array, then offers that one value.
  void AddRun(const std::vector<const Vector*>& args, size_t begin, size_t end) override {
    const Vector& v = *args[0];
    if (v.type == DataType::kVarchar || v.type == DataType::kUnknown || IsComposite(v.type)) {
      return Accumulator::AddRun(args, begin, end);
    }
    const uint8_t* nulls = v.nulls.data();
    const size_t best = v.type == DataType::kDouble
                            ? (max_ ? BestOf<true>(v.doubles.data(), nulls, begin, end)
                                    : BestOf<false>(v.doubles.data(), nulls, begin, end))
                            : (max_ ? BestOf<true>(v.ints.data(), nulls, begin, end)
                                    : BestOf<false>(v.ints.data(), nulls, begin, end));
    if (best != end) Offer(v.Get(best));
  }
  void AddStats(const ColumnStats& stats) override {
    if (stats.count > 0) Offer(max_ ? stats.max : stats.min);
  }
  absl::StatusOr<Datum> Finish() override { return best_; }

 private:
  void Offer(const Datum& value) {
    if (value.null) return;
    if (best_.null || (max_ ? Compare(value, best_) > 0 : Compare(value, best_) < 0)) best_ = value;
  }
  // The first of the run's non-NULL values that no later one is strictly better than, in
  // Compare's order (a NaN above every number), or `end` if all are NULL. One loop for each
  // type and direction, the best value held in a register: a sliding window frame calls this
  // for every row (60-row moving max: 32 % of its time before).
  template <bool kMax, typename T>
  static size_t BestOf(const T* values, const uint8_t* nulls, size_t begin, size_t end) {
    auto before = [](T x, T y) {
      if constexpr (std::is_floating_point_v<T>) {
        return DoubleSortsBefore(x, y);
      } else {
        return x < y;
      }
    };
    size_t i = begin;
    while (i < end && nulls[i]) ++i;
    if (i == end) return end;
    size_t best = i;
    T best_value = values[i];
    for (++i; i < end; ++i) {
      if (nulls[i]) continue;
      const T x = values[i];
      if (kMax ? before(best_value, x) : before(x, best_value)) {
        best = i;
        best_value = x;
      }
    }
    return best;
  }

  bool max_;
  Datum best_;
};

// max_by(x, y) / min_by(x, y): x of the row with the largest / smallest y.
class ByAcc : public Accumulator {
 public:
  ByAcc(bool max, DataType type) : max_(max), value_(Datum::Null(type)) {}
  void Add(const Args& a) override {
    if (a[1].null) return;
    if (key_.null || (max_ ? Compare(a[1], key_) > 0 : Compare(a[1], key_) < 0)) {
      key_ = a[1];
      value_ = a[0];
    }
  }
  absl::StatusOr<Datum> Finish() override { return value_; }

 private:
  bool max_;
  Datum key_;
  Datum value_;
};

class ArbitraryAcc : public Accumulator {
 public:
  void Add(const Args& a) override {
    if (value_.null && !a[0].null) value_ = a[0];
  }
  absl::StatusOr<Datum> Finish() override { return value_; }

 private:
  Datum value_;
};

class BoolAcc : public Accumulator {
 public:
  explicit BoolAcc(bool all) : all_(all) {}
  void Add(const Args& a) override {
    if (a[0].null) return;
    seen_ = true;
    if (all_) {
      result_ = result_ && a[0].i != 0;
    } else {
      result_ = result_ || a[0].i != 0;
    }
  }
  absl::StatusOr<Datum> Finish() override { return seen_ ? Datum::Bool(result_) : Datum::Null(DataType::kBoolean); }

 private:
  bool all_;
  bool seen_ = false;
  bool result_ = all_;
};

// Which argument is which in approx_percentile's forms: (x, p), (x, p, accuracy),
// (x, w, p) and (x, w, p, accuracy), told apart by the second argument's type (a
// weight is a BIGINT, a percentile a DOUBLE or an array of them).
struct PercentileArgs {
  int weight = -1;  // none
  int percentile = 1;
  int accuracy = -1;  // none
};
PercentileArgs PercentileArgsOf(const std::vector<DataType>& t) {
  PercentileArgs at;
  if (t.size() >= 3 && t[1] == DataType::kBigint) {
    at.weight = 1;
    at.percentile = 2;
  }
  if (static_cast<int>(t.size()) == at.percentile + 2) at.accuracy = at.percentile + 1;
  return at;
}

// Exact percentile over the group's values (nearest rank, as Presto's
// approx_percentile converges to); exact is affordable at these sizes.
// approx_percentile(x, p) and approx_percentile(x, ARRAY[p, ...]): the
// values kept, each percentile picked by selection at the end. A weight w
// counts its value w times (a cluster's fragments send each distinct value
// once with its count, and the answer is the same as over the rows).
class PercentileAcc : public Accumulator {
 public:
  // `type` is the result's: the value type, or an array of it.
  PercentileAcc(DataType type, PercentileArgs at) : type_(type), at_(at) {}
  void Add(const Args& a) override {
    if (a[0].null || a[at_.percentile].null) return;
    if (at_.weight >= 0) {
      if (a[at_.weight].null) return;
      if (a[at_.weight].i < 1) bad_weight_ = true;
      weights_.push_back(a[at_.weight].i);
      Kept(sizeof(int64_t));
    }
    values_.push_back(a[0].AsDouble());
    Kept(sizeof(double));
    if (percentiles_.empty()) {
      const Datum& p = a[at_.percentile];
      if (p.type == DataType::kBigint || p.type == DataType::kDouble) {
        percentiles_.push_back(p.AsDouble());
      } else {
        for (const Datum& item : p.items()) {
          percentiles_.push_back(item.null ? -1 : item.AsDouble());
        }
      }
      if (at_.accuracy >= 0) {
        const Datum& accuracy = a[at_.accuracy];
        bad_accuracy_ = accuracy.null || !(accuracy.AsDouble() > 0 && accuracy.AsDouble() < 1);
      }
    }
  }
  absl::StatusOr<Datum> Finish() override {
    for (double p : percentiles_) {
      if (!(p >= 0 && p <= 1)) {
        return absl::InvalidArgumentError(
            "approx_percentile(): a percentile must be between 0 and 1 (and not NULL)");
      }
    }
    if (bad_accuracy_) {
      return absl::InvalidArgumentError(
          "approx_percentile(): the accuracy must be between 0 and 1, both excluded");
    }
    if (bad_weight_) {
      return absl::InvalidArgumentError(
          "approx_percentile(): a weight must be a whole number of at least 1");
    }
    const bool array = KindOf(type_) == TypeKind::kArray;
    const DataType value_type = array ? ElementType(type_) : type_;
    if (values_.empty()) return Datum::Null(type_);
    std::vector<Datum> out;
    for (double p : percentiles_) {
      const double v = at_.weight >= 0 ? WeightedRank(p) : Rank(p);
      out.push_back(value_type == DataType::kBigint ? Datum::Bigint(static_cast<int64_t>(v))
                                                    : Datum::Double(v));
    }
    if (!array) return out[0];
    return Datum::Composite(type_, std::move(out));
  }

 private:
  double Rank(double p) {
    size_t k = static_cast<size_t>(std::llround(p * (values_.size() - 1)));
    std::nth_element(values_.begin(), values_.begin() + k, values_.end(), DoubleSortsBefore);
    return values_[k];
  }
  // The value at rank k of the rows each value stands for w times.
  double WeightedRank(double p) {
    if (order_.size() != values_.size()) {  // not sorted yet, or rows came after (Finish)
      order_.resize(values_.size());
      for (size_t i = 0; i < order_.size(); ++i) order_[i] = i;
      std::sort(order_.begin(), order_.end(),
                [this](size_t a, size_t b) { return DoubleSortsBefore(values_[a], values_[b]); });
    }
    // In doubles: a sum of weights past 2^63 cannot overflow, and the rank is a double anyway.
    double rows = 0;
    for (int64_t w : weights_) rows += static_cast<double>(w);
    const double k = std::round(p * (rows - 1));
    double below = 0;
    for (size_t i : order_) {
      below += static_cast<double>(weights_[i]);
      if (k < below) return values_[i];
    }
    return values_[order_.back()];
  }

  DataType type_;
  PercentileArgs at_;
  std::vector<double> values_;
  std::vector<int64_t> weights_;     // by value, with a weight argument
  std::vector<size_t> order_;        // values_' indices by value, once sorted
  std::vector<double> percentiles_;  // from the first row: the argument is a constant
  bool bad_weight_ = false;
  bool bad_accuracy_ = false;
};

// Exact distinct count (approx_distinct's answer without the error). A standard error
// argument, approx_distinct(x, e), is checked against Timestream's range and not needed.
class DistinctCountAcc : public Accumulator {
 public:
  void Add(const Args& a) override {
    if (a.size() > 1 && !checked_) {
      checked_ = true;
      bad_error_ = a[1].null || !(a[1].AsDouble() >= kMinError && a[1].AsDouble() <= kMaxError);
    }
    if (a[0].null) return;
    std::string key;
    AppendKey(a[0], &key);
    const int64_t bytes = static_cast<int64_t>(key.size()) + 32;
    if (seen_.insert(std::move(key)).second) Kept(bytes);
  }
  absl::StatusOr<Datum> Finish() override {
    if (bad_error_) {
      return absl::InvalidArgumentError(StrCat(
          "approx_distinct(): the standard error must be from ", kMinError, " to ", kMaxError));
    }
    return Datum::Bigint(static_cast<int64_t>(seen_.size()));
  }

 private:
  static constexpr double kMinError = 0.0040625;
  static constexpr double kMaxError = 0.26;
  absl::flat_hash_set<std::string> seen_;
  bool checked_ = false;
  bool bad_error_ = false;
};

class DistinctAcc : public Accumulator {
 public:
  explicit DistinctAcc(std::unique_ptr<Accumulator> inner) : inner_(std::move(inner)) {}
  void MeterInto(int64_t* bytes) override {
    Accumulator::MeterInto(bytes);
    inner_->MeterInto(bytes);
  }
  void Add(const Args& a) override {
    std::string key;
    for (const Datum& d : a) AppendKey(d, &key);
    const int64_t bytes = static_cast<int64_t>(key.size()) + 32;
    if (!seen_.insert(std::move(key)).second) return;
    Kept(bytes);
    inner_->Add(a);
  }
  // A row repeating the row before it adds nothing: a series' rows come together, so
  // count(DISTINCT host) hashes a host once a run, not once a row.
  void AddRun(const std::vector<const Vector*>& args, size_t begin, size_t end) override {
    Args values(args.size());
    for (size_t i = begin; i < end; ++i) {
      if (i > begin && RepeatsRowBefore(args, i)) continue;
      for (size_t k = 0; k < args.size(); ++k) values[k] = args[k]->Get(i);
      Add(values);
    }
  }
  absl::StatusOr<Datum> Finish() override { return inner_->Finish(); }

 private:
  // Equal bits (a DOUBLE's -0 and 0, or two NaNs, are not taken for one another: the keys
  // decide those); composite values are not compared here.
  static bool RepeatsRowBefore(const std::vector<const Vector*>& args, size_t i) {
    for (const Vector* v : args) {
      if (IsComposite(v->type) || v->type == DataType::kUnknown) return false;
      if (v->nulls[i] != v->nulls[i - 1]) return false;
      if (v->nulls[i]) continue;
      if (v->type == DataType::kDouble) {
        if (std::memcmp(&v->doubles[i], &v->doubles[i - 1], sizeof(double)) != 0) return false;
      } else if (!v->SameValue(i, *v, i - 1)) {
        return false;
      }
    }
    return true;
  }

  std::unique_ptr<Accumulator> inner_;
  absl::flat_hash_set<std::string> seen_;
};

}  // namespace

namespace {

// The bytes of the UTF-8 character at s[i] (1 for a byte that starts none).
size_t LikeCharLength(std::string_view s, size_t i) {
  if (static_cast<unsigned char>(s[i]) < 0x80) return 1;  // ASCII, the usual text
  return std::max<size_t>(Utf8CharLength(s.substr(i)), 1);
}

// One item of a LIKE pattern: %, _, or a character that stands for itself.
struct LikeItem {
  enum class Kind { kAnyRun, kOneChar, kLiteral } kind;
  size_t begin = 0, size = 0;  // kLiteral: the character's bytes in the pattern
  size_t next = 0;             // where the next item starts
};

LikeItem LikeItemAt(std::string_view pattern, size_t p, std::string_view escape) {
  if (!escape.empty() && pattern.compare(p, escape.size(), escape) == 0 &&
      p + escape.size() < pattern.size()) {
    const size_t q = p + escape.size();
    const size_t n = LikeCharLength(pattern, q);
    return {LikeItem::Kind::kLiteral, q, n, q + n};
  }
  if (pattern[p] == '%') return {LikeItem::Kind::kAnyRun, p, 1, p + 1};
  if (pattern[p] == '_') return {LikeItem::Kind::kOneChar, p, 1, p + 1};
  const size_t n = LikeCharLength(pattern, p);
  return {LikeItem::Kind::kLiteral, p, n, p + n};
}

}  // namespace

bool LikeMatch(std::string_view text, std::string_view pattern, std::string_view escape) {
  // Greedy with one point to come back to: the item after the last % and the text position
  // it was tried at, moved on a character on each mismatch.
  size_t t = 0, p = 0, after_run = std::string_view::npos, mark = 0;
  while (t < text.size()) {
    if (p < pattern.size()) {
      const LikeItem item = LikeItemAt(pattern, p, escape);
      if (item.kind == LikeItem::Kind::kAnyRun) {
        p = after_run = item.next;
        mark = t;
        continue;
      }
      if (item.kind == LikeItem::Kind::kOneChar) {
        t += LikeCharLength(text, t);
        p = item.next;
        continue;
      }
      if (text.compare(t, item.size, pattern.substr(item.begin, item.size)) == 0) {
        t += item.size;
        p = item.next;
        continue;
      }
    }
    if (after_run == std::string_view::npos) return false;
    mark += LikeCharLength(text, mark);
    t = mark;
    p = after_run;
  }
  while (p < pattern.size()) {
    const LikeItem item = LikeItemAt(pattern, p, escape);
    if (item.kind != LikeItem::Kind::kAnyRun) return false;
    p = item.next;
  }
  return true;
}

std::string LikePatternError(std::string_view pattern, std::string_view escape) {
  if (escape.empty() || LikeCharLength(escape, 0) != escape.size()) {
    return StrCat("the LIKE escape must be one character, not '", escape, "'");
  }
  for (size_t p = 0; p < pattern.size(); p += LikeCharLength(pattern, p)) {
    if (pattern.compare(p, escape.size(), escape) != 0) continue;
    const size_t q = p + escape.size();
    if (q >= pattern.size() || (pattern[q] != '%' && pattern[q] != '_' &&
                                pattern.compare(q, escape.size(), escape) != 0)) {
      return StrCat("in the LIKE pattern '", pattern, "' the escape '", escape,
                    "' must be followed by %, _ or itself");
    }
    p = q;  // the escaped character is passed over by the loop's step
  }
  return "";
}

namespace {

class OrderedAcc : public Accumulator {
 public:
  OrderedAcc(std::function<std::unique_ptr<Accumulator>()> make, size_t values,
             std::vector<bool> descending, std::vector<bool> nulls_first)
      : make_(std::move(make)),
        values_(values),
        descending_(std::move(descending)),
        nulls_first_(std::move(nulls_first)) {}
  void Add(const Args& a) override {
    int64_t bytes = 16;
    for (const Datum& d : a) bytes += static_cast<int64_t>(sizeof(Datum)) + d.HeapBytes();
    Kept(bytes);
    rows_.push_back(a);
  }
  // A fresh accumulator each time, given every row in order: Finish leaves the rows whole.
  absl::StatusOr<Datum> Finish() override {
    std::vector<size_t> order(rows_.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [this](size_t a, size_t b) {
      for (size_t k = 0; k < descending_.size(); ++k) {
        const Datum& x = rows_[a][values_ + k];
        const Datum& y = rows_[b][values_ + k];
        if (x.null != y.null) return x.null == nulls_first_[k];
        if (x.null) continue;
        const int c = Compare(x, y);
        if (c != 0) return descending_[k] ? c > 0 : c < 0;
      }
      return false;
    });
    std::unique_ptr<Accumulator> inner = make_();
    Args values(values_);
    for (size_t i : order) {
      std::copy_n(rows_[i].begin(), values_, values.begin());
      inner->Add(values);
    }
    return inner->Finish();
  }

 private:
  std::function<std::unique_ptr<Accumulator>()> make_;
  size_t values_;
  std::vector<bool> descending_, nulls_first_;
  std::vector<Args> rows_;
};

}  // namespace

std::unique_ptr<Accumulator> OrderedArguments(std::function<std::unique_ptr<Accumulator>()> make,
                                              size_t values, std::vector<bool> descending,
                                              std::vector<bool> nulls_first) {
  return std::make_unique<OrderedAcc>(std::move(make), values, std::move(descending),
                                      std::move(nulls_first));
}

std::unique_ptr<Accumulator> WithDistinctArguments(std::unique_ptr<Accumulator> inner) {
  return std::make_unique<DistinctAcc>(std::move(inner));
}

namespace {

class FilteredAcc : public Accumulator {
 public:
  explicit FilteredAcc(std::unique_ptr<Accumulator> inner) : inner_(std::move(inner)) {}
  void MeterInto(int64_t* bytes) override {
    Accumulator::MeterInto(bytes);
    inner_->MeterInto(bytes);
  }
  void Add(const Args& a) override {
    if (!a.back().truthy()) return;
    inner_->Add(Args(a.begin(), a.end() - 1));
  }
  // The runs of rows the condition holds for, each to the inner accumulator as one.
  void AddRun(const std::vector<const Vector*>& args, size_t begin, size_t end) override {
    const Vector& condition = *args.back();
    const std::vector<const Vector*> values(args.begin(), args.end() - 1);
    const auto holds = [&condition](size_t i) {
      return condition.type == DataType::kBoolean && !condition.nulls[i] && condition.ints[i] != 0;
    };
    for (size_t i = begin; i < end;) {
      if (!holds(i)) {
        ++i;
        continue;
      }
      const size_t run = i;
      while (i < end && holds(i)) ++i;
      inner_->AddRun(values, run, i);
    }
  }
  absl::StatusOr<Datum> Finish() override { return inner_->Finish(); }

 private:
  std::unique_ptr<Accumulator> inner_;
};

}  // namespace

std::unique_ptr<Accumulator> WithFilterArgument(std::unique_ptr<Accumulator> inner) {
  return std::make_unique<FilteredAcc>(std::move(inner));
}

namespace {

// avg's final step over partial states, as AvgAcc would have finished them: (sum DOUBLE,
// count) pairs, or for BIGINT the exact sum in two parts (high, low, count), the total being
// high * kAvgPartBase + low.
class AverageOfPartialsAcc : public MeanAcc {
 public:
  explicit AverageOfPartialsAcc(bool integers) : MeanAcc(integers) {}
  void Add(const Args& a) override {
    for (const Datum& d : a) {
      if (d.null) return;
    }
    if (integers_) {
      integer_sum_ += static_cast<__int128>(a[0].i) * kAvgPartBase + a[1].i;
    } else {
      sum_ += a[0].AsDouble();
    }
    n_ += a.back().i;
  }
  // The fragments' groups arrive as column batches: no Datum a value.
  void AddRun(const std::vector<const Vector*>& args, size_t begin, size_t end) override {
    const Vector& sums = *args[0];
    const Vector& counts = *args.back();
    if (integers_ || !IsNumericVector(sums) || counts.type != DataType::kBigint) {
      return Accumulator::AddRun(args, begin, end);
    }
    for (size_t i = begin; i < end; ++i) {
      if (sums.nulls[i] || counts.nulls[i]) continue;
      sum_ += sums.AsDouble(i);
      n_ += counts.ints[i];
    }
  }
};

// count's and count_if's final step: the fragments' counts added, 0 when none sent a row
// (a grand total over groups that no fragment had), as count answers over no rows.
class CountOfPartialsAcc : public Accumulator {
 public:
  void Add(const Args& a) override {
    if (!a[0].null) n_ += a[0].i;
  }
  void AddRun(const std::vector<const Vector*>& args, size_t begin, size_t end) override {
    const Vector& counts = *args[0];
    if (counts.type != DataType::kBigint) return Accumulator::AddRun(args, begin, end);
    for (size_t i = begin; i < end; ++i) {
      if (!counts.nulls[i]) n_ += counts.ints[i];
    }
  }
  absl::StatusOr<Datum> Finish() override { return Datum::Bigint(n_); }

 private:
  int64_t n_ = 0;
};

}  // namespace

const AggregateFunction& CountOfPartials() {
  static const AggregateFunction* const kFunction = new AggregateFunction{
      .name = "sum",
      .signature = "sum of partial counts (bigint) -> bigint, 0 over none",
      .doc = "The merge of count's partial states (not callable from SQL).",
      .bind = [](const std::vector<DataType>&) -> absl::StatusOr<DataType> {
        return DataType::kBigint;
      },
      .make = [](const std::vector<DataType>&) { return std::make_unique<CountOfPartialsAcc>(); }};
  return *kFunction;
}

const AggregateFunction& AverageOfPartials() {
  static const AggregateFunction* const kFunction = new AggregateFunction{
      .name = "avg",
      .signature =
          "avg of partial (sum double, count bigint) or (high, low, count bigint) -> double",
      .doc = "The merge of avg's partial states (not callable from SQL).",
      .bind = [](const std::vector<DataType>&) -> absl::StatusOr<DataType> {
        return DataType::kDouble;
      },
      .make =
          [](const std::vector<DataType>& types) {
            return std::make_unique<AverageOfPartialsAcc>(types.size() == 3);
          }};
  return *kFunction;
}

void AddCoreFunctions(std::vector<ScalarFunction>* scalars,
                      std::vector<AggregateFunction>* aggregates) {
  auto add = [scalars](ScalarFunction f) { scalars->push_back(std::move(f)); };
  using P = Param;
  static constexpr DataType kTs = DataType::kTimestamp, kBig = DataType::kBigint,
                            kDbl = DataType::kDouble, kStr = DataType::kVarchar,
                            kBool = DataType::kBoolean;

  // Date and time ---------------------------------------------------------
  // PostgreSQL's statement_timestamp() and transaction_timestamp() (a statement is its own
  // transaction) are now() too.
  for (const std::string name : {"now", "statement_timestamp", "transaction_timestamp"}) {
    add({name, StrCat(name, "() -> timestamp"), "The time the query started (UTC).",
         Fixed({}, kTs, StrCat(name, "()")),
         [](const Args&, const EvalContext& c) { return Datum::Timestamp(c.now_nanos); }});
  }
  // The wall clock the query started at: in UTC, or in the zone a PostgreSQL session set (the
  // parser passes its name: query/parse/session_zone.h).
  const auto wall_clock_now = [](const Args& a, const EvalContext& c) -> std::optional<int64_t> {
    if (a.empty()) return c.now_nanos;
    const std::optional<absl::TimeZone> zone = LoadTimeZone(a[0].s);
    if (!zone) return std::nullopt;
    return WallClockAt(c.now_nanos, *zone);
  };
  const auto unknown_zone = [](std::string_view function, const Args& a, const EvalContext& c,
                               DataType type) {
    return FailQuery(c, StrCat(function, "(): '", EchoInput(a[0].s), "' is not a time zone"), type);
  };
  add({"current_date", "current_date -> date",
       "The day the query started (UTC, or the session's time zone).",
       Fixed({P::kVarchar}, DataType::kDate, "current_date", 1),
       [=](const Args& a, const EvalContext& c) {
         const std::optional<int64_t> now = wall_clock_now(a, c);
         if (!now) return unknown_zone("current_date", a, c, DataType::kDate);
         return Datum::Date(DateOfTimestamp(*now));
       }});
  scalars->back().can_fail = true;
  add({"current_time", "current_time -> time",
       "The time of day the query started (UTC, or the session's time zone; also localtime).",
       Fixed({P::kVarchar}, DataType::kTime, "current_time", 1),
       [=](const Args& a, const EvalContext& c) {
         const std::optional<int64_t> now = wall_clock_now(a, c);
         if (!now) return unknown_zone("current_time", a, c, DataType::kTime);
         return Datum::Time(*now - MidnightOf(DateOfTimestamp(*now)));
       }});
  scalars->back().can_fail = true;
  add({"date", "date(varchar | timestamp) -> date",
       "The day of a timestamp, or a 'YYYY-MM-DD' text as a date (as CAST(x AS date)).",
       [](const Types& t) -> absl::StatusOr<DataType> {
         if (t.size() != 1 || !(Accepts(P::kVarchar, t[0]) || Accepts(P::kTimestamp, t[0]) ||
                                t[0] == DataType::kDate)) {
           return WrongArguments("date(varchar | timestamp)");
         }
         return DataType::kDate;
       },
       [](const Args& a, const EvalContext& c) {
         if (a[0].type == DataType::kDate) return a[0];
         if (a[0].type == DataType::kTimestamp) return Datum::Date(DateOfTimestamp(a[0].i));
         std::optional<Datum> date = ParseDate(a[0].s);
         return date ? *date
                     : FailQuery(c, StrCat("date(): '", a[0].s, "' is not a date; write '2023-05-17'"),
                                 DataType::kDate);
       }});
  scalars->back().can_fail = true;
  add({"from_iso8601_date", "from_iso8601_date(varchar) -> date",
       "Parses '2021-12-01' (NULL for other text).",
       Fixed({P::kVarchar}, DataType::kDate, "from_iso8601_date(varchar)"),
       [](const Args& a, const EvalContext&) {
         return ParseDate(a[0].s).value_or(Datum::Null(DataType::kDate));
       }});
  add({"last_day_of_month", "last_day_of_month(timestamp | date) -> date",
       "The last day of the month of a timestamp or date.",
       Fixed({P::kTimestamp}, DataType::kDate, "last_day_of_month(timestamp | date)"),
       [](const Args& a, const EvalContext& c) {
         // The first of the next month, less a day.
         CalendarResult first = Truncate("month", a[0].i);
         std::optional<int64_t> next =
             first.ok() && *first ? AddMonths(**first, 1) : std::optional<int64_t>();
         if (!next) return FailQuery(c, "last_day_of_month(): outside the range of dates", DataType::kDate);
         return Datum::Date(DateOfTimestamp(*next) - 1);
       }});
  scalars->back().can_fail = true;
  add({"ago", "ago(interval) -> timestamp", "now() minus the interval: time > ago(1h).",
       Fixed({P::kInterval}, kTs, "ago(interval), e.g. ago(15m)"),
       [](const Args& a, const EvalContext& c) {
         return CheckedTimestamp(CheckedIntegerOp('-', c.now_nanos, a[0].i), c, [&] {
           return OverflowMessage(DataType::kTimestamp, '-', c.now_nanos, a[0].i);
         });
       }});
  scalars->back().can_fail = true;
  add({"bin", "bin(timestamp, interval) -> timestamp",
       "Rounds a timestamp down to a multiple of the interval since the epoch: bin(time, 5m).",
       Fixed({P::kTimestamp, P::kInterval}, kTs, "bin(timestamp, interval), e.g. bin(time, 5m)"),
       [](const Args& a, const EvalContext&) {
         if (a[1].i <= 0) return Datum::Null(DataType::kTimestamp);
         std::optional<int64_t> start = BinStart(a[0].i, a[1].i);
         return start ? Datum::Timestamp(*start) : Datum::Null(DataType::kTimestamp);
       }});
  // bin() is the group key of most time-series queries: a loop, not a call per row.
  scalars->back().eval_batch = [](const std::vector<Vector>& a, Vector* out) {
    for (size_t i = 0; i < out->size(); ++i) {
      if (a[0].nulls[i] || a[1].nulls[i] || a[1].ints[i] <= 0) continue;
      std::optional<int64_t> start = BinStart(a[0].ints[i], a[1].ints[i]);
      if (!start) continue;
      out->ints[i] = *start;
      out->nulls[i] = 0;
    }
    return true;
  };
  // TimescaleDB's time_bucket(width, ts [, origin]) (Grafana's $__timeGroup sends it with
  // its TimescaleDB option: time_bucket('300.000s',time)) and PostgreSQL's date_bin(stride, ts,
  // origin): bin() from another origin, the width an interval or its text ('5 minutes').
  for (auto [name, usage, doc] :
       {std::tuple{"time_bucket", "time_bucket(width, timestamp [, origin])",
                   "The start of the width's bucket holding the timestamp, buckets counted from "
                   "the origin (TimescaleDB's default: Monday 2000-01-03, so weeks start on "
                   "Mondays): time_bucket('5 minutes', time). The width is an interval or its "
                   "text."},
        std::tuple{"date_bin", "date_bin(stride, timestamp, origin)",
                   "The start of the stride's bin holding the timestamp, bins counted from the "
                   "origin (PostgreSQL's): date_bin('15 minutes', time, TIMESTAMP '2024-01-01 "
                   "00:00:00'). The stride is an interval or its text."}}) {
    const bool origin_needed = std::string_view(name) == "date_bin";
    const std::string call = usage;
    add({name, StrCat(usage, " -> timestamp"), doc,
         [call, origin_needed](const Types& t) -> absl::StatusOr<DataType> {
           const size_t n = t.size();
           if (n < (origin_needed ? 3u : 2u) || n > 3 ||
               (!Accepts(P::kInterval, t[0]) && !Accepts(P::kVarchar, t[0])) ||
               !Accepts(P::kTimestamp, t[1]) || (n == 3 && !Accepts(P::kTimestamp, t[2]))) {
             return WrongArguments(call);
           }
           return kTs;
         },
         [n = std::string(name)](const Args& a, const EvalContext& c) {
           const absl::StatusOr<int64_t> width = BucketWidth(n, a[0]);
           if (!width.ok()) return FailQuery(c, std::string(width.status().message()), kTs);
           const int64_t origin = a.size() > 2 ? a[2].i : kMonday2000;
           return CheckedTimestamp(BucketStart(a[1].i, *width, origin), c, [&] {
             return StrCat(n, "(): the bucket starts outside the range of timestamps");
           });
         }});
    scalars->back().can_fail = true;
    // As bin(), a loop over the batch; the width's text (the same on every row, as Grafana
    // sends it) parsed when it changes, not once a row. An error goes through eval.
    scalars->back().eval_batch = [n = std::string(name)](const std::vector<Vector>& a,
                                                         Vector* out) {
      std::optional<std::string_view> text;
      int64_t width = 0;
      for (size_t i = 0; i < out->size(); ++i) {
        if (a[0].nulls[i] || a[1].nulls[i] || (a.size() > 2 && a[2].nulls[i])) continue;
        if (a[0].type != DataType::kVarchar) {
          width = a[0].ints[i];
          if (width <= 0) return false;
        } else if (!text || *text != a[0].strings[i]) {
          const absl::StatusOr<int64_t> parsed =
              BucketWidth(n, Datum::Varchar(std::string(a[0].strings[i])));
          if (!parsed.ok()) return false;
          text = a[0].strings[i];
          width = *parsed;
        }
        const std::optional<int64_t> start =
            BucketStart(a[1].ints[i], width, a.size() > 2 ? a[2].ints[i] : kMonday2000);
        if (!start) return false;
        out->ints[i] = *start;
        out->nulls[i] = 0;
      }
      return true;
    };
  }
  // date_trunc, date_add and date_diff take timestamps, or dates (whose
  // results stay dates, computed at their midnights, in units of days and up).
  add({"date_trunc", "date_trunc(unit, timestamp | date [, zone]) -> same type",
       "Truncates to 'millisecond', 'second', 'minute', 'hour', 'day', 'week', 'month', "
       "'quarter' or 'year'; an unknown unit is an error. With a zone (PostgreSQL's), on its "
       "wall clock: date_trunc('day', time, 'Europe/Berlin') is the instant the local day "
       "began, a timestamp for a date too.",
       [](const Types& t) -> absl::StatusOr<DataType> {
         if (t.size() < 2 || t.size() > 3 || !Accepts(P::kVarchar, t[0]) ||
             !TimestampOrDate(t[1]) || (t.size() == 3 && !Accepts(P::kVarchar, t[2]))) {
           return WrongArguments("date_trunc(unit, timestamp | date [, zone])");
         }
         return t[1] == DataType::kDate && t.size() == 2 ? DataType::kDate : kTs;
       },
       [](const Args& a, const EvalContext& c) {
         const bool date = a[1].type == DataType::kDate;
         if (date && !DateUnit(a[0].s)) return NotADateUnit("date_trunc", a[0].s, c);
         if (a.size() == 3) {
           const absl::TimeZone* zone = FindZone(a[2].s);
           if (zone == nullptr) return UnknownZone("date_trunc", a[2].s, c);
           if (date) {  // the date's midnight there, as PostgreSQL casts a date to timestamptz
             const std::optional<int64_t> midnight =
                 InstantOfWallClock(MidnightOf(a[1].i), *zone, RepeatedTime::kLater);
             if (!midnight) return CalendarDatum(OutsideTimestampRange("date_trunc"), kTs, c);
             return CalendarDatum(TruncateInZone(a[0].s, *midnight, *zone), kTs, c);
           }
           return CalendarDatum(TruncateInZone(a[0].s, a[1].i, *zone), kTs, c);
         }
         return OnDateOrTimestamp(Truncate(a[0].s, PointNanos(a[1])), a[1].type, c);
       }});
  scalars->back().can_fail = true;
  // date_trunc('minute', time) groups as many dashboards as bin() does: with one unit of a fixed
  // length for the whole batch (the usual literal), a loop instead of a unit parsed for each
  // row. The calendar's units, dates, several units and a result out of range go through eval.
  scalars->back().eval_batch = [](const std::vector<Vector>& a, Vector* out) {
    if (a[1].type != kTs) return false;
    if (a.size() == 3) return TruncateBatchInZone(a, out);
    std::optional<std::string_view> unit;
    for (size_t i = 0; i < out->size(); ++i) {
      if (a[0].nulls[i]) continue;
      if (unit.has_value() && a[0].strings[i] != *unit) return false;
      unit = a[0].strings[i];
    }
    if (!unit.has_value()) return true;  // every row NULL
    const std::optional<int64_t> length = TruncationNanos(Lower(std::string(*unit)));
    if (!length) return false;
    for (size_t i = 0; i < out->size(); ++i) {
      if (a[0].nulls[i] || a[1].nulls[i]) continue;
      const std::optional<int64_t> start = TruncateBy(a[1].ints[i], *length);
      if (!start) return false;
      out->ints[i] = *start;
      out->nulls[i] = 0;
    }
    return true;
  };
  add({"date_add", "date_add(unit, bigint, timestamp | date) -> same type",
       "Adds n units ('second' .. 'year'; a date: 'day' .. 'year') to a timestamp or date; an "
       "unknown unit is an error.",
       [](const Types& t) -> absl::StatusOr<DataType> {
         if (t.size() != 3 || !Accepts(P::kVarchar, t[0]) || !Accepts(P::kBigint, t[1]) ||
             !TimestampOrDate(t[2])) {
           return WrongArguments("date_add(unit, bigint, timestamp | date)");
         }
         return t[2] == DataType::kDate ? DataType::kDate : kTs;
       },
       [](const Args& a, const EvalContext& c) {
         const bool date = a[2].type == DataType::kDate;
         if (date && !DateUnit(a[0].s)) return NotADateUnit("date_add", a[0].s, c);
         return OnDateOrTimestamp(AddUnits(a[0].s, a[1].i, PointNanos(a[2])), a[2].type, c);
       }});
  scalars->back().can_fail = true;
  add({"date_diff", "date_diff(unit, timestamp, timestamp) -> bigint",
       "Whole units from the first timestamp (or date) to the second; an unknown unit is an error.",
       [](const Types& t) -> absl::StatusOr<DataType> {
         // Two dates, or two timestamps (a date beside a timestamp is its midnight).
         if (t.size() != 3 || !Accepts(P::kVarchar, t[0]) || !TimestampOrDate(t[1]) ||
             !TimestampOrDate(t[2]) ||
             ((t[1] == DataType::kDate) != (t[2] == DataType::kDate) &&
              t[1] != DataType::kUnknown && t[2] != DataType::kUnknown)) {
           return WrongArguments("date_diff(unit, timestamp, timestamp)");
         }
         return kBig;
       },
       [](const Args& a, const EvalContext& c) {
         return CalendarDatum(DiffUnits(a[0].s, PointNanos(a[1]), PointNanos(a[2])),
                              DataType::kBigint, c);
       }});
  scalars->back().can_fail = true;
  for (auto [name, doc, factor] :
       {std::tuple{"from_milliseconds", "Milliseconds since the epoch to a timestamp.", 1'000'000LL},
        std::tuple{"from_nanoseconds", "Nanoseconds since the epoch to a timestamp.", 1LL}}) {
    int64_t f = factor;
    add({name, StrCat(name, "(bigint) -> timestamp"), doc,
         Fixed({P::kBigint}, kTs, StrCat(name, "(bigint)")),
         [f](const Args& a, const EvalContext& c) {
           return CheckedTimestamp(CheckedIntegerOp('*', a[0].i, f), c, [&] {
             return OverflowMessage(DataType::kTimestamp, '*', a[0].i, f);
           });
         }});
    scalars->back().can_fail = true;
  }
  for (auto [name, doc, factor] :
       {std::tuple{"to_milliseconds", "A timestamp (or interval) in milliseconds.", 1'000'000LL},
        std::tuple{"to_nanoseconds", "A timestamp (or interval) in nanoseconds.", 1LL}}) {
    int64_t f = factor;
    std::string sig = StrCat(name, "(timestamp | interval) -> bigint");
    add({name, sig, doc,
         [sig](const Types& t) -> absl::StatusOr<DataType> {
           if (t.size() != 1 || !(Accepts(P::kTimestamp, t[0]) || Accepts(P::kInterval, t[0]))) {
             return WrongArguments(sig);
           }
           return DataType::kBigint;
         },
         [f](const Args& a, const EvalContext&) { return Datum::Bigint(FloorDiv(a[0].i, f)); }});
  }
  add({"to_unixtime", "to_unixtime(timestamp | interval) -> double",
       "Seconds since the Unix epoch, with the fraction (also extract(epoch FROM t)); of a "
       "day-to-second interval, its seconds (extract(epoch FROM t2 - t1)).",
       [](const Types& t) -> absl::StatusOr<DataType> {
         if (t.size() != 1 || (!Accepts(P::kTimestamp, t[0]) && t[0] != DataType::kInterval)) {
           return WrongArguments("to_unixtime(timestamp | interval)");
         }
         return kDbl;
       },
       [](const Args& a, const EvalContext&) {
         // Whole seconds and the rest apart: a double holds ns-exact fractions near now.
         const int64_t seconds = FloorDiv(a[0].i, 1'000'000'000);
         return Datum::Double(static_cast<double>(seconds) +
                              static_cast<double>(a[0].i - seconds * 1'000'000'000) / 1e9);
       }});
  add({"from_iso8601_timestamp", "from_iso8601_timestamp(varchar) -> timestamp",
       "Parses '2021-12-01T19:00:00Z' (offsets such as +02:00 are applied).",
       Fixed({P::kVarchar}, kTs, "from_iso8601_timestamp(varchar)"),
       [](const Args& a, const EvalContext&) {
         auto v = ParseTimestamp(a[0].s);
         return v ? Datum::Timestamp(*v) : Datum::Null(DataType::kTimestamp);
       }});
  add({"to_iso8601", "to_iso8601(timestamp | date) -> varchar",
       "Formats a timestamp as '2021-12-01T19:00:00.000Z', a date as '2021-12-01'.",
       [](const Types& t) -> absl::StatusOr<DataType> {
         if (t.size() != 1 || !TimestampOrDate(t[0])) {
           return WrongArguments("to_iso8601(timestamp | date)");
         }
         return kStr;
       },
       [](const Args& a, const EvalContext&) {
         return Datum::Varchar(a[0].type == DataType::kDate ? a[0].ToString() : ToIso8601(a[0].i));
       }});
  // The fields of a point in time, and those of an interval that has them (`extract(hour FROM
  // interval '3 hours 20 minutes')`): a time of day's nanoseconds since midnight are a
  // timestamp on 1970-01-01.
  const std::set<std::string_view> kDurationFields = {"day",    "hour",        "minute",
                                                      "second", "millisecond", "milliseconds"};
  const std::set<std::string_view> kMonthFields = {"year", "month"};
  const std::set<std::string_view> kTimeFields = {"hour", "minute", "second", "millisecond",
                                                  "milliseconds"};
  for (std::string field :
       {"year", "quarter", "month", "week", "week_of_year", "day", "day_of_month", "day_of_week",
        "dow", "day_of_year", "doy", "hour", "minute", "second", "millisecond", "milliseconds"}) {
    const bool of_time = kTimeFields.contains(field);
    const std::optional<DataType> interval =
        kDurationFields.contains(field) ? std::optional(DataType::kInterval)
        : kMonthFields.contains(field)  ? std::optional(DataType::kIntervalYearToMonth)
                                        : std::nullopt;
    std::string signature =
        StrCat(field, "(timestamp", of_time ? " | time" : "",
               interval ? StrCat(" | ", TypeName(*interval)) : "", ") -> bigint");
    add({field, signature,
         StrCat("The ", field == "milliseconds" ? "seconds" : field, " of a timestamp, a date",
                of_time ? ", a time" : "", interval ? " or an interval" : "",
                field == "milliseconds" ? ", with their fraction, in milliseconds" : "",
                " (also extract(", field, " FROM t))."),
         [signature, of_time, interval](const Types& t) -> absl::StatusOr<DataType> {
           if (t.size() != 1 || !(Accepts(P::kTimestamp, t[0]) ||
                                  (of_time && t[0] == DataType::kTime) || t[0] == interval)) {
             return WrongArguments(signature);
           }
           return kBig;
         },
         [field](const Args& a, const EvalContext&) {
           return IsInterval(a[0].type) ? IntervalField(field, a[0]) : Field(field, a[0].i);
         }});
    // GROUP BY hour(time) and its kind read every row: the civil fields by arithmetic over a
    // vector, not a broken-down time (and the field's name) per row.
    if (const std::optional<CivilField> civil = CivilFieldNamed(field)) {
      scalars->back().eval_batch = [civil = *civil](const std::vector<Vector>& a, Vector* out) {
        if (a[0].type != kTs && a[0].type != DataType::kTime) return false;
        for (size_t i = 0; i < out->size(); ++i) {
          if (a[0].nulls[i]) continue;
          out->ints[i] = CivilFieldOf(civil, a[0].ints[i]);
          out->nulls[i] = 0;
        }
        return true;
      };
    }
  }

  // Math ---------------------------------------------------------------------
  add({"abs", "abs(x) -> same type", "Absolute value.",
       [](const Types& t) { return SameNumeric(t, "abs(number)"); },
       [](const Args& a, const EvalContext& c) {
         if (a[0].type != DataType::kBigint) return Datum::Double(std::fabs(a[0].d));
         if (a[0].i >= 0) return a[0];
         std::optional<int64_t> r = CheckedNegate(a[0].i);
         if (!r) {
           if (c.error.empty()) c.error = NegationOverflowMessage(DataType::kBigint, "abs", a[0].i);
           return Datum::Null(DataType::kBigint);
         }
         return Datum::Bigint(*r);
       }});
  scalars->back().can_fail = true;
  add({"round", "round(x [, digits]) -> same type", "Rounds half away from zero.",
       [](const Types& t) -> absl::StatusOr<DataType> {
         if (t.empty() || t.size() > 2 || !Accepts(P::kNumeric, t[0]) ||
             (t.size() == 2 && !Accepts(P::kBigint, t[1]))) {
           return WrongArguments("round(number [, bigint])");
         }
         return t[0] == DataType::kUnknown ? DataType::kDouble : t[0];
       },
       [](const Args& a, const EvalContext&) {
         if (a[0].type == DataType::kBigint) return a[0];
         double scale = std::pow(10.0, a.size() > 1 ? static_cast<double>(a[1].i) : 0.0);
         return Datum::Double(std::round(a[0].d * scale) / scale);
       }});
  for (auto [name, fn] : {std::pair{"ceil", +[](double x) { return std::ceil(x); }},
                          std::pair{"ceiling", +[](double x) { return std::ceil(x); }},
                          std::pair{"floor", +[](double x) { return std::floor(x); }}}) {
    auto f = fn;
    add({name, StrCat(name, "(x) -> same type"), StrCat("Rounds ", std::string(name) == "floor" ? "down." : "up."),
         [n = std::string(name)](const Types& t) { return SameNumeric(t, n + "(number)"); },
         [f](const Args& a, const EvalContext&) {
           return a[0].type == DataType::kBigint ? a[0] : Datum::Double(f(a[0].d));
         }});
  }
  for (auto [name, doc, fn] :
       {std::tuple{"sqrt", "Square root.", +[](double x) { return std::sqrt(x); }},
        std::tuple{"ln", "Natural logarithm.", +[](double x) { return std::log(x); }},
        std::tuple{"log10", "Base-10 logarithm.", +[](double x) { return std::log10(x); }},
        std::tuple{"log2", "Base-2 logarithm.", +[](double x) { return std::log2(x); }},
        std::tuple{"exp", "e to the power x.", +[](double x) { return std::exp(x); }}}) {
    auto f = fn;
    add({name, StrCat(name, "(x) -> double"), doc,
         Fixed({P::kNumeric}, kDbl, StrCat(name, "(number)")),
         [f](const Args& a, const EvalContext&) { return Datum::Double(f(a[0].AsDouble())); }});
  }
  for (std::string name : {"pow", "power"}) {
    add({name, StrCat(name, "(x, p) -> double"), "x to the power p.",
         Fixed({P::kNumeric, P::kNumeric}, kDbl, StrCat(name, "(number, number)")),
         [](const Args& a, const EvalContext&) {
           return Datum::Double(std::pow(a[0].AsDouble(), a[1].AsDouble()));
         }});
  }
  add({"mod", "mod(n, m) -> same type",
       "Remainder of n / m (sign of n); integer m = 0 fails the query (\"Division by zero\").",
       [](const Types& t) -> absl::StatusOr<DataType> {
         if (t.size() != 2 || !Accepts(P::kNumeric, t[0]) || !Accepts(P::kNumeric, t[1])) {
           return WrongArguments("mod(number, number)");
         }
         return (t[0] == DataType::kBigint && t[1] == DataType::kBigint) ? DataType::kBigint
                                                                          : DataType::kDouble;
       },
       [](const Args& a, const EvalContext& c) {
         if (a[0].type == DataType::kBigint && a[1].type == DataType::kBigint) {
           if (a[1].i == 0) {
             if (c.error.empty()) c.error = kDivisionByZero;
             return Datum::Null(DataType::kBigint);
           }
           return Datum::Bigint(*CheckedIntegerOp('%', a[0].i, a[1].i));  // never overflows
         }
         return Datum::Double(std::fmod(a[0].AsDouble(), a[1].AsDouble()));
       }});
  add({"sign", "sign(x) -> same type", "-1, 0 or 1.",
       [](const Types& t) { return SameNumeric(t, "sign(number)"); },
       [](const Args& a, const EvalContext&) {
         double v = a[0].AsDouble();
         int s = (v > 0) - (v < 0);
         return a[0].type == DataType::kBigint ? Datum::Bigint(s) : Datum::Double(s);
       }});
  add({"is_nan", "is_nan(double) -> boolean", "True for NaN.",
       Fixed({P::kNumeric}, kBool, "is_nan(double)"),
       [](const Args& a, const EvalContext&) { return Datum::Bool(std::isnan(a[0].AsDouble())); }});
  add({"nan", "nan() -> double", "Not-a-number.", Fixed({}, kDbl, "nan()"),
       [](const Args&, const EvalContext&) { return Datum::Double(std::nan("")); }});
  add({"infinity", "infinity() -> double", "Positive infinity.", Fixed({}, kDbl, "infinity()"),
       [](const Args&, const EvalContext&) {
         return Datum::Double(std::numeric_limits<double>::infinity());
       }});
  for (auto [name, greatest] : {std::pair{"greatest", true}, std::pair{"least", false}}) {
    std::string sig = StrCat(name, "(x, y, ...) -> common type");
    add({name, sig,
         StrCat("The ", greatest ? "largest" : "smallest", " argument; NULL if any is NULL."),
         [sig](const Types& t) { return CommonElementType(t, sig); },
         [g = greatest](const Args& a, const EvalContext&) {
           Datum best = a[0];
           DataType type = a[0].type;
           for (const Datum& d : a) {
             if (d.type == DataType::kDouble) type = DataType::kDouble;
             if (g ? Compare(d, best) > 0 : Compare(d, best) < 0) best = d;
           }
           return CoerceTo(best, type);
         }});
  }

  add({"typeof", "typeof(x) -> varchar",
       "The name of x's type ('bigint', 'array(double)', 'unknown' for a bare NULL); a "
       "constant of the statement, so x is not evaluated.",
       [](const Types& t) -> absl::StatusOr<DataType> {
         if (t.size() != 1) return WrongArguments("typeof(x)");
         return DataType::kVarchar;
       },
       // The binder replaces every call by its constant (query/expr/expr.cc).
       [](const Args& a, const EvalContext&) {
         return Datum::Varchar(std::string(TypeName(a[0].type)));
       },
       false});

  add({"pg_typeof", "pg_typeof(x) -> varchar",
       "PostgreSQL's name of x's type ('bigint', 'double precision', 'text', 'timestamp with "
       "time zone', 'bigint[]'; 'unknown' for a bare NULL); a constant of the statement, as "
       "typeof.",
       [](const Types& t) -> absl::StatusOr<DataType> {
         if (t.size() != 1) return WrongArguments("pg_typeof(x)");
         return DataType::kVarchar;
       },
       // The binder replaces every call by its constant (query/expr/expr.cc).
       [](const Args& a, const EvalContext&) {
         return Datum::Varchar(std::string(PostgresTypeName(a[0].type)));
       },
       false});

  // Conditional ----------------------------------------------------------------
  add({"coalesce", "coalesce(x, y, ...) -> common type", "The first argument that is not NULL.",
       [](const Types& t) { return CommonElementType(t, "coalesce(x, y, ...)"); },
       [](const Args& a, const EvalContext&) {
         DataType type = DataType::kUnknown;
         for (const Datum& d : a) {
           if (d.type == DataType::kDouble) type = DataType::kDouble;
         }
         for (const Datum& d : a) {
           if (!d.null) return type == DataType::kDouble ? CoerceTo(d, type) : d;
         }
         return Datum::Null();
       },
       false});
  add({"nullif", "nullif(x, y) -> type of x", "NULL if x = y, else x.",
       [](const Types& t) -> absl::StatusOr<DataType> {
         if (t.size() != 2) return WrongArguments("nullif(x, y)");
         return t[0];
       },
       [](const Args& a, const EvalContext&) {
         if (!a[0].null && !a[1].null && SqlEquals(a[0], a[1])) return Datum::Null(a[0].type);
         return a[0];
       },
       false});
  add({"if", "if(condition, a [, b]) -> common type", "a when the condition is true, else b (or NULL).",
       [](const Types& t) -> absl::StatusOr<DataType> {
         if (t.size() < 2 || t.size() > 3 || !Accepts(P::kBoolean, t[0])) {
           return WrongArguments("if(boolean, a [, b])");
         }
         return CommonElementType(Types(t.begin() + 1, t.end()), "if(boolean, a [, b])");
       },
       [](const Args& a, const EvalContext&) {
         bool double_result = a[1].type == DataType::kDouble ||
                              (a.size() > 2 && a[2].type == DataType::kDouble);
         Datum out = a[0].truthy() ? a[1] : (a.size() > 2 ? a[2] : Datum::Null(a[1].type));
         return double_result ? CoerceTo(out, DataType::kDouble) : out;
       },
       false});

  for (const bool nulls : {true, false}) {
    const std::string name = nulls ? "num_nulls" : "num_nonnulls";
    add({name, StrCat(name, "(x, ...) -> bigint"),
         StrCat("How many of the arguments are ", nulls ? "" : "not ", "NULL (PostgreSQL's)."),
         [name](const Types& t) -> absl::StatusOr<DataType> {
           if (t.empty()) return WrongArguments(StrCat(name, "(x, ...)"));
           return kBig;
         },
         [nulls](const Args& a, const EvalContext&) {
           const auto null_count =
               std::count_if(a.begin(), a.end(), [](const Datum& d) { return d.null; });
           return Datum::Bigint(nulls ? null_count : std::ssize(a) - null_count);
         },
         false});
  }
  add({"isfinite", "isfinite(timestamp | date | interval) -> boolean",
       "True: PostgreSQL's test for its 'infinity' values, which Strata's times do not have.",
       [](const Types& t) -> absl::StatusOr<DataType> {
         if (t.size() != 1 || !(Accepts(P::kTimestamp, t[0]) || IsInterval(t[0]))) {
           return WrongArguments("isfinite(timestamp | date | interval)");
         }
         return kBool;
       },
       [](const Args&, const EvalContext&) { return Datum::Bool(true); }});

  add({"try", "try(x) -> type of x",
       "x, or NULL where evaluating x fails (a division by zero, a CAST, an overflow).",
       [](const Types& t) -> absl::StatusOr<DataType> {
         if (t.size() != 1) return WrongArguments("try(expression)");
         return t[0];
       },
       nullptr, false});
  scalars->back().catches_errors = true;

  // Strings --------------------------------------------------------------------
  add({"lower", "lower(varchar) -> varchar",
       "Lower case, each character by Unicode's simple case mapping ('É' to 'é').",
       Fixed({P::kVarchar}, kStr, "lower(varchar)"),
       [](const Args& a, const EvalContext&) { return Datum::Varchar(Utf8ToLower(a[0].s)); }});
  add({"upper", "upper(varchar) -> varchar",
       "Upper case, each character by Unicode's simple case mapping ('é' to 'É'; 'ß' stays).",
       Fixed({P::kVarchar}, kStr, "upper(varchar)"),
       [](const Args& a, const EvalContext&) { return Datum::Varchar(Utf8ToUpper(a[0].s)); }});
  add({"initcap", "initcap(varchar) -> varchar",
       "Each word's first letter in upper case and the rest in lower case, a word being a run of "
       "letters and digits (PostgreSQL's): initcap('hello wORLD') is 'Hello World'.",
       Fixed({P::kVarchar}, kStr, "initcap(varchar)"),
       [](const Args& a, const EvalContext&) { return Datum::Varchar(Utf8InitCap(a[0].s)); }});
  // char_length and character_length are the standard's (and PostgreSQL's) names.
  for (const std::string name : {"length", "char_length", "character_length"}) {
    add({name, StrCat(name, "(varchar) -> bigint"), "Length in characters (UTF-8 code points).",
         Fixed({P::kVarchar}, kBig, StrCat(name, "(varchar)")),
         [](const Args& a, const EvalContext&) { return Datum::Bigint(Utf8Length(a[0].s)); }});
  }
  add({"octet_length", "octet_length(varchar) -> bigint",
       "Length in bytes of the UTF-8 text: octet_length('héllo') is 6.",
       Fixed({P::kVarchar}, kBig, "octet_length(varchar)"), [](const Args& a, const EvalContext&) {
         return Datum::Bigint(static_cast<int64_t>(a[0].s.size()));
       }});
  add({"bit_length", "bit_length(varchar) -> bigint",
       "Length in bits of the UTF-8 text: bit_length('é') is 16.",
       Fixed({P::kVarchar}, kBig, "bit_length(varchar)"), [](const Args& a, const EvalContext&) {
         return Datum::Bigint(8 * static_cast<int64_t>(a[0].s.size()));
       }});
  for (std::string name : {"substr", "substring"}) {
    add({name, StrCat(name, "(varchar, start [, length]) -> varchar"),
         "The substring from 1-based start (negative counts from the end).",
         Fixed({P::kVarchar, P::kBigint, P::kBigint}, kStr, StrCat(name, "(varchar, bigint [, bigint])"), 1),
         [](const Args& a, const EvalContext&) {
           // Positions and lengths count code points, so a cut never
           // splits a character.
           std::string_view s = a[0].s;
           const int64_t n = Utf8Length(s);
           int64_t start = a[1].i > 0 ? a[1].i - 1 : (a[1].i < 0 ? n + a[1].i : -1);
           if (start < 0 || start >= n) return Datum::Varchar("");
           int64_t len = a.size() > 2 ? a[2].i : n - start;
           if (len < 0) return Datum::Varchar("");
           s.remove_prefix(Utf8Offset(s, start));
           return Datum::Varchar(std::string(s.substr(0, Utf8Offset(s, std::min(len, n - start)))));
         }});
  }
  add({"overlay", "overlay(varchar, replacement, start [, count]) -> varchar",
       "The text with count characters from start (1-based; count defaults to the "
       "replacement's length) replaced (PostgreSQL's, also written overlay(s PLACING r FROM "
       "start FOR count)): overlay('Txxxxas', 'hom', 2, 4) is 'Thomas'.",
       Fixed({P::kVarchar, P::kVarchar, P::kBigint, P::kBigint}, kStr,
             "overlay(varchar, varchar, bigint [, bigint])", 1),
       [](const Args& a, const EvalContext& c) {
         const std::string_view s = a[0].s;
         const int64_t start = a[2].i;
         const int64_t count = a.size() > 3 ? a[3].i : Utf8Length(a[1].s);
         if (start < 1) {
           return FailStartBeforeFirst(c, "overlay", start, kStr);
         }
         // Where the rest resumes: start + count, counted from 1 and clamped to the text.
         const int64_t resume =
             count > INT64_MAX - start ? INT64_MAX : std::max<int64_t>(1, start + count);
         std::string out(s.substr(0, Utf8Offset(s, start - 1)));
         out += a[1].s;
         out += s.substr(Utf8Offset(s, resume - 1));
         if (out.size() > kMaxTextBytes) return FailQuery(c, TextTooLongMessage("overlay()"), kStr);
         return Datum::Varchar(std::move(out));
       }});
  scalars->back().can_fail = true;
  // PostgreSQL's left(s, n) and right(s, n): n code points from one end; a negative n leaves
  // out |n| from the other end.
  for (const bool from_left : {true, false}) {
    const std::string name = from_left ? "left" : "right";
    add({name, StrCat(name, "(varchar, n) -> varchar"),
         from_left ? "The first n characters; with a negative n, all but the last |n| "
                     "(PostgreSQL's): left('abcde', 2) is 'ab', left('abcde', -2) 'abc'."
                   : "The last n characters; with a negative n, all but the first |n| "
                     "(PostgreSQL's): right('abcde', 2) is 'de', right('abcde', -2) 'cde'.",
         Fixed({P::kVarchar, P::kBigint}, kStr, StrCat(name, "(varchar, bigint)")),
         [from_left](const Args& a, const EvalContext&) {
           const std::string_view s = a[0].s;
           const int64_t n = Utf8Length(s);
           const int64_t count =
               a[1].i >= 0 ? std::min(a[1].i, n) : std::max<int64_t>(0, n + a[1].i);
           return Datum::Varchar(std::string(from_left ? s.substr(0, Utf8Offset(s, count))
                                                       : s.substr(Utf8Offset(s, n - count))));
         }});
  }
  add({"concat", "concat(varchar, ...) -> varchar", "Joins strings (also written a || b).",
       [](const Types& t) -> absl::StatusOr<DataType> {
         if (t.empty()) return WrongArguments("concat(varchar, ...)");
         for (DataType d : t) {
           if (!Accepts(P::kVarchar, d)) return WrongArguments("concat(varchar, ...)");
         }
         return DataType::kVarchar;
       },
       [](const Args& a, const EvalContext& c) {
         std::string out;
         size_t size = 0;
         for (const Datum& d : a) size += d.s.size();
         if (size > kMaxTextBytes) {
           if (c.error.empty()) c.error = TextTooLongMessage("concat()");
           return Datum::Null(DataType::kVarchar);
         }
         for (const Datum& d : a) out += d.s;
         return Datum::Varchar(std::move(out));
       }});
  scalars->back().can_fail = true;
  add({"replace", "replace(varchar, search [, replacement]) -> varchar",
       "Replaces every occurrence of search (with '' when no replacement is given).",
       Fixed({P::kVarchar, P::kVarchar, P::kVarchar}, kStr, "replace(varchar, varchar [, varchar])", 1),
       [](const Args& a, const EvalContext& c) {
         const std::string& s = a[0].s;
         const std::string& from = a[1].s;
         const std::string to = a.size() > 2 ? a[2].s : "";
         if (from.empty()) return Datum::Varchar(s);
         // One pass into a new string (replacing in place moved the tail
         // once per match), refusing a result past kMaxTextBytes.
         std::string out;
         size_t start = 0;
         for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, start)) {
           if (out.size() + (p - start) + to.size() > kMaxTextBytes) {
             if (c.error.empty()) c.error = TextTooLongMessage("replace()");
             return Datum::Null(DataType::kVarchar);
           }
           out.append(s, start, p - start).append(to);
           start = p + from.size();
         }
         out.append(s, start, std::string::npos);
         return Datum::Varchar(std::move(out));
       }});
  scalars->back().can_fail = true;
  // btrim is PostgreSQL's name of trim.
  for (auto [name, left, right] :
       {std::tuple{"trim", true, true}, std::tuple{"btrim", true, true},
        std::tuple{"ltrim", true, false}, std::tuple{"rtrim", false, true}}) {
    const std::string usage = StrCat(name, "(varchar [, characters])");
    add({name, StrCat(usage, " -> varchar"),
         StrCat("Removes ",
                left && right ? "leading and trailing"
                : left        ? "leading"
                              : "trailing",
                " spaces, or any of the given characters; also written trim(",
                left && right ? "BOTH"
                : left        ? "LEADING"
                              : "TRAILING",
                " 'c' FROM s)."),
         [usage](const Types& t) -> absl::StatusOr<DataType> {
           if (t.empty() || t.size() > 2 || !Accepts(P::kVarchar, t[0]) ||
               (t.size() == 2 && !Accepts(P::kVarchar, t[1]))) {
             return WrongArguments(usage);
           }
           return DataType::kVarchar;
         },
         [l = left, r = right](const Args& a, const EvalContext&) {
           std::string_view s = a[0].s;
           if (a.size() < 2) {
             while (l && !s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
               s.remove_prefix(1);
             while (r && !s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
               s.remove_suffix(1);
             return Datum::Varchar(std::string(s));
           }
           // Characters of UTF-8: a multi-byte one is removed whole or not at all.
           const std::string_view set = a[1].s;
           const auto in_set = [set](std::string_view c) {
             for (size_t i = 0; i < set.size();) {
               const size_t n = std::max<size_t>(Utf8CharLength(set.substr(i)), 1);
               if (set.substr(i, n) == c) return true;
               i += n;
             }
             return false;
           };
           while (l && !s.empty()) {
             const size_t n = std::max<size_t>(Utf8CharLength(s), 1);
             if (!in_set(s.substr(0, n))) break;
             s.remove_prefix(n);
           }
           while (r && !s.empty()) {
             size_t start = s.size() - 1;  // the last character's first byte
             while (start > 0 && (static_cast<unsigned char>(s[start]) & 0xC0) == 0x80) --start;
             if (!in_set(s.substr(start))) break;
             s.remove_suffix(s.size() - start);
           }
           return Datum::Varchar(std::string(s));
         }});
  }
  add({"regexp_like", "regexp_like(varchar, pattern) -> boolean",
       "True if the pattern (RE2 regular expression, linear time) matches anywhere in the string.",
       Fixed({P::kVarchar, P::kVarchar}, kBool, "regexp_like(varchar, varchar)"),
       [](const Args& a, const EvalContext& c) {
         absl::StatusOr<const re2::RE2*> pattern = CompiledPattern(a[1].s);
         if (!pattern.ok()) {
           if (c.error.empty()) c.error = std::string(pattern.status().message());
           return Datum::Null(DataType::kBoolean);
         }
         return Datum::Bool(re2::RE2::PartialMatch(a[0].s, **pattern));
       }});
  scalars->back().can_fail = true;
  add({"starts_with", "starts_with(varchar, prefix) -> boolean", "True if the string starts with prefix.",
       Fixed({P::kVarchar, P::kVarchar}, kBool, "starts_with(varchar, varchar)"),
       [](const Args& a, const EvalContext&) { return Datum::Bool(a[0].s.rfind(a[1].s, 0) == 0); }});
  add({"strpos", "strpos(varchar, substring) -> bigint", "1-based position of substring, 0 if absent.",
       Fixed({P::kVarchar, P::kVarchar}, kBig, "strpos(varchar, varchar)"),
       [](const Args& a, const EvalContext&) {
         size_t p = a[0].s.find(a[1].s);
         if (p == std::string::npos) return Datum::Bigint(0);
         return Datum::Bigint(Utf8Length(std::string_view(a[0].s).substr(0, p)) + 1);
       }});

  // Aggregates -------------------------------------------------------------------
  auto agg = [aggregates](AggregateFunction f) { aggregates->push_back(std::move(f)); };
  agg({"count", "count(*) | count(x) -> bigint", "Rows, or rows where x is not NULL.",
       [](const Types& t) -> absl::StatusOr<DataType> {
         if (t.size() > 1) return WrongArguments("count(*) or count(x)");
         return DataType::kBigint;
       },
       [](const Types& t) { return std::make_unique<CountAcc>(t.empty()); }, StatsUse::kCount});
  agg({"count_if", "count_if(boolean) -> bigint", "Rows where the condition is true.",
       Fixed({P::kBoolean}, kBig, "count_if(boolean)"),
       [](const Types&) { return std::make_unique<CountIfAcc>(); }});
  agg({"sum", "sum(x) -> bigint | double", "Sum of the non-NULL values.",
       [](const Types& t) { return SameNumeric(t, "sum(number)"); },
       [](const Types& t) { return std::make_unique<SumAcc>(t[0] == DataType::kBigint ? DataType::kBigint : DataType::kDouble); },
       StatsUse::kSum});
  agg({"avg", "avg(x) -> double", "Mean of the non-NULL values.",
       Fixed({P::kNumeric}, kDbl, "avg(number)"),
       [](const Types& t) { return std::make_unique<AvgAcc>(t[0] == DataType::kBigint); },
       StatsUse::kSum});
  for (auto [name, output, doc] :
       {std::tuple{"stddev", MomentsAcc::Output::kStddevSamp, "Sample standard deviation."},
        std::tuple{"stddev_samp", MomentsAcc::Output::kStddevSamp, "Sample standard deviation."},
        std::tuple{"stddev_pop", MomentsAcc::Output::kStddevPop, "Population standard deviation."},
        std::tuple{"variance", MomentsAcc::Output::kVarSamp, "Sample variance."},
        std::tuple{"var_samp", MomentsAcc::Output::kVarSamp, "Sample variance."},
        std::tuple{"var_pop", MomentsAcc::Output::kVarPop, "Population variance."}}) {
    auto o = output;
    agg({name, StrCat(name, "(x) -> double"), doc, Fixed({P::kNumeric}, kDbl, StrCat(name, "(number)")),
         [o](const Types&) { return std::make_unique<MomentsAcc>(o); }});
  }
  // With n, the n best as an array (functions_top_n.cc); the fast paths (block statistics,
  // partial states in cluster fragments, last points) take the forms without n only.
  for (auto [name, max] : {std::pair{"max", true}, std::pair{"min", false}}) {
    const char* which = max ? "largest" : "smallest";
    agg({name, StrCat(name, "(x [, n]) -> type of x | array"),
         StrCat("The ", which, " value; with n, the n ", which, " values as an array, ", which,
                " first (n from 1 to 10000)."),
         [n = std::string(name)](const Types& t) -> absl::StatusOr<DataType> {
           if (t.size() == 2 && Accepts(P::kBigint, t[1])) return Interned(ArrayOf(t[0]));
           if (t.size() != 1) return WrongArguments(n + "(x [, bigint])");
           return t[0];
         },
         [nm = std::string_view(name), m = max](const Types& t) -> std::unique_ptr<Accumulator> {
           if (t.size() == 2) return MakeTopN(nm, m, /*by=*/false, *ArrayOf(t[0]));
           return std::make_unique<ExtremeAcc>(m);
         },
         StatsUse::kExtremes});
  }
  for (auto [name, max] : {std::pair{"max_by", true}, std::pair{"min_by", false}}) {
    const char* which = max ? "largest" : "smallest";
    agg({name, StrCat(name, "(x, y [, n]) -> type of x | array"),
         StrCat("x of the row with the ", which, " y; with n, x of the n rows with the ", which,
                " y as an array, in that order (n from 1 to 10000)."),
         [n = std::string(name)](const Types& t) -> absl::StatusOr<DataType> {
           if (t.size() == 3 && Accepts(P::kBigint, t[2])) return Interned(ArrayOf(t[0]));
           if (t.size() != 2) return WrongArguments(n + "(x, y [, bigint])");
           return t[0];
         },
         [nm = std::string_view(name), m = max](const Types& t) -> std::unique_ptr<Accumulator> {
           if (t.size() == 3) return MakeTopN(nm, m, /*by=*/true, *ArrayOf(t[0]));
           return std::make_unique<ByAcc>(m, t[0]);
         }});
  }
  agg({"arbitrary", "arbitrary(x) -> type of x", "Some non-NULL value of the group.",
       [](const Types& t) -> absl::StatusOr<DataType> {
         if (t.size() != 1) return WrongArguments("arbitrary(x)");
         return t[0];
       },
       [](const Types&) { return std::make_unique<ArbitraryAcc>(); }});
  for (auto [name, all] : {std::pair{"bool_and", true}, std::pair{"every", true},
                           std::pair{"bool_or", false}}) {
    agg({name, StrCat(name, "(boolean) -> boolean"),
         all ? "True if every value is true." : "True if any value is true.",
         Fixed({P::kBoolean}, kBool, StrCat(name, "(boolean)")),
         [a = all](const Types&) { return std::make_unique<BoolAcc>(a); }});
  }
  agg({"approx_percentile",
       "approx_percentile(x, [w,] p | ARRAY[p, ...] [, accuracy]) -> type of x | array",
       "The value at percentile p (0..1) of the group, or an array of the values at each "
       "percentile (computed exactly, so the accuracy is checked and not needed). A BIGINT "
       "weight w >= 1 counts its row's x w times.",
       [](const Types& t) -> absl::StatusOr<DataType> {
         constexpr std::string_view kSignature =
             "approx_percentile(number, [bigint,] double | array(double) [, double])";
         const PercentileArgs at = PercentileArgsOf(t);
         const size_t arity =
             static_cast<size_t>(at.accuracy >= 0 ? at.accuracy : at.percentile) + 1;
         if (t.size() < 2 || t.size() != arity || !Accepts(P::kNumeric, t[0]) ||
             (at.accuracy >= 0 && !Accepts(P::kNumeric, t[at.accuracy]))) {
           return WrongArguments(kSignature);
         }
         const DataType value = t[0] == DataType::kBigint ? DataType::kBigint : DataType::kDouble;
         const DataType p = t[at.percentile];
         if (Accepts(P::kNumeric, p)) return value;
         if (KindOf(p) == TypeKind::kArray && Accepts(P::kNumeric, ElementType(p))) {
           return Interned(ArrayOf(value));
         }
         return WrongArguments(kSignature);
       },
       [](const Types& t) {
         const DataType value = t[0] == DataType::kBigint ? DataType::kBigint : DataType::kDouble;
         const PercentileArgs at = PercentileArgsOf(t);
         return std::make_unique<PercentileAcc>(
             KindOf(t[at.percentile]) == TypeKind::kArray ? *ArrayOf(value) : value, at);
       }});
  agg({"approx_distinct", "approx_distinct(x [, e]) -> bigint",
       "The number of distinct non-NULL values (computed exactly, so the standard error e, "
       "0.0040625 to 0.26, is checked and not needed).",
       [](const Types& t) -> absl::StatusOr<DataType> {
         if (t.empty() || t.size() > 2 || (t.size() == 2 && !Accepts(P::kNumeric, t[1]))) {
           return WrongArguments("approx_distinct(x [, double])");
         }
         return DataType::kBigint;
       },
       [](const Types&) { return std::make_unique<DistinctCountAcc>(); }});
}

}  // namespace strata::query
