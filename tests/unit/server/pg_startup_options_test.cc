// libpq's `options` startup parameter read as PostgreSQL reads it (server/pg/startup_options.h).
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "server/pg/startup_options.h"

namespace strata::pg {
namespace {

using Settings = std::vector<std::pair<std::string, std::string>>;

TEST(PgStartupOptionsTest, ReadsSettingsAsPostgresDoes) {
  struct Case {
    std::string options;
    Settings settings;
  };
  const Case cases[] = {
      {"", {}},
      {"-c TimeZone=Asia/Tokyo", {{"timezone", "Asia/Tokyo"}}},
      {"-ctimezone=utc -c application_name=etl",
       {{"timezone", "utc"}, {"application_name", "etl"}}},
      {"--statement-timeout=0", {{"statement_timeout", "0"}}},
      {"  -c  search_path=a,b  ", {{"search_path", "a,b"}}},
      {"-c application_name=my\\ app", {{"application_name", "my app"}}},  // an escaped space
      {"-c x=", {{"x", ""}}},
      {"-c a=b=c", {{"a", "b=c"}}},
  };
  for (const Case& c : cases) {
    std::string error;
    const auto settings = ParseStartupOptions(c.options, &error);
    ASSERT_TRUE(settings.has_value()) << c.options << ": " << error;
    EXPECT_EQ(*settings, c.settings) << c.options;
  }
}

TEST(PgStartupOptionsTest, RefusesWhatSetsNothing) {
  struct Case {
    std::string options;
    std::string error;
  };
  const Case cases[] = {
      {"-c", "the startup options' \"-c\" is not a setting; write -c name=value"},
      {"-B 100", "the startup options' \"-B\" is not a setting; write -c name=value"},
      {"-c timezone", "the startup options' \"timezone\" sets nothing; write -c name=value"},
      {"--=x", "the startup options' \"=x\" sets nothing; write -c name=value"},
  };
  for (const Case& c : cases) {
    std::string error;
    EXPECT_FALSE(ParseStartupOptions(c.options, &error).has_value()) << c.options;
    EXPECT_EQ(error, c.error) << c.options;
  }
}

}  // namespace
}  // namespace strata::pg
