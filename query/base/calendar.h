// Calendar arithmetic on UTC timestamps (nanoseconds since the epoch):
// months are not fixed durations, so adding them goes through the civil
// date. Shared by SQL's `+ INTERVAL 'n' MONTH` (expr.cc) and date_add
// (functions.cc).
#pragma once

#include <cstdint>
#include <optional>

namespace strata::query {

// More months than this are refused (timestamps span under 600 years, and
// the civil calendar's int fields must not overflow).
inline constexpr int64_t kMaxCalendarMonths = 12 * 1000;

// `nanos` moved by `months`, keeping the time of day; a day past the end of
// the target month becomes its last day (Jan 31 + 1 month = Feb 28/29).
// nullopt when the result is not a representable timestamp.
std::optional<int64_t> AddMonths(int64_t nanos, int64_t months);

}  // namespace strata::query
