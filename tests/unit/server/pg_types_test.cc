// PostgreSQL's forms of DATE, TIME and INTERVAL YEAR TO MONTH: text and
// binary results, and parameters in both formats (psycopg sends a date in
// binary).
#include <gtest/gtest.h>

#include "query/base/time_zone.h"
#include "server/pg/types.h"

namespace strata::pg {
namespace {

using query::Datum;

constexpr int64_t kHour = 3'600'000'000'000, kDay = 24 * kHour;

std::string Hex(const std::string& bytes) {
  std::string out;
  for (unsigned char c : bytes) out += "0123456789abcdef"[c >> 4], out += "0123456789abcdef"[c & 15];
  return out;
}

TEST(PgTypesTest, CalendarValuesInTextAndBinary) {
  struct Case {
    Datum value;
    int32_t oid;
    std::string text, binary_hex;
  } cases[] = {
      // 2024-03-15 is day 19797 since 1970, day 8840 since 2000.
      {Datum::Date(19797), kOidDate, "2024-03-15", "00002288"},
      {Datum::Date(-1), kOidDate, "1969-12-31", "ffffd532"},
      {Datum::Time(3'723'500'000'000), kOidTime, "01:02:03.5", "00000000ddf019e0"},
      {Datum::Time(0), kOidTime, "00:00:00", "0000000000000000"},
      {Datum::Months(14), kOidInterval, "1 year 2 mons",
       "000000000000000000000000"
       "0000000e"},
      {Datum::Months(-3), kOidInterval, "-3 mons",
       "000000000000000000000000"
       "fffffffd"},
      {Datum::Months(0), kOidInterval, "00:00:00",
       "000000000000000000000000"
       "00000000"},
      // Days and time: a whole number of days shows no clock, and -1 day is "-1 days".
      {Datum::Interval(kDay), kOidInterval, "1 day",
       "0000000000000000"
       "00000001"
       "00000000"},
      {Datum::Interval(-kDay), kOidInterval, "-1 days",
       "0000000000000000"
       "ffffffff"
       "00000000"},
      {Datum::Interval(2 * kDay + 3 * kHour), kOidInterval, "2 days 03:00:00",
       "0000000283baec00"
       "00000002"
       "00000000"},
      {Datum::Interval(-kDay - 2 * kHour), kOidInterval, "-1 days -02:00:00",
       "fffffffe52d8b800"
       "ffffffff"
       "00000000"},
      {Datum::Interval(-3 * kHour), kOidInterval, "-03:00:00",
       "fffffffd7c451400"
       "00000000"
       "00000000"},
      {Datum::Interval(500'000'000), kOidInterval, "00:00:00.5",
       "000000000007a120"
       "00000000"
       "00000000"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    EXPECT_EQ(OidOf(c.value.type), c.oid);
    std::string out;
    EncodeText(c.value, &out);
    EXPECT_EQ(out, c.text);
    EncodeBinary(c.value, &out);
    EXPECT_EQ(Hex(out), c.binary_hex);
  }
}

// Under a session's zone, a timestamp parameter without one (text without an offset, and any
// timestamp-without-time-zone, text or binary) is the zone's wall clock; a timestamptz in
// binary, or text with an offset, is the instant it names.
TEST(PgTypesTest, TimestampParametersInTheSessionsZone) {
  const std::optional<absl::TimeZone> berlin = query::LoadTimeZone("Europe/Berlin");
  ASSERT_TRUE(berlin.has_value());
  constexpr int64_t kTenUtc = 1709287200LL * 1'000'000'000;  // 2024-03-01 10:00:00 UTC
  constexpr int64_t kHour = 3600LL * 1'000'000'000;
  // 2024-03-01 10:00:00 as PostgreSQL's binary timestamp: microseconds since 2000-01-01.
  const int64_t micros = 762'602'400'000'000;
  std::string binary;
  for (int shift = 56; shift >= 0; shift -= 8) binary.push_back(static_cast<char>(micros >> shift));
  struct Case {
    std::string bytes;
    int16_t format;
    int32_t oid;
    const absl::TimeZone* zone;
    int64_t nanos;
  };
  const Case cases[] = {
      {"2024-03-01 10:00:00", 0, kOidTimestamptz, &*berlin, kTenUtc - kHour},
      {"2024-03-01 10:00:00", 0, kOidTimestamp, &*berlin, kTenUtc - kHour},
      {"2024-03-01 10:00:00Z", 0, kOidTimestamptz, &*berlin, kTenUtc},
      {"2024-03-01 10:00:00+02", 0, kOidTimestamptz, &*berlin, kTenUtc - 2 * kHour},
      {"2024-03-01 10:00:00", 0, kOidTimestamptz, nullptr, kTenUtc},
      {binary, 1, kOidTimestamp, &*berlin, kTenUtc - kHour},
      {binary, 1, kOidTimestamptz, &*berlin, kTenUtc},
      {binary, 1, kOidTimestamp, nullptr, kTenUtc},
  };
  for (const Case& c : cases) {
    bool untyped = false;
    auto decoded = DecodeParameter(c.bytes, c.format, c.oid, &untyped, c.zone);
    ASSERT_TRUE(decoded.ok()) << decoded.status();
    EXPECT_EQ(decoded->i, c.nanos) << c.bytes << " oid " << c.oid << " format " << c.format;
  }
}

TEST(PgTypesTest, DateAndTimeParameters) {
  bool untyped = false;
  auto text_date = DecodeParameter("2024-03-15", 0, kOidDate, &untyped);
  ASSERT_TRUE(text_date.ok()) << text_date.status();
  EXPECT_EQ(text_date->type, query::DataType::kDate);
  EXPECT_EQ(text_date->i, 19797);
  auto binary_date = DecodeParameter(std::string("\x00\x00\x22\x88", 4), 1, kOidDate, &untyped);
  ASSERT_TRUE(binary_date.ok()) << binary_date.status();
  EXPECT_EQ(binary_date->i, 19797);
  auto text_time = DecodeParameter("01:02:03.5", 0, kOidTime, &untyped);
  ASSERT_TRUE(text_time.ok()) << text_time.status();
  EXPECT_EQ(text_time->i, 3'723'500'000'000);

  struct Bad {
    std::string bytes;
    int16_t format;
    int32_t oid;
    std::string message;
  } bad[] = {
      {"2024-02-30", 0, kOidDate, "invalid input syntax for type date"},
      {"25:00", 0, kOidTime, "invalid input syntax for type time"},
      {std::string("\x00\x01", 2), 1, kOidDate, "has 2 bytes, not 4"},
      // Day 2^31 - 1 after 2000: far past the last day a timestamp reaches.
      {std::string("\x7f\xff\xff\xff", 4), 1, kOidDate, "outside 1677-09-22 .. 2262-04-11"},
      {std::string("\x00\x00\x00\x14\x1d\xd7\x60\x00", 8), 1, kOidTime, "not a time of day"},
  };
  for (const Bad& b : bad) {
    SCOPED_TRACE(b.message);
    auto decoded = DecodeParameter(b.bytes, b.format, b.oid, &untyped);
    ASSERT_FALSE(decoded.ok());
    EXPECT_NE(std::string(decoded.status().message()).find(b.message), std::string::npos)
        << decoded.status().message();
  }
}

}  // namespace
}  // namespace strata::pg
