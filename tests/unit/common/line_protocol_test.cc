// The line-protocol grammar shared by `strata import` and stratad's /write:
// every field type, escaping, and each malformed shape with its column.
#include "common/line_protocol.h"

#include <optional>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace strata {
namespace {

using ::testing::HasSubstr;

TEST(LineProtocolTest, ReadsEveryFieldTypeTagsAndTheTimestamp) {
  auto point = ParseLinePoint(
      R"(cpu,host=a,region=eu-1 f=1.5,e=-2e3,i=-7i,u=7u,s="a \"q\" \\ b",t=t,T=TRUE,no=false 1700000000)");
  ASSERT_TRUE(point.ok()) << point.status();
  ASSERT_TRUE(point->has_value());
  const LinePoint& p = **point;
  EXPECT_EQ(p.measurement, "cpu");
  EXPECT_EQ(p.tags, (std::vector<std::pair<std::string, std::string>>{{"host", "a"}, {"region", "eu-1"}}));
  ASSERT_EQ(p.fields.size(), 8u);
  EXPECT_EQ(p.fields[0].second, Value::Double(1.5));
  EXPECT_EQ(p.fields[1].second, Value::Double(-2000));
  EXPECT_EQ(p.fields[2].second, Value::Bigint(-7));
  EXPECT_EQ(p.fields[3].second, Value::Bigint(7));
  EXPECT_EQ(p.fields[4].second, Value::Varchar(R"(a "q" \ b)"));
  EXPECT_EQ(p.fields[5].second, Value::Boolean(true));
  EXPECT_EQ(p.fields[6].second, Value::Boolean(true));
  EXPECT_EQ(p.fields[7].second, Value::Boolean(false));
  EXPECT_EQ(p.timestamp, 1700000000);
}

TEST(LineProtocolTest, EscapesInNamesAndTagValues) {
  auto point = ParseLinePoint(R"(my\ meas\,x,tag\=k=v\ 1\,2 field\ name="x y")");
  ASSERT_TRUE(point.ok()) << point.status();
  const LinePoint& p = **point;
  EXPECT_EQ(p.measurement, "my meas,x");
  EXPECT_EQ(p.tags[0], (std::pair<std::string, std::string>{"tag=k", "v 1,2"}));
  EXPECT_EQ(p.fields[0].first, "field name");
  EXPECT_EQ(p.fields[0].second, Value::Varchar("x y"));
  EXPECT_FALSE(p.timestamp.has_value());
}

TEST(LineProtocolTest, EveryBooleanSpellingAndNothingElse) {
  struct Case {
    const char* token;
    std::optional<bool> boolean;  // nullopt: not a boolean (a parse error)
  };
  const Case cases[] = {
      {"t", true},       {"T", true},      {"true", true},   {"True", true},
      {"TRUE", true},    {"f", false},     {"F", false},     {"false", false},
      {"False", false},  {"FALSE", false}, {"tRUE", {}},     {"tru", {}},
      {"truee", {}},     {"fALSE", {}},    {"fa", {}},       {"ftrue", {}},
  };
  for (const Case& c : cases) {
    auto point = ParseLinePoint(std::string("m v=") + c.token);
    if (!c.boolean) {
      EXPECT_FALSE(point.ok()) << c.token;
      continue;
    }
    ASSERT_TRUE(point.ok()) << c.token << ": " << point.status();
    EXPECT_EQ((**point).fields[0].second, Value::Boolean(*c.boolean)) << c.token;
  }
}

TEST(LineProtocolTest, AReusedPointHoldsOnlyTheNewLine) {
  LinePoint point;
  ASSERT_TRUE(*ParseLinePointInto(R"(a,x=1,y=2 s="text",n=5i,b=t 10)", &point));
  ASSERT_TRUE(*ParseLinePointInto("b,x=3 s=1.5,n=2 ", &point));
  EXPECT_EQ(point.measurement, "b");
  EXPECT_EQ(point.tags, (std::vector<std::pair<std::string, std::string>>{{"x", "3"}}));
  ASSERT_EQ(point.fields.size(), 2u);
  EXPECT_EQ(point.fields[0].second, Value::Double(1.5));
  EXPECT_TRUE(point.fields[0].second.text.empty());  // the string's text is gone
  EXPECT_EQ(point.fields[1].second, Value::Double(2));
  EXPECT_FALSE(point.timestamp.has_value());
  ASSERT_TRUE(*ParseLinePointInto(R"(c s="again")", &point));
  EXPECT_EQ(point.fields[0].second, Value::Varchar("again"));
  EXPECT_EQ(point.fields[0].second.real, 0);
}

TEST(LineProtocolTest, BlankAndCommentLinesHoldNoPoint) {
  for (const char* line : {"", "   ", "# comment", "  # indented comment"}) {
    auto point = ParseLinePoint(line);
    ASSERT_TRUE(point.ok()) << line;
    EXPECT_FALSE(point->has_value()) << line;
  }
}

TEST(LineProtocolTest, MalformedLinesNameTheProblemAndWhereItStarts) {
  struct Case {
    const char* line;
    const char* error;
  };
  const Case cases[] = {
      {",host=a v=1", "missing measurement name (column 1)"},
      {"cpu,host v=1", "a tag must be key=value (column 5)"},
      {"cpu,host= v=1", "tag \"host\" has no value (column 5)"},
      {"cpu", "expected a space and the fields after the measurement and tags (column 4)"},
      {"cpu v", "a field must be key=value (column 5)"},
      {"cpu v=", "field \"v\": missing value (column 7)"},
      {"cpu v=1,w=abc", "field \"w\": \"abc\" is not a number, integer (1i), boolean (t/f) or "
                        "quoted string (column 11)"},
      {"cpu v=1.5i", "field \"v\": \"1.5i\" is not a valid integer (column 7)"},
      {"cpu v=-1u", "field \"v\": \"-1u\" is not a valid integer (column 7)"},
      {"cpu v=99999999999999999999i", "out of BIGINT's range"},
      {"cpu v=\"open", "field \"v\": unterminated string (column 7)"},
      {"cpu v=nan", "is not a number"},
      {"cpu v=1 12:00", "timestamp \"12:00\" is not an integer (column 9)"},
      // Not stored as U+FFFD: refused, wherever the bad byte is.
      {"c\xff v=1", "invalid UTF-8 at column 2"},
      {"cpu,host=\xc3 v=1", "invalid UTF-8 at column 10"},
      {"cpu v=\"\xed\xa0\x80\"", "invalid UTF-8 at column 8"},  // a surrogate
  };
  for (const Case& c : cases) {
    auto point = ParseLinePoint(c.line);
    ASSERT_FALSE(point.ok()) << c.line;
    EXPECT_THAT(std::string(point.status().message()), HasSubstr(c.error)) << c.line;
  }
}

}  // namespace
}  // namespace strata
