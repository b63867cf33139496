#include "query/base/datetime_text.h"

#include <array>
#include <cctype>
#include <ctime>
#include <optional>
#include <vector>

#include "absl/strings/ascii.h"
#include "common/clock.h"
#include "common/strings.h"
#include "common/time_format.h"
#include "common/utf8.h"
#include "query/base/checked_math.h"
#include "query/base/datetime_parts.h"

namespace strata::query {
namespace {

using datetime::AddLiteral;
using datetime::Field;
using datetime::LetterCase;
using datetime::Part;

constexpr std::array<const char*, 12> kMonthNames = {
    "January", "February", "March",     "April",   "May",      "June",
    "July",    "August",   "September", "October", "November", "December"};
constexpr std::array<const char*, 7> kWeekdayNames = {"Sunday",   "Monday", "Tuesday", "Wednesday",
                                                      "Thursday", "Friday", "Saturday"};

bool IsNumeric(Field f) {
  switch (f) {
    case Field::kLiteral: case Field::kMonthShort: case Field::kMonthLong: case Field::kAmPm:
    case Field::kWeekdayShort: case Field::kWeekdayLong: case Field::kZone: case Field::kOffset:
    case Field::kEra:
    case Field::kRomanMonth:
    case Field::kOffsetHours:
    case Field::kYearComma:
      return false;
    default:
      return true;
  }
}

absl::StatusOr<std::vector<Part>> CompileMysql(std::string_view pattern) {
  std::vector<Part> parts;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '%' || i + 1 == pattern.size()) {
      AddLiteral(&parts, pattern.substr(i, 1));
      continue;
    }
    const char spec = pattern[++i];
    auto field = [&](Field f, int width) { parts.push_back({.field = f, .width = width}); };
    switch (spec) {
      case 'Y': field(Field::kYear, 4); break;
      case 'y': field(Field::kYear2, 2); break;
      case 'm': field(Field::kMonth, 2); break;
      case 'c': field(Field::kMonth, 1); break;
      case 'b': field(Field::kMonthShort, 0); break;
      case 'M': field(Field::kMonthLong, 0); break;
      case 'd': field(Field::kDay, 2); break;
      case 'e': field(Field::kDay, 1); break;
      case 'j': field(Field::kDayOfYear, 3); break;
      case 'H': field(Field::kHour24, 2); break;
      case 'k': field(Field::kHour24, 1); break;
      case 'h': case 'I': field(Field::kHour12, 2); break;
      case 'l': field(Field::kHour12, 1); break;
      case 'i': field(Field::kMinute, 2); break;
      case 's': case 'S': field(Field::kSecond, 2); break;
      case 'f': field(Field::kFraction, 6); break;
      case 'p': field(Field::kAmPm, 0); break;
      case 'a': field(Field::kWeekdayShort, 0); break;
      case 'W': field(Field::kWeekdayLong, 0); break;
      case 'v': field(Field::kWeekOfYear, 2); break;
      case 'x': field(Field::kWeekYear, 4); break;
      case 'T':
        field(Field::kHour24, 2), AddLiteral(&parts, ":"), field(Field::kMinute, 2);
        AddLiteral(&parts, ":"), field(Field::kSecond, 2);
        break;
      case 'r':
        field(Field::kHour12, 2), AddLiteral(&parts, ":"), field(Field::kMinute, 2);
        AddLiteral(&parts, ":"), field(Field::kSecond, 2), AddLiteral(&parts, " ");
        field(Field::kAmPm, 0);
        break;
      case '%': AddLiteral(&parts, "%"); break;
      default:
        return absl::InvalidArgumentError(StrCat(
            "the specifier %", EchoInput(std::string_view(&pattern[i], 1)),
            " is not supported; use %Y %y %m %c %b %M %d %e %j %H %k %h %I %l %i %s %S %f %p %a "
            "%W %v %x %T %r or %%"));
    }
  }
  return parts;
}

absl::StatusOr<std::vector<Part>> CompileJoda(std::string_view pattern) {
  std::vector<Part> parts;
  for (size_t i = 0; i < pattern.size();) {
    const char ch = pattern[i];
    if (ch == '\'') {  // 'quoted text'; '' is one quote
      const size_t close = pattern.find('\'', i + 1);
      if (close == std::string_view::npos) {
        return absl::InvalidArgumentError("a quote in the pattern is not closed");
      }
      AddLiteral(&parts, close == i + 1 ? "'" : pattern.substr(i + 1, close - i - 1));
      i = close + 1;
      continue;
    }
    if (!std::isalpha(static_cast<unsigned char>(ch))) {
      AddLiteral(&parts, pattern.substr(i, 1));
      ++i;
      continue;
    }
    size_t run = 1;
    while (i + run < pattern.size() && pattern[i + run] == ch) ++run;
    const int n = static_cast<int>(run);
    auto field = [&](Field f, int width) { parts.push_back({.field = f, .width = width}); };
    switch (ch) {
      case 'y': case 'Y': field(n == 2 ? Field::kYear2 : Field::kYear, n == 2 ? 2 : n); break;
      case 'x': field(Field::kWeekYear, n); break;
      case 'M': field(n >= 4 ? Field::kMonthLong : n == 3 ? Field::kMonthShort : Field::kMonth, n); break;
      case 'd': field(Field::kDay, n); break;
      case 'D': field(Field::kDayOfYear, n); break;
      case 'H': field(Field::kHour24, n); break;
      case 'h': field(Field::kHour12, n); break;
      case 'K': field(Field::kHour0To11, n); break;
      case 'k': field(Field::kHour1To24, n); break;
      case 'm': field(Field::kMinute, n); break;
      case 's': field(Field::kSecond, n); break;
      case 'S':
        if (n > 9) return absl::InvalidArgumentError("S gives at most 9 fraction digits (nanoseconds)");
        field(Field::kFraction, n);
        break;
      case 'a': field(Field::kAmPm, 0); break;
      case 'E': field(n >= 4 ? Field::kWeekdayLong : Field::kWeekdayShort, 0); break;
      case 'e': field(Field::kWeekdayNumber, n); break;
      case 'w': field(Field::kWeekOfYear, n); break;
      case 'z': field(Field::kZone, 0); break;
      case 'Z': field(Field::kOffset, n); break;
      default:
        return absl::InvalidArgumentError(StrCat(
            "the pattern letter ", std::string(1, ch),
            " is not supported; use y M d D H h K k m s S a E e w x z Z, and quotes for text"));
    }
    i += run;
  }
  return parts;
}

absl::StatusOr<std::vector<Part>> Compile(std::string_view pattern, PatternLanguage language) {
  switch (language) {
    case PatternLanguage::kMysql:
      return CompileMysql(pattern);
    case PatternLanguage::kJoda:
      return CompileJoda(pattern);
    case PatternLanguage::kPostgres:
      return datetime::CompilePostgres(pattern);
  }
  return absl::InternalError("unknown pattern language");
}

std::string Padded(int64_t v, int width) {
  std::string digits = std::to_string(v < 0 ? -v : v);
  if (static_cast<int>(digits.size()) < width) digits.insert(0, width - digits.size(), '0');
  return v < 0 ? "-" + digits : digits;
}

// The Julian day number of 1970-01-01 (PostgreSQL's J).
constexpr int64_t kJulianDayOfEpoch = 2'440'588;

constexpr std::array<const char*, 12> kRomanMonths = {"I",   "II",   "III", "IV", "V",  "VI",
                                                      "VII", "VIII", "IX",  "X",  "XI", "XII"};

// A year's last `tail` digits (all of it when tail is 0).
int64_t Tail(int64_t year, int tail) {
  int64_t modulus = 1;
  for (int i = 0; i < tail; ++i) modulus *= 10;
  return tail == 0 ? year : year % modulus;
}

// A number as its part writes it: padded to the part's width (not under FM),
// then its English ordinal suffix under TH (upper case) or th.
void AppendNumber(int64_t v, const Part& part, std::string* out) {
  *out += Padded(v, part.fill ? 1 : part.width);
  if (part.ordinal == 0) return;
  const int64_t last2 = v % 100, last = v % 10;
  std::string suffix = last2 >= 11 && last2 <= 13 ? "th"
                       : last == 1                ? "st"
                       : last == 2                ? "nd"
                       : last == 3                ? "rd"
                                                  : "th";
  if (part.ordinal == 1) absl::AsciiStrToUpper(&suffix);
  *out += suffix;
}

// A name as its part writes it: in its letter case, blank-padded to pad_to.
void AppendName(std::string_view name, const Part& part, std::string* out) {
  std::string text(name);
  if (part.letter_case == LetterCase::kUpper) absl::AsciiStrToUpper(&text);
  if (part.letter_case == LetterCase::kLower) absl::AsciiStrToLower(&text);
  if (static_cast<int>(text.size()) < part.pad_to) text.append(part.pad_to - text.size(), ' ');
  *out += text;
}

// ISO 8601 week and week-numbering year of a broken-down time.
std::pair<int, int> IsoWeek(const std::tm& tm) {
  char week[8], year[16];
  std::strftime(week, sizeof(week), "%V", &tm);
  std::strftime(year, sizeof(year), "%G", &tm);
  return {std::atoi(week), std::atoi(year)};
}

bool LeapYear(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int DaysInMonth(int64_t y, int m) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && LeapYear(y) ? 29 : kDays[m - 1];
}

// What a parse read; unset fields take the epoch's (1970-01-01 00:00:00).
struct Parsed {
  int64_t year = 1970;
  int month = 1, day = 1, day_of_year = 0;
  int hour = 0, minute = 0, second = 0;
  int64_t nanos = 0;
  int hour12 = -1;   // from h or K, combined with am/pm
  bool pm = false;
  int64_t offset_seconds = 0;
  bool offset_negative = false;      // TZH's sign, for TZM
  std::optional<int64_t> epoch_day;  // from a Julian day (J)
};

// PostgreSQL's year of fewer than four digits (YY, YYY), taken nearest to 2020:
// 0-69 → 2000s, 70-99 → 1900s, 100-519 → 2100s, 520-999 → 1520-1999.
int64_t NearestTo2020(int64_t year) {
  if (year < 70) return year + 2000;
  if (year < 100) return year + 1900;
  if (year < 520) return year + 2000;
  if (year < 1000) return year + 1000;
  return year;
}

// The most digits a numeric part reads when no other number follows it.
size_t MostDigits(const Part& part) {
  switch (part.field) {
    case Field::kFraction:
      return 9;
    case Field::kYear:
    case Field::kWeekYear:
      return part.tail > 0 ? part.tail : 4;
    case Field::kDayOfYear:
    case Field::kIsoDayOfYear:
      return 3;
    case Field::kSecondsOfDay:
      return 5;
    case Field::kJulianDay:
      return 7;
    case Field::kQuarter:
    case Field::kWeekdaySunday1:
    case Field::kWeekOfMonth:
      return 1;
    default:
      return 2;
  }
}

// Reads a case-insensitive name from `names` (or its first three letters
// when `short_form`); the index or -1.
int ReadName(std::string_view* text, const char* const* names, size_t count, bool short_form) {
  for (size_t i = 0; i < count; ++i) {
    std::string_view name = names[i];
    if (short_form) name = name.substr(0, 3);
    if (text->size() < name.size()) continue;
    bool same = true;
    for (size_t k = 0; k < name.size() && same; ++k) {
      same = std::tolower(static_cast<unsigned char>((*text)[k])) ==
             std::tolower(static_cast<unsigned char>(name[k]));
    }
    if (same) {
      text->remove_prefix(name.size());
      return static_cast<int>(i);
    }
  }
  return -1;
}

absl::Status Mismatch(std::string_view text, std::string_view rest, std::string_view expected) {
  return absl::InvalidArgumentError(
      StrCat("'", EchoInput(text), "' does not match the pattern at character ",
             text.size() - rest.size() + 1, " (expected ", expected, ")"));
}

absl::StatusOr<int64_t> ToNanos(const Parsed& p, std::string_view text) {
  auto out_of_range = [&](std::string_view what) {
    return absl::InvalidArgumentError(StrCat("'", EchoInput(text), "': the ", what, " is out of range"));
  };
  int hour = p.hour;
  if (p.hour12 >= 0) hour = p.hour12 % 12 + (p.pm ? 12 : 0);
  if (p.month < 1 || p.month > 12) return out_of_range("month");
  if (p.day < 1 || p.day > DaysInMonth(p.year, p.month)) return out_of_range("day");
  if (hour > 23) return out_of_range("hour");
  if (p.minute > 59) return out_of_range("minute");
  if (p.second > 59) return out_of_range("second");
  int64_t days = p.epoch_day ? *p.epoch_day : DaysFromCivil(p.year, p.month, p.day);
  if (p.day_of_year > 0) {
    if (p.day_of_year > (LeapYear(p.year) ? 366 : 365)) return out_of_range("day of the year");
    days = DaysFromCivil(p.year, 1, 1) + p.day_of_year - 1;
  }
  if (p.year < 1677 || p.year > 2262) return out_of_range("year (1677 to 2262)");
  const int64_t seconds = days * 86'400 + hour * 3600 + p.minute * 60 + p.second - p.offset_seconds;
  std::optional<int64_t> nanos = CheckedIntegerOp('*', seconds, kNanosPerSecond);
  if (nanos) nanos = CheckedIntegerOp('+', *nanos, p.nanos);
  if (!nanos) return out_of_range("time (1677-09-21 to 2262-04-11)");
  return *nanos;
}

}  // namespace

absl::StatusOr<std::string> FormatTimestampPattern(int64_t nanos, std::string_view pattern,
                                                   PatternLanguage language) {
  absl::StatusOr<std::vector<Part>> parts = Compile(pattern, language);
  if (!parts.ok()) return parts.status();
  const std::tm tm = ToUtcTm(nanos);
  const int64_t sub = SubsecondNanos(nanos);
  const int64_t year = tm.tm_year + 1900LL;
  std::string out;
  for (const Part& part : *parts) {
    auto number = [&](int64_t v) { AppendNumber(v, part, &out); };
    auto name = [&](std::string_view text) { AppendName(text, part, &out); };
    switch (part.field) {
      case Field::kLiteral: out += part.literal; break;
      case Field::kYear:
        number(Tail(year, part.tail));
        break;
      case Field::kYear2: out += Padded(((year % 100) + 100) % 100, 2); break;
      case Field::kYearComma:
        out += StrCat(year / 1000, ",", Padded(year % 1000, 3));
        break;
      case Field::kMonth:
        number(tm.tm_mon + 1);
        break;
      case Field::kMonthShort:
        name(std::string_view(kMonthNames[tm.tm_mon]).substr(0, 3));
        break;
      case Field::kMonthLong:
        name(kMonthNames[tm.tm_mon]);
        break;
      case Field::kRomanMonth:
        name(kRomanMonths[tm.tm_mon]);
        break;
      case Field::kQuarter:
        number(tm.tm_mon / 3 + 1);
        break;
      case Field::kDay:
        number(tm.tm_mday);
        break;
      case Field::kDayOfYear:
        number(tm.tm_yday + 1);
        break;
      case Field::kIsoDayOfYear:
        number((IsoWeek(tm).first - 1) * 7 + (tm.tm_wday == 0 ? 7 : tm.tm_wday));
        break;
      case Field::kHour24:
        number(tm.tm_hour);
        break;
      case Field::kHour12:
        number(tm.tm_hour % 12 == 0 ? 12 : tm.tm_hour % 12);
        break;
      case Field::kHour0To11:
        number(tm.tm_hour % 12);
        break;
      case Field::kHour1To24:
        number(tm.tm_hour == 0 ? 24 : tm.tm_hour);
        break;
      case Field::kMinute:
        number(tm.tm_min);
        break;
      case Field::kSecond:
        number(tm.tm_sec);
        break;
      case Field::kSecondsOfDay:
        number(tm.tm_hour * 3600 + tm.tm_min * 60 + tm.tm_sec);
        break;
      case Field::kFraction: out += Padded(sub, 9).substr(0, part.width); break;
      case Field::kAmPm:
        name(tm.tm_hour < 12 ? (part.dotted ? "A.M." : "AM") : (part.dotted ? "P.M." : "PM"));
        break;
      case Field::kEra:
        name(part.dotted ? "A.D." : "AD");
        break;
      case Field::kWeekdayShort:
        name(std::string_view(kWeekdayNames[tm.tm_wday]).substr(0, 3));
        break;
      case Field::kWeekdayLong:
        name(kWeekdayNames[tm.tm_wday]);
        break;
      case Field::kWeekdayNumber:
        number(tm.tm_wday == 0 ? 7 : tm.tm_wday);
        break;
      case Field::kWeekdaySunday1:
        number(tm.tm_wday + 1);
        break;
      case Field::kWeekOfYear:
        number(IsoWeek(tm).first);
        break;
      case Field::kWeekOfYearJan1:
        number(tm.tm_yday / 7 + 1);
        break;
      case Field::kWeekOfMonth:
        number((tm.tm_mday - 1) / 7 + 1);
        break;
      case Field::kWeekYear:
        number(Tail(IsoWeek(tm).second, part.tail));
        break;
      case Field::kCentury:
        number((year + 99) / 100);
        break;
      case Field::kJulianDay:
        number(FloorDiv(nanos, kNanosPerDay) + kJulianDayOfEpoch);
        break;
      case Field::kZone:
        name("UTC");
        break;
      case Field::kOffset: out += part.width >= 2 ? "+00:00" : "+0000"; break;
      case Field::kOffsetHours:
        out += "+00";
        break;
      case Field::kOffsetMinutes:
        number(0);
        break;
    }
  }
  return out;
}

absl::StatusOr<int64_t> ParseTimestampPattern(std::string_view text, std::string_view pattern,
                                              PatternLanguage language) {
  absl::StatusOr<std::vector<Part>> parts = Compile(pattern, language);
  if (!parts.ok()) return parts.status();
  Parsed p;
  std::string_view rest = text;
  for (size_t k = 0; k < parts->size(); ++k) {
    const Part& part = (*parts)[k];
    if (part.field == Field::kLiteral) {
      if (language == PatternLanguage::kPostgres) {
        // As PostgreSQL reads a template: a blank stands for any number of them.
        for (const char ch : part.literal) {
          if (ch == ' ') {
            while (!rest.empty() && rest[0] == ' ') rest.remove_prefix(1);
          } else if (!rest.empty() && rest[0] == ch) {
            rest.remove_prefix(1);
          } else {
            return Mismatch(text, rest, StrCat("'", part.literal, "'"));
          }
        }
        continue;
      }
      if (rest.substr(0, part.literal.size()) != part.literal) {
        return Mismatch(text, rest, StrCat("'", part.literal, "'"));
      }
      rest.remove_prefix(part.literal.size());
      continue;
    }
    if (IsNumeric(part.field)) {
      // Next to another number ('yyyyMMdd') a field takes exactly its
      // width; otherwise as many digits as it can hold.
      const bool adjacent = k + 1 < parts->size() && IsNumeric((*parts)[k + 1].field);
      const size_t most = MostDigits(part);
      const size_t take = adjacent ? static_cast<size_t>(std::max(part.width, 1)) : most;
      size_t n = 0;
      while (n < take && n < rest.size() && std::isdigit(static_cast<unsigned char>(rest[n]))) ++n;
      if (n == 0 || (adjacent && n < take)) return Mismatch(text, rest, "digits");
      int64_t v = 0;
      for (size_t i = 0; i < n; ++i) v = v * 10 + (rest[i] - '0');
      rest.remove_prefix(n);
      switch (part.field) {
        case Field::kYear:
        case Field::kWeekYear:
          p.year = part.tail > 0 ? NearestTo2020(v) : v;
          break;
        case Field::kYear2: p.year = v < 70 ? 2000 + v : 1900 + v; break;
        case Field::kMonth: p.month = static_cast<int>(v); break;
        case Field::kDay: p.day = static_cast<int>(v); break;
        case Field::kDayOfYear: p.day_of_year = static_cast<int>(v); break;
        case Field::kHour24: p.hour = static_cast<int>(v); break;
        case Field::kHour1To24: p.hour = static_cast<int>(v % 24); break;
        case Field::kHour12: case Field::kHour0To11:
          if (v > 12) return Mismatch(text, rest, "an hour from 1 to 12");
          p.hour12 = static_cast<int>(v);
          break;
        case Field::kMinute: p.minute = static_cast<int>(v); break;
        case Field::kSecond: p.second = static_cast<int>(v); break;
        case Field::kFraction:
          for (size_t i = n; i < 9; ++i) v *= 10;
          p.nanos = v;
          break;
        case Field::kSecondsOfDay:
          if (v >= 86'400) return Mismatch(text, rest, "seconds since midnight below 86400");
          p.hour = static_cast<int>(v / 3600), p.minute = static_cast<int>(v / 60 % 60);
          p.second = static_cast<int>(v % 60);
          break;
        case Field::kJulianDay:
          p.epoch_day = v - kJulianDayOfEpoch;
          break;
        case Field::kOffsetMinutes:
          p.offset_seconds += (p.offset_negative ? -60 : 60) * v;
          break;
        default:
          break;  // weeks, weekdays, quarters and centuries only check the shape
      }
      if (part.ordinal != 0 && rest.size() >= 2 &&
          std::isalpha(static_cast<unsigned char>(rest[0])) &&
          std::isalpha(static_cast<unsigned char>(rest[1]))) {
        rest.remove_prefix(2);  // 1st, 2ND, ...
      }
      continue;
    }
    switch (part.field) {
      case Field::kMonthShort: case Field::kMonthLong: {
        const int m = ReadName(&rest, kMonthNames.data(), 12, part.field == Field::kMonthShort);
        if (m < 0) return Mismatch(text, rest, "a month name");
        p.month = m + 1;
        break;
      }
      case Field::kRomanMonth: {
        // Longest first: VIII before VII before VI before V.
        static constexpr const char* kByLength[] = {"VIII", "III", "VII", "XII", "II", "IV",
                                                    "VI",   "IX",  "XI",  "I",   "V",  "X"};
        static constexpr int kMonthOf[] = {8, 3, 7, 12, 2, 4, 6, 9, 11, 1, 5, 10};
        const int m = ReadName(&rest, kByLength, 12, false);
        if (m < 0) return Mismatch(text, rest, "a month in roman numerals");
        p.month = kMonthOf[m];
        break;
      }
      case Field::kWeekdayShort: case Field::kWeekdayLong:
        if (ReadName(&rest, kWeekdayNames.data(), 7, part.field == Field::kWeekdayShort) < 0) {
          return Mismatch(text, rest, "a weekday name");
        }
        break;
      case Field::kAmPm: {
        static constexpr const char* kHalves[] = {"AM", "PM", "A.M.", "P.M."};
        const int half = ReadName(&rest, kHalves, 4, false);
        if (half < 0) return Mismatch(text, rest, "AM or PM");
        p.pm = half % 2 == 1;
        break;
      }
      case Field::kEra: {
        static constexpr const char* kEras[] = {"AD", "A.D.", "BC", "B.C."};
        const int era = ReadName(&rest, kEras, 4, false);
        if (era < 0) return Mismatch(text, rest, "AD or BC");
        if (era >= 2)
          return absl::InvalidArgumentError(
              StrCat("'", EchoInput(text), "': the year (1677 to 2262) is out of range"));
        break;
      }
      case Field::kYearComma: {
        int64_t v = 0;
        size_t n = 0;
        for (; n < rest.size() && n < 6; ++n) {
          if (rest[n] == ',' && n > 0) continue;
          if (!std::isdigit(static_cast<unsigned char>(rest[n]))) break;
          v = v * 10 + (rest[n] - '0');
        }
        if (n == 0) return Mismatch(text, rest, "a year such as 2,024");
        p.year = v;
        rest.remove_prefix(n);
        break;
      }
      case Field::kOffsetHours: {
        if (rest.size() < 3 || (rest[0] != '+' && rest[0] != '-') ||
            !std::isdigit(static_cast<unsigned char>(rest[1])) ||
            !std::isdigit(static_cast<unsigned char>(rest[2]))) {
          return Mismatch(text, rest, "an offset's hours such as +02");
        }
        p.offset_negative = rest[0] == '-';
        p.offset_seconds +=
            (p.offset_negative ? -3600 : 3600) * ((rest[1] - '0') * 10 + (rest[2] - '0'));
        rest.remove_prefix(3);
        break;
      }
      case Field::kZone:
        if (rest.substr(0, 3) == "UTC" || rest.substr(0, 3) == "GMT") {
          rest.remove_prefix(3);
        } else if (!rest.empty() && rest[0] == 'Z') {
          rest.remove_prefix(1);
        } else {
          return Mismatch(text, rest, "UTC (zones other than UTC are not supported)");
        }
        break;
      case Field::kOffset: {
        if (!rest.empty() && rest[0] == 'Z') {
          rest.remove_prefix(1);
          break;
        }
        if (rest.size() < 5 || (rest[0] != '+' && rest[0] != '-')) {
          return Mismatch(text, rest, "an offset such as +02:00");
        }
        const bool colon = rest[3] == ':';
        const std::string_view hh = rest.substr(1, 2), mm = rest.substr(colon ? 4 : 3, 2);
        const bool digits = mm.size() == 2 && std::isdigit(static_cast<unsigned char>(hh[0])) &&
                            std::isdigit(static_cast<unsigned char>(hh[1])) &&
                            std::isdigit(static_cast<unsigned char>(mm[0])) &&
                            std::isdigit(static_cast<unsigned char>(mm[1]));
        if (!digits) return Mismatch(text, rest, "an offset such as +02:00");
        const int64_t seconds = ((hh[0] - '0') * 10 + (hh[1] - '0')) * 3600 +
                                ((mm[0] - '0') * 10 + (mm[1] - '0')) * 60;
        p.offset_seconds = rest[0] == '-' ? -seconds : seconds;
        rest.remove_prefix(colon ? 6 : 5);
        break;
      }
      default: break;
    }
    // PostgreSQL pads month and day names to nine characters: the blanks go with the name.
    if (part.pad_to > 0) {
      while (!rest.empty() && rest[0] == ' ') rest.remove_prefix(1);
    }
  }
  if (!rest.empty()) return Mismatch(text, rest, "the end of the text");
  return ToNanos(p, text);
}

}  // namespace strata::query
