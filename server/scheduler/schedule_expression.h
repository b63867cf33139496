// The schedule of a scheduled query, in Amazon EventBridge's syntax as
// Timestream takes it, always in UTC:
//
//   rate(N minute|minutes|hour|hours|day|days)   N >= 1
//       fires at every multiple of the period since the Unix epoch (so
//       rate(5 minutes) fires at :00, :05, ... whenever it was created).
//   cron(minutes hours day-of-month month day-of-week year)
//       each field a list of values, ranges (a-b), steps (a/n, a-b/n, */n)
//       or *; months 1-12 or JAN-DEC; days of week 1-7 (1 = Sunday) or
//       SUN-SAT; years 1970-2199. One of day-of-month and day-of-week must
//       be ?; day-of-month L is the month's last day. W, # and L in day-of-
//       week are refused with a message (not supported).
#pragma once

#include <bitset>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace strata {

class Schedule {
 public:
  // INVALID_ARGUMENT says which part of `expression` is wrong.
  static absl::StatusOr<Schedule> Parse(std::string_view expression);

  // The first invocation strictly after `after_nanos` (since the Unix
  // epoch, UTC); nullopt when there is none (a cron whose years are over).
  std::optional<int64_t> NextAfter(int64_t after_nanos) const;

 private:
  bool CronDayMatches(int year, int month, int day) const;

  int64_t rate_nanos_ = 0;  // > 0: a rate schedule
  std::bitset<60> minutes_;
  std::bitset<24> hours_;
  std::bitset<32> days_of_month_;  // 1..31
  bool last_day_of_month_ = false;
  bool any_day_of_month_ = false;  // '?'
  std::bitset<13> months_;         // 1..12
  std::bitset<8> days_of_week_;    // 1..7, 1 = Sunday
  bool any_day_of_week_ = false;   // '?'
  std::bitset<230> years_;         // 1970..2199
};

}  // namespace strata
