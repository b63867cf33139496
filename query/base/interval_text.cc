#include "query/base/interval_text.h"

#include <cctype>
#include <cmath>
#include <string>

#include "common/clock.h"
#include "common/strings.h"
#include "common/utf8.h"

namespace strata::query {
namespace {

bool IsAgo(std::string_view rest) {
  return rest.size() >= 3 && std::tolower(static_cast<unsigned char>(rest[0])) == 'a' &&
         std::tolower(static_cast<unsigned char>(rest[1])) == 'g' &&
         std::tolower(static_cast<unsigned char>(rest[2])) == 'o';
}

struct Unit {
  std::string_view names[4];  // singular first; every spelling, lower case
  int64_t nanos;              // 0 for calendar units
  int64_t months;
};

constexpr Unit kUnits[] = {
    {{"microsecond", "microseconds", "us", "usec"}, 1'000, 0},
    {{"millisecond", "milliseconds", "ms", "msec"}, 1'000'000, 0},
    {{"second", "seconds", "s", "sec"}, kNanosPerSecond, 0},
    {{"minute", "minutes", "m", "min"}, 60 * kNanosPerSecond, 0},
    {{"hour", "hours", "h", "hr"}, 3600 * kNanosPerSecond, 0},
    {{"day", "days", "d", ""}, 86'400 * kNanosPerSecond, 0},
    {{"week", "weeks", "w", ""}, 7 * 86'400 * kNanosPerSecond, 0},
    {{"month", "months", "mon", "mons"}, 0, 1},
    {{"year", "years", "y", "yr"}, 0, 12},
};

const Unit* FindUnit(std::string_view word) {
  std::string lower(word);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "secs" || lower == "mins" || lower == "hrs" || lower == "yrs") lower.pop_back();
  for (const Unit& unit : kUnits) {
    for (std::string_view name : unit.names) {
      if (!name.empty() && lower == name) return &unit;
    }
  }
  return nullptr;
}

absl::Status NotAnInterval(std::string_view text, std::string_view why) {
  return absl::InvalidArgumentError(
      StrCat("'", EchoInput(text), "' is not an interval (", why,
             "); write e.g. '1 hour', '5 minutes', '1 day 2 hours' or '01:30:00'"));
}

// `hh:mm[:ss[.fff]]` as nanoseconds; false if it is not one.
bool ParseClock(std::string_view clock, long double* nanos) {
  long double parts[3] = {0, 0, 0};
  int count = 0;
  size_t start = 0;
  while (start <= clock.size() && count < 3) {
    const size_t colon = clock.find(':', start);
    const std::string_view part =
        clock.substr(start, colon == std::string_view::npos ? std::string_view::npos : colon - start);
    if (part.empty() || part.find_first_not_of("0123456789.") != std::string_view::npos) return false;
    parts[count++] = std::strtold(std::string(part).c_str(), nullptr);
    if (colon == std::string_view::npos) break;
    start = colon + 1;
  }
  if (count < 2) return false;
  *nanos = ((parts[0] * 60 + parts[1]) * 60 + parts[2]) * kNanosPerSecond;
  return true;
}

}  // namespace

absl::StatusOr<IntervalText> ParseIntervalText(std::string_view text) {
  long double nanos = 0;
  int64_t months = 0;
  bool any = false;
  bool negate = false;
  size_t at = 0;
  auto skip_spaces = [&] {
    while (at < text.size() && std::isspace(static_cast<unsigned char>(text[at]))) ++at;
  };
  skip_spaces();
  while (at < text.size()) {
    // "ago" ends the text and negates it.
    if (IsAgo(text.substr(at))) {
      at += 3;
      skip_spaces();
      if (at != text.size() || !any) return NotAnInterval(text, "\"ago\" ends it");
      negate = true;
      break;
    }
    const size_t number_start = at;
    if (text[at] == '+' || text[at] == '-') ++at;
    while (at < text.size() && (std::isdigit(static_cast<unsigned char>(text[at])) ||
                                text[at] == '.' || text[at] == ':')) {
      ++at;
    }
    const std::string_view number = text.substr(number_start, at - number_start);
    const std::string_view digits =
        number.empty() || (number[0] != '+' && number[0] != '-') ? number : number.substr(1);
    if (digits.empty() || digits.find_first_of("0123456789") == std::string_view::npos) {
      return NotAnInterval(text, "an amount must come before each unit");
    }
    const bool negative = number[0] == '-';
    if (digits.find(':') != std::string_view::npos) {
      long double clock = 0;
      if (!ParseClock(digits, &clock)) return NotAnInterval(text, "a time must be hh:mm[:ss]");
      nanos += negative ? -clock : clock;
      any = true;
      skip_spaces();
      continue;
    }
    if (digits.find('.') != digits.rfind('.')) return NotAnInterval(text, "one decimal point per amount");
    skip_spaces();
    const size_t unit_start = at;
    while (at < text.size() && std::isalpha(static_cast<unsigned char>(text[at]))) ++at;
    const std::string_view word = text.substr(unit_start, at - unit_start);
    const Unit* unit = word.empty() ? nullptr : FindUnit(word);
    if (unit == nullptr) {
      return NotAnInterval(text, word.empty() ? StrCat("\"", number, "\" has no unit")
                                              : StrCat("\"", EchoInput(word, 20), "\" is not a unit"));
    }
    const long double amount = std::strtold(std::string(number).c_str(), nullptr);
    if (unit->months != 0) {
      if (digits.find('.') != std::string_view::npos) {
        return NotAnInterval(text, "months and years are whole numbers");
      }
      if (amount * unit->months > 12'000 || amount * unit->months < -12'000) {
        return NotAnInterval(text, "more than 1,000 years");
      }
      months += static_cast<int64_t>(amount) * unit->months;
    } else {
      nanos += amount * unit->nanos;
    }
    any = true;
    skip_spaces();
  }
  if (!any) return NotAnInterval(text, "it is empty");
  if (months > 12'000 || months < -12'000) return NotAnInterval(text, "more than 1,000 years");
  // Timestamps are int64 nanoseconds: a longer duration means nothing.
  if (std::fabs(static_cast<double>(nanos)) > 9.2e18) return NotAnInterval(text, "longer than 292 years");
  if (months != 0 && nanos != 0) {
    return absl::InvalidArgumentError(StrCat(
        "'", EchoInput(text),
        "' mixes months or years with days or time; Strata keeps the two "
        "kinds apart: add them to a timestamp one after the other, e.g. ts + interval '1 month' + "
        "interval '2 days'"));
  }
  IntervalText out{.months = months, .nanos = static_cast<int64_t>(std::llround(nanos))};
  if (negate) {
    out.months = -out.months;
    out.nanos = -out.nanos;
  }
  return out;
}

int64_t DurationUnitNanos(std::string_view unit) {
  struct Entry {
    std::string_view short_name, long_name;
    int64_t nanos;
  };
  static constexpr Entry kUnits[] = {{"ns", "nanosecond", 1},
                                     {"us", "microsecond", 1'000},
                                     {"ms", "millisecond", 1'000'000},
                                     {"s", "second", 1'000'000'000},
                                     {"m", "minute", 60'000'000'000},
                                     {"h", "hour", 3'600'000'000'000},
                                     {"d", "day", 86'400'000'000'000}};
  for (const Entry& e : kUnits) {
    if (EqualsIgnoreCase(unit, e.short_name) || EqualsIgnoreCase(unit, e.long_name)) {
      return e.nanos;
    }
  }
  return 0;
}

}  // namespace strata::query
