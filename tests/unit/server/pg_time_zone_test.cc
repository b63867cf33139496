// PostgreSQL's TimeZone setting read as PostgreSQL reads it, and timestamps written in a zone
// as its timestamptz text is (server/pg/time_zone_setting.h).
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "query/base/time_zone.h"
#include "server/pg/time_zone_setting.h"

namespace strata::pg {
namespace {

TEST(PgTimeZoneSettingTest, ReadsWhatPostgresAccepts) {
  struct Case {
    std::string value;
    std::optional<std::string> zone;
  };
  const Case cases[] = {
      {"Europe/Berlin", "Europe/Berlin"},
      {"europe/berlin", "Europe/Berlin"},  // any letter case
      {"america/new_york", "America/New_York"},
      {"UTC", "UTC"},
      {"utc", "UTC"},
      {"Etc/UTC", "UTC"},
      {"local", "UTC"},  // SET TIME ZONE LOCAL: the server's, UTC
      {"DEFAULT", "UTC"},
      {"-7", "-07:00"},  // SET TIME ZONE -7: hours east, negative west
      {"5.5", "+05:30"},
      {"+3", "+03:00"},
      {"UTC+3", "-03:00"},      // POSIX: hours west
      {"GMT-01:00", "+01:00"},  // what JDBC sends for a JVM at UTC+1
      {"+05:30", "+05:30"},     // an offset alone is ISO 8601's: east (PostgreSQL: west)
      {"EST5EDT", "EST5EDT"},
      {"Mars/Olympus", std::nullopt},
      {"", std::nullopt},
      {"15", std::nullopt},    // more than 14 hours
      {"5.01", std::nullopt},  // not whole minutes
      {"UTC+3x", std::nullopt},
      {"../../etc/passwd", std::nullopt},
      {"interval '+05:30' hour to minute", std::nullopt},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(ZoneForSetting(c.value), c.zone) << c.value;
  }
}

TEST(PgTimeZoneSettingTest, AnInvalidZoneNamesTheParameterAsPostgresDoes) {
  EXPECT_EQ(InvalidZoneMessage("Mars/Olympus")
                .rfind("invalid value for parameter \"TimeZone\": \"Mars/Olympus\"", 0),
            0u);
}

TEST(PgTimeZoneSettingTest, WritesTimestampsWithTheZonesOffset) {
  const std::optional<absl::TimeZone> berlin = query::LoadTimeZone("Europe/Berlin");
  const std::optional<absl::TimeZone> kolkata = query::LoadTimeZone("Asia/Kolkata");
  const std::optional<absl::TimeZone> west = query::LoadTimeZone("-03:30");
  const std::optional<absl::TimeZone> paris = query::LoadTimeZone("Europe/Paris");
  ASSERT_TRUE(berlin && kolkata && west && paris);
  constexpr int64_t kSecond = 1'000'000'000;
  const int64_t march = 1709290800 * kSecond;  // 2024-03-01 11:00:00 UTC
  struct Case {
    int64_t nanos;
    const absl::TimeZone* zone;
    std::string text;
  };
  const Case cases[] = {
      {march, nullptr, "2024-03-01 11:00:00+00"},
      {march, &*berlin, "2024-03-01 12:00:00+01"},
      {march + 183 * 86400 * kSecond, &*berlin, "2024-08-31 13:00:00+02"},
      {march + 250'000'000, &*kolkata, "2024-03-01 16:30:00.25+05:30"},
      {march + 1'999, &*west, "2024-03-01 07:30:00.000001-03:30"},  // microseconds, cut down
      {-2'500'000'000 * kSecond, &*paris, "1890-10-11 19:42:41+00:09:21"},  // Paris mean time
  };
  for (const Case& c : cases) {
    EXPECT_EQ(TimestampTextIn(c.nanos, c.zone), c.text) << c.nanos;
  }
}

}  // namespace
}  // namespace strata::pg
