#include "common/suggest.h"

#include "gtest/gtest.h"

namespace strata {
namespace {

TEST(SuggestTest, EditDistance) {
  struct Case {
    const char* a;
    const char* b;
    int distance;
  };
  for (const Case& c : std::vector<Case>{{"", "", 0},
                                         {"host", "host", 0},
                                         {"host", "HOST", 0},
                                         {"hostx", "host", 1},
                                         {"hsot", "host", 1},
                                         {"hots", "host", 1},
                                         {"ca", "abc", 3},
                                         {"", "abc", 3},
                                         {"kitten", "sitting", 3}}) {
    EXPECT_EQ(EditDistance(c.a, c.b), c.distance) << c.a << " / " << c.b;
  }
}

TEST(SuggestTest, SuggestsOnlyPlausibleTypos) {
  std::vector<std::string_view> names = {"hostname", "region", "cpu_usage"};
  EXPECT_EQ(NearestName("hostnme", names), "hostname");
  EXPECT_EQ(NearestName("regoin", names), "region");
  EXPECT_EQ(NearestName("memory", names), "");
  EXPECT_EQ(NearestName("x", {}), "");
  EXPECT_EQ(DidYouMean("regin", names), "; did you mean \"region\"?");
  EXPECT_EQ(DidYouMean("zzzzzz", names), "");
}

}  // namespace
}  // namespace strata
