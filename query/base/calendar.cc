#include "query/base/calendar.h"

#include <algorithm>
#include <ctime>

#include "common/clock.h"
#include "common/time_format.h"
#include "query/base/checked_math.h"

namespace strata::query {
namespace {

bool LeapYear(int year) { return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0); }

}  // namespace

std::optional<int64_t> AddMonths(int64_t nanos, int64_t months) {
  if (months > kMaxCalendarMonths || months < -kMaxCalendarMonths) return std::nullopt;
  const int64_t sub = nanos - FloorDiv(nanos, kNanosPerSecond) * kNanosPerSecond;
  std::tm tm = ToUtcTm(nanos);
  const int64_t total = tm.tm_year * 12LL + tm.tm_mon + months;
  tm.tm_year = static_cast<int>(FloorDiv(total, 12));
  tm.tm_mon = static_cast<int>(total - FloorDiv(total, 12) * 12);
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const int last = kDays[tm.tm_mon] + (tm.tm_mon == 1 && LeapYear(tm.tm_year + 1900));
  tm.tm_mday = std::min(tm.tm_mday, last);
  std::optional<int64_t> whole =
      CheckedIntegerOp('*', static_cast<int64_t>(timegm(&tm)), kNanosPerSecond);
  return whole ? CheckedIntegerOp('+', *whole, sub) : std::nullopt;
}

}  // namespace strata::query
