#include "common/time_format.h"

#include <cstdio>
#include <limits>

#include "common/clock.h"
#include "gtest/gtest.h"

namespace strata {
namespace {

constexpr int64_t kT = 1'684'356'879'123'000'000;  // 2023-05-17 20:54:39.123 UTC

TEST(TimeFormatTest, Formats) {
  EXPECT_EQ(FormatIso8601Millis(kT), "2023-05-17T20:54:39.123Z");
  EXPECT_EQ(FormatSqlTimestamp(kT), "2023-05-17 20:54:39.123000000");
  EXPECT_EQ(FormatSqlTimestamp(0), "1970-01-01 00:00:00.000000000");
  EXPECT_EQ(FormatSqlTimestamp(-1), "1969-12-31 23:59:59.999999999");
  EXPECT_EQ(FormatIso8601Millis(-1), "1969-12-31T23:59:59.999Z");
}

// The text gmtime_r and snprintf made before FormatSqlTimestamp formatted by hand.
std::string ByTheCLibrary(int64_t nanos) {
  std::tm tm = ToUtcTm(nanos);
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%04d-%02d-%02d %02d:%02d:%02d.%09lld", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<long long>(SubsecondNanos(nanos)));
  return buf;
}

TEST(TimeFormatTest, SqlTimestampsAsTheCLibraryWritesThem) {
  std::vector<int64_t> nanos = {0,
                                -1,
                                1,
                                kT,
                                -kT,
                                951'782'400'000'000'000,     // 2000-02-29
                                4'107'542'399'999'999'999,   // 2100-02-28 23:59:59.999999999
                                -2'208'988'800'000'000'000,  // 1900-01-01
                                std::numeric_limits<int64_t>::max(),
                                std::numeric_limits<int64_t>::min() + kNanosPerSecond};
  // Every day of some years either side of 1970, at an odd time of day.
  for (int64_t day = -800; day < 800; ++day) nanos.push_back(day * 86'400'000'000'123 + 7);
  for (int64_t day = -106'000; day < 106'000; day += 997) {  // the range's 292 years either way
    nanos.push_back(day * 86'400 * kNanosPerSecond + 86'399 * kNanosPerSecond);
  }
  for (int64_t n : nanos) EXPECT_EQ(FormatSqlTimestamp(n), ByTheCLibrary(n)) << n;
  // The C library's path overflowed here (nanos minus its subsecond part).
  EXPECT_EQ(FormatSqlTimestamp(std::numeric_limits<int64_t>::min()),
            "1677-09-21 00:12:43.145224192");
}

TEST(TimeFormatTest, CivilDatesAndDayNumbersRoundTrip) {
  EXPECT_EQ(CivilFromDays(0).year, 1970);
  const CivilDate leap_day = CivilFromDays(DaysFromCivil(2024, 2, 29));
  EXPECT_EQ(leap_day.year, 2024);
  EXPECT_EQ(leap_day.month, 2);
  EXPECT_EQ(leap_day.day, 29);
  EXPECT_EQ(DaysFromCivil(2023, 2, 29), DaysFromCivil(2023, 3, 1));  // counts on, as timegm
  for (int64_t day = -200'000; day < 200'000; day += 13) {
    const CivilDate date = CivilFromDays(day);
    ASSERT_EQ(DaysFromCivil(date.year, date.month, date.day), day);
    ASSERT_GE(date.month, 1);
    ASSERT_LE(date.month, 12);
    ASSERT_GE(date.day, 1);
    ASSERT_LE(date.day, 31);
  }
}

TEST(TimeFormatTest, Parses) {
  struct Case {
    const char* text;
    std::optional<int64_t> nanos;
  };
  const std::vector<Case> cases = {
      {"2023-05-17 20:54:39.123", kT},
      {"2023-05-17T20:54:39.123Z", kT},
      {"2023-05-17 20:54:39.123000000", kT},
      {"2023-05-17T22:54:39.123+02:00", kT},
      {"2023-05-17T19:54:39.123-01:00", kT},
      // PostgreSQL's timestamptz text: a whole hour's offset as +hh.
      {"2023-05-17 20:54:39.123+00", kT},
      {"2023-05-17 22:54:39.123+02", kT},
      {"2023-05-17 20:54:39.123+0", std::nullopt},
      {"2023-05-17 20:54:39.123+24", std::nullopt},
      {"2023-05-17 20:54:39.123+02:", std::nullopt},
      {"2023-05-17 20:54:39.123+02:60", std::nullopt},
      {"2023-05-17", kT - kT % kNanosPerDay},
      {"2023-05-17 20:54", kT - 39'123'000'000},
      {"1970-01-01 00:00:00.000000001", 1},
      // Read by hand as sscanf's %4d-%2d-%2d read it: 1 or 2 digit fields, a day past the
      // month's end counted into the next (as timegm did), leap years, the range's ends.
      {"2023-5-7 1:2:3", int64_t{1683421323} * 1'000'000'000},
      {"2023-02-30", int64_t{1677715200} * 1'000'000'000},
      {"2024-02-29 12:00:00", int64_t{1709208000} * 1'000'000'000},
      {"1900-03-01", int64_t{-2203891200} * 1'000'000'000},
      {"1970-01-01", 0},
      {"2262-04-11 23:47:16", int64_t{9223372036} * 1'000'000'000},
      {"2262-04-11 23:47:17", std::nullopt},
      {"0001-01-01", std::nullopt},
      {"2023-05-17 20:54:", std::nullopt},
      {"2023-05-17 20", std::nullopt},
      {"2023-13-01", std::nullopt},
      {"2023-05-17 25:00:00", std::nullopt},
      {"2023-05-17x", std::nullopt},
      {"yesterday", std::nullopt},
      {"", std::nullopt},
  };
  for (const Case& c : cases) EXPECT_EQ(ParseTimestamp(c.text), c.nanos) << c.text;
  EXPECT_EQ(ParseTimestamp(FormatSqlTimestamp(kT)), kT);
}

}  // namespace
}  // namespace strata
