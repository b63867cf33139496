#include "server/scheduler/schedule_expression.h"

#include <array>
#include <cctype>
#include <charconv>
#include <vector>

#include "absl/time/civil_time.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "common/status.h"
#include "common/strings.h"

namespace strata {
namespace {

constexpr int kFirstYear = 1970;
constexpr int kLastYear = 2199;
constexpr size_t kMaxExpressionBytes = 256;

// Splits on `separator`, dropping empty pieces when `skip_empty`.
std::vector<std::string_view> Split(std::string_view text, char separator, bool skip_empty) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    const size_t end = text.find(separator, start);
    std::string_view piece = text.substr(start, end == std::string_view::npos ? end : end - start);
    if (!piece.empty() || !skip_empty) out.push_back(piece);
    if (end == std::string_view::npos) return out;
    start = end + 1;
  }
}

std::string Upper(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

absl::Status Invalid(std::string_view expression, std::string_view why) {
  return absl::InvalidArgumentError(StrCat("schedule expression \"", expression, "\": ", why));
}

struct Field {
  const char* name;
  int low, high;
  // Names for the values (JAN.. or SUN..), index 0 meaning `low`.
  std::vector<std::string_view> names;
};

std::optional<int> ParseNumber(std::string_view text, const Field& field) {
  const std::string upper = Upper(text);
  for (size_t i = 0; i < field.names.size(); ++i) {
    if (upper == field.names[i]) return field.low + static_cast<int>(i);
  }
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// Sets the values one cron field selects into `out` (index = value).
template <size_t N>
absl::Status ParseField(std::string_view expression, std::string_view text, const Field& field,
                        std::bitset<N>* out, int offset = 0) {
  for (std::string_view part : Split(text, ',', false)) {
    int step = 1;
    std::string_view range = part;
    if (size_t slash = part.find('/'); slash != std::string_view::npos) {
      range = part.substr(0, slash);
      auto parsed = ParseNumber(part.substr(slash + 1), Field{field.name, 1, 1, {}});
      if (!parsed || *parsed < 1) {
        return Invalid(expression, StrCat("the step in ", field.name, " \"", part,
                                          "\" must be a whole number of at least 1"));
      }
      step = *parsed;
    }
    int first = field.low, last = field.high;
    if (range != "*") {
      const size_t dash = range.find('-');
      auto a = ParseNumber(range.substr(0, dash), field);
      auto b = dash == std::string_view::npos ? a : ParseNumber(range.substr(dash + 1), field);
      if (!a || !b || *a < field.low || *b > field.high || *a > *b) {
        return Invalid(expression,
                       StrCat(field.name, " \"", part, "\" is not a value or range within ",
                              field.low, "-", field.high,
                              field.names.empty() ? ""
                                                  : StrCat(" (or ", field.names.front(), "-",
                                                           field.names.back(), ")"),
                              "; W, # and L (except a day-of-month of L) are not supported"));
      }
      first = *a;
      // "a/n" runs from a to the end of the field, as in EventBridge.
      last = (dash == std::string_view::npos && step > 1) ? field.high : *b;
    }
    for (int v = first; v <= last; v += step) out->set(v - offset);
  }
  return absl::OkStatus();
}

int DaysInMonth(int year, int month) {
  return static_cast<int>(absl::CivilDay(absl::CivilMonth(year, month) + 1) -
                          absl::CivilDay(absl::CivilMonth(year, month)));
}

}  // namespace

absl::StatusOr<Schedule> Schedule::Parse(std::string_view expression) {
  if (expression.empty() || expression.size() > kMaxExpressionBytes) {
    return absl::InvalidArgumentError(
        "a schedule expression is 1..256 characters: rate(5 minutes) or cron(0 * * * ? *)");
  }
  std::string_view body = StripWhitespace(expression);
  auto inside = [&](std::string_view prefix) -> std::optional<std::string_view> {
    if (body.size() < prefix.size() + 2 ||
        Upper(body.substr(0, prefix.size())) != Upper(prefix) || body.back() != ')') {
      return std::nullopt;
    }
    return StripWhitespace(body.substr(prefix.size(), body.size() - prefix.size() - 1));
  };
  Schedule schedule;
  if (auto rate = inside("rate(")) {
    std::vector<std::string_view> words = Split(*rate, ' ', true);
    int64_t value = 0;
    if (words.size() == 2) {
      auto [end, ec] = std::from_chars(words[0].data(), words[0].data() + words[0].size(), value);
      if (ec != std::errc() || end != words[0].data() + words[0].size()) value = 0;
    }
    const std::string unit = words.size() == 2 ? Upper(words[1]) : "";
    int64_t unit_nanos = 0;
    if (unit == "MINUTE" || unit == "MINUTES") unit_nanos = kNanosPerMinute;
    if (unit == "HOUR" || unit == "HOURS") unit_nanos = kNanosPerHour;
    if (unit == "DAY" || unit == "DAYS") unit_nanos = kNanosPerDay;
    if (value < 1 || unit_nanos == 0 || value > 3650 * kNanosPerDay / unit_nanos) {
      return Invalid(expression,
                     "a rate is rate(N minutes|hours|days) with N a whole number from 1 "
                     "(at most ten years), e.g. rate(5 minutes)");
    }
    schedule.rate_nanos_ = value * unit_nanos;
    return schedule;
  }
  auto cron = inside("cron(");
  if (!cron) {
    return Invalid(expression, "write rate(5 minutes) or cron(minutes hours day-of-month month "
                               "day-of-week year), e.g. cron(0 12 * * ? *)");
  }
  std::vector<std::string_view> fields = Split(*cron, ' ', true);
  if (fields.size() != 6) {
    return Invalid(expression, StrCat("a cron has 6 fields (minutes hours day-of-month month "
                                      "day-of-week year), not ", fields.size()));
  }
  RETURN_IF_ERROR(ParseField(expression, fields[0], {"minutes", 0, 59, {}}, &schedule.minutes_));
  RETURN_IF_ERROR(ParseField(expression, fields[1], {"hours", 0, 23, {}}, &schedule.hours_));
  schedule.any_day_of_month_ = fields[2] == "?";
  schedule.any_day_of_week_ = fields[4] == "?";
  if (schedule.any_day_of_month_ == schedule.any_day_of_week_) {
    return Invalid(expression, "exactly one of day-of-month and day-of-week must be ?, e.g. "
                               "cron(0 12 * * ? *) or cron(0 12 ? * MON-FRI *)");
  }
  if (fields[2] == "L") {
    schedule.last_day_of_month_ = true;
  } else if (!schedule.any_day_of_month_) {
    RETURN_IF_ERROR(
        ParseField(expression, fields[2], {"day-of-month", 1, 31, {}}, &schedule.days_of_month_));
  }
  RETURN_IF_ERROR(ParseField(expression, fields[3],
                             {"month", 1, 12,
                              {"JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP",
                               "OCT", "NOV", "DEC"}},
                             &schedule.months_));
  if (!schedule.any_day_of_week_) {
    RETURN_IF_ERROR(ParseField(expression, fields[4],
                               {"day-of-week", 1, 7, {"SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"}},
                               &schedule.days_of_week_));
  }
  RETURN_IF_ERROR(ParseField(expression, fields[5], {"year", kFirstYear, kLastYear, {}},
                             &schedule.years_, kFirstYear));
  return schedule;
}

bool Schedule::CronDayMatches(int year, int month, int day) const {
  if (!any_day_of_month_) {
    return last_day_of_month_ ? day == DaysInMonth(year, month) : days_of_month_[day];
  }
  // absl: Monday = 0 ... Sunday = 6; EventBridge: Sunday = 1 ... Saturday = 7.
  const int weekday = static_cast<int>(absl::GetWeekday(absl::CivilDay(year, month, day)));
  return days_of_week_[(weekday + 1) % 7 + 1];
}

std::optional<int64_t> Schedule::NextAfter(int64_t after_nanos) const {
  if (rate_nanos_ > 0) {
    // Floor division, so times before the epoch work too.
    int64_t periods = after_nanos / rate_nanos_;
    if (after_nanos < 0 && after_nanos % rate_nanos_ != 0) --periods;
    return (periods + 1) * rate_nanos_;
  }
  const absl::TimeZone utc = absl::UTCTimeZone();
  absl::CivilMinute t = absl::ToCivilMinute(absl::FromUnixNanos(after_nanos), utc) + 1;
  while (t.year() <= kLastYear) {
    if (t.year() < kFirstYear || !years_[t.year() - kFirstYear]) {
      t = absl::CivilMinute(absl::CivilYear(t) + 1);
    } else if (!months_[t.month()]) {
      t = absl::CivilMinute(absl::CivilMonth(t) + 1);
    } else if (!CronDayMatches(static_cast<int>(t.year()), t.month(), t.day())) {
      t = absl::CivilMinute(absl::CivilDay(t) + 1);
    } else if (!hours_[t.hour()]) {
      t = absl::CivilMinute(absl::CivilHour(t) + 1);
    } else if (!minutes_[t.minute()]) {
      t += 1;
    } else {
      return absl::ToUnixNanos(absl::FromCivil(t, utc));
    }
  }
  return std::nullopt;
}

}  // namespace strata
