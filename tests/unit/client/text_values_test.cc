#include "client/text_values.h"

#include "gtest/gtest.h"

namespace strata::cli {
namespace {

TEST(TextValuesTest, Durations) {
  struct Case {
    const char* text;
    int64_t hours;  // -1: an error
  };
  for (const Case& c : std::vector<Case>{{"12h", 12},
                                         {"2d", 48},
                                         {"1w", 168},
                                         {"1y", 8760},
                                         {" 3H ", 3},
                                         {"0h", -1},
                                         {"-1d", -1},
                                         {"1.5h", -1},
                                         {"12", -1},
                                         {"12m", -1},
                                         {"", -1}}) {
    auto hours = ParseDurationHours(c.text);
    if (c.hours < 0) {
      EXPECT_FALSE(hours.ok()) << c.text;
    } else {
      ASSERT_TRUE(hours.ok()) << c.text << ": " << hours.status();
      EXPECT_EQ(*hours, c.hours) << c.text;
    }
  }
  EXPECT_EQ(*ParseDurationDays("2w"), 14);
  EXPECT_EQ(*ParseDurationDays("48h"), 2);
  EXPECT_FALSE(ParseDurationDays("36h").ok());
}

TEST(TextValuesTest, Times) {
  struct Case {
    const char* text;
    int64_t value;
    v1::TimeUnit unit;
  };
  constexpr int64_t kMay1 = 1714564800LL * 1'000'000'000;  // 2024-05-01T12:00:00Z
  for (const Case& c : std::vector<Case>{
           {"1714564800000", 1714564800000, v1::TIME_UNIT_MILLISECONDS},
           {"2024-05-01T12:00:00Z", kMay1, v1::TIME_UNIT_NANOSECONDS},
           {"2024-05-01 12:00:00", kMay1, v1::TIME_UNIT_NANOSECONDS},
           {"2024-05-01T14:00:00+02:00", kMay1, v1::TIME_UNIT_NANOSECONDS},
           {"2024-05-01T12:00:00.123456789Z", kMay1 + 123456789, v1::TIME_UNIT_NANOSECONDS},
           {"2024-05-01T12:00", kMay1, v1::TIME_UNIT_NANOSECONDS},
           {"2024-05-01", kMay1 - 12 * 3600 * 1'000'000'000LL, v1::TIME_UNIT_NANOSECONDS}}) {
    auto time = ParseRecordTime(c.text, v1::TIME_UNIT_MILLISECONDS);
    ASSERT_TRUE(time.ok()) << c.text << ": " << time.status();
    EXPECT_EQ(time->value, c.value) << c.text;
    EXPECT_EQ(time->unit, c.unit) << c.text;
  }
  for (const char* bad : {"yesterday", "2024-13-01", "12:00", "1.5"}) {
    EXPECT_FALSE(ParseRecordTime(bad, v1::TIME_UNIT_MILLISECONDS).ok()) << bad;
  }
}

TEST(TextValuesTest, MeasureValuesInferredAndExplicit) {
  EXPECT_EQ(ParseMeasureValue("7", std::nullopt)->double_value(), 7.0);
  EXPECT_EQ(ParseMeasureValue("-1.5e3", std::nullopt)->double_value(), -1500.0);
  EXPECT_TRUE(ParseMeasureValue("TRUE", std::nullopt)->boolean_value());
  EXPECT_EQ(ParseMeasureValue(" text ", std::nullopt)->varchar_value(), " text ");
  EXPECT_EQ(ParseMeasureValue("inf", std::nullopt)->varchar_value(), "inf");
  EXPECT_EQ(ParseMeasureValue("7", v1::MEASURE_VALUE_TYPE_BIGINT)->bigint_value(), 7);
  EXPECT_EQ(ParseMeasureValue("12", v1::MEASURE_VALUE_TYPE_TIMESTAMP)->timestamp_value(), 12);
  EXPECT_EQ(ParseMeasureValue("7", v1::MEASURE_VALUE_TYPE_VARCHAR)->varchar_value(), "7");
  EXPECT_FALSE(ParseMeasureValue("1.5", v1::MEASURE_VALUE_TYPE_BIGINT).ok());
  EXPECT_FALSE(ParseMeasureValue("99999999999999999999", v1::MEASURE_VALUE_TYPE_BIGINT).ok());
  EXPECT_FALSE(ParseMeasureValue("nan", v1::MEASURE_VALUE_TYPE_DOUBLE).ok());
  EXPECT_FALSE(ParseMeasureValue("yes", v1::MEASURE_VALUE_TYPE_BOOLEAN).ok());
  EXPECT_FALSE(ParseMeasureType("int").ok());
  EXPECT_EQ(*ParseMeasureType("BigInt"), v1::MEASURE_VALUE_TYPE_BIGINT);
  EXPECT_EQ(*ParseTimeUnit("us"), v1::TIME_UNIT_MICROSECONDS);
  EXPECT_FALSE(ParseTimeUnit("minutes").ok());
}

}  // namespace
}  // namespace strata::cli
