// PostgreSQL's array text as SplitPostgresArrayText cuts it: what each element is, and the
// texts that are no array.
#include "query/base/postgres_array_text.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "query/base/datum.h"

namespace strata::query {
namespace {

using Elements = std::vector<std::optional<std::string>>;

TEST(PostgresArrayTextTest, SplitsElements) {
  struct Case {
    std::string_view text;
    Elements elements;
  };
  for (const Case& c : std::vector<Case>{
           {"{}", {}},
           {" { } ", {}},
           {"{a}", {"a"}},
           {"{a,b}", {"a", "b"}},
           {"{ a b , c }", {"a b", "c"}},  // inner spaces kept, outer trimmed
           {"{NULL,null,\"NULL\"}", {std::nullopt, std::nullopt, "NULL"}},
           {"{\\NULL}", {"NULL"}},  // an escaped NULL is text
           {"{\"a,b\",\"c\\\"d\",\"\"}", {"a,b", "c\"d", ""}},
           {"{a\\,b,c\\ }", {"a,b", "c "}},    // an escaped space is kept
           {"{{1,2},{3}}", {"{1,2}", "{3}"}},  // nested: each the element's own text
           {"{{\"}\"},x}", {"{\"}\"}", "x"}},
       }) {
    const std::optional<Elements> got = SplitPostgresArrayText(c.text);
    ASSERT_TRUE(got.has_value()) << c.text;
    EXPECT_EQ(*got, c.elements) << c.text;
  }
}

TEST(PostgresArrayTextTest, RefusesWhatIsNoArray) {
  for (std::string_view text : {"", "a", "[1,2]", "{", "{a", "{a,}", "{,a}", "{a,,b}", "{\"a}",
                                "{a}b", "{\"a\"b}", "{{1}", "{a\\"}) {
    EXPECT_FALSE(SplitPostgresArrayText(text).has_value()) << text;
  }
  // As many elements as one array holds, not one more.
  std::string most = "{1";
  for (size_t i = 1; i < kMaxNestedValues; ++i) most += ",1";
  EXPECT_EQ(SplitPostgresArrayText(most + "}")->size(), kMaxNestedValues);
  EXPECT_FALSE(SplitPostgresArrayText(most + ",1}").has_value());
  EXPECT_TRUE(LooksLikePostgresArrayText(" {x"));
  EXPECT_FALSE(LooksLikePostgresArrayText("[1]"));
}

}  // namespace
}  // namespace strata::query
