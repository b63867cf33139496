#include "server/scheduler/schedule_expression.h"

#include "absl/time/civil_time.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace strata {
namespace {

int64_t At(int y, int mo, int d, int h, int mi, int s = 0) {
  return absl::ToUnixNanos(absl::FromCivil(absl::CivilSecond(y, mo, d, h, mi, s), absl::UTCTimeZone()));
}

struct NextCase {
  const char* expression;
  int64_t after;
  std::optional<int64_t> next;
};

TEST(ScheduleTest, NextInvocation) {
  const NextCase cases[] = {
      // Rates fire at multiples of the period since the epoch.
      {"rate(1 minute)", At(2026, 1, 1, 0, 0, 30), At(2026, 1, 1, 0, 1)},
      {"rate(1 minute)", At(2026, 1, 1, 0, 1), At(2026, 1, 1, 0, 2)},
      {"rate(5 minutes)", At(2026, 1, 1, 0, 7), At(2026, 1, 1, 0, 10)},
      {"rate(2 hours)", At(2026, 1, 1, 3, 0), At(2026, 1, 1, 4, 0)},
      {"rate(1 day)", At(2026, 1, 1, 0, 0), At(2026, 1, 2, 0, 0)},
      {" RATE(10 Minutes) ", At(2026, 1, 1, 0, 0), At(2026, 1, 1, 0, 10)},
      // Cron, in UTC.
      {"cron(0 * * * ? *)", At(2026, 1, 1, 0, 0), At(2026, 1, 1, 1, 0)},
      {"cron(15 10 * * ? *)", At(2026, 1, 1, 10, 15), At(2026, 1, 2, 10, 15)},
      {"cron(0/15 * * * ? *)", At(2026, 1, 1, 0, 50), At(2026, 1, 1, 1, 0)},
      {"cron(*/20 9-10 * * ? *)", At(2026, 1, 1, 10, 40), At(2026, 1, 2, 9, 0)},
      {"cron(0 0 1 * ? *)", At(2026, 1, 15, 0, 0), At(2026, 2, 1, 0, 0)},
      {"cron(0 0 L * ? *)", At(2026, 2, 1, 0, 0), At(2026, 2, 28, 0, 0)},
      {"cron(0 0 L * ? *)", At(2028, 2, 1, 0, 0), At(2028, 2, 29, 0, 0)},
      // 2026-01-01 is a Thursday; MON-FRI skips the weekend.
      {"cron(0 8 ? * MON-FRI *)", At(2026, 1, 2, 9, 0), At(2026, 1, 5, 8, 0)},
      {"cron(0 8 ? * 1 *)", At(2026, 1, 1, 0, 0), At(2026, 1, 4, 8, 0)},  // 1 = Sunday
      {"cron(0 0 1 JAN,JUL ? *)", At(2026, 2, 1, 0, 0), At(2026, 7, 1, 0, 0)},
      {"cron(30 12 25 12 ? 2027)", At(2026, 1, 1, 0, 0), At(2027, 12, 25, 12, 30)},
      {"cron(0 0 1 1 ? 2025)", At(2026, 1, 1, 0, 0), std::nullopt},
  };
  for (const NextCase& c : cases) {
    auto schedule = Schedule::Parse(c.expression);
    ASSERT_TRUE(schedule.ok()) << c.expression << ": " << schedule.status();
    EXPECT_EQ(schedule->NextAfter(c.after), c.next) << c.expression;
  }
}

TEST(ScheduleTest, BadExpressionsSayWhatIsWrong) {
  const std::pair<const char*, const char*> cases[] = {
      {"", "1..256 characters"},
      {"every 5 minutes", "write rate(5 minutes) or cron("},
      {"rate(0 minutes)", "whole number from 1"},
      {"rate(5 seconds)", "rate(N minutes|hours|days)"},
      {"rate(five minutes)", "whole number"},
      {"cron(0 * * * *)", "6 fields"},
      {"cron(0 * * * * *)", "exactly one of day-of-month and day-of-week must be ?"},
      {"cron(0 * ? * ? *)", "exactly one of day-of-month and day-of-week must be ?"},
      {"cron(60 * * * ? *)", "minutes \"60\" is not a value or range within 0-59"},
      {"cron(0 24 * * ? *)", "hours \"24\""},
      {"cron(0 0 ? * MON#2 *)", "W, # and L"},
      {"cron(0 0 15W * ? *)", "W, # and L"},
      {"cron(0 0 * FOO ? *)", "JAN-DEC"},
      {"cron(0/0 * * * ? *)", "step"},
      {"cron(0 0 1 1 ? 1900)", "1970-2199"},
  };
  for (const auto& [expression, message] : cases) {
    auto schedule = Schedule::Parse(expression);
    ASSERT_FALSE(schedule.ok()) << expression;
    EXPECT_EQ(schedule.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(std::string(schedule.status().message()).find(message), std::string::npos)
        << expression << ": " << schedule.status().message();
  }
}

}  // namespace
}  // namespace strata
