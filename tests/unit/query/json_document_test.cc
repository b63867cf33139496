// The JSON reader of the json_* functions (query/functions/json_document.h): what it
// accepts, where it says a text goes wrong, and how it writes and finds values.
#include "query/functions/json_document.h"

#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace strata::query::json {
namespace {

TEST(JsonDocumentTest, ChecksRfc8259AndSaysWhereATextGoesWrong) {
  for (std::string_view good :
       {"0", "-0", "1.5e-3", "-12E+2", "\"\"", "\"\\u00e9\\n\\/\"", "true", "null", " [ ] ", "{}",
        "{\"a\":[1,{\"b\":null}],\"c\":\"d\"}", "\"\xC3\xA9\""}) {
    EXPECT_TRUE(Check(good).ok()) << good << ": " << Check(good).message();
  }
  struct Bad {
    std::string_view text, problem;
  };
  for (const Bad& bad : std::vector<Bad>{
           {"", "the text ends where a value should be at byte 0"},
           {"01", "a number has a leading zero or a second '.' at byte 1"},
           {"1.", "a number has no digits after its '.' at byte 2"},
           {"-", "a number has no digits at byte 0"},
           {"1e", "a number has no digits in its exponent at byte 2"},
           {"+1", "expected a value but found '+1' at byte 0"},
           {"[1 2]", "expected ',' or ']' in an array but found '2' at byte 3"},
           {"[1,]", "expected a value but found ']' at byte 3"},
           {"{\"a\":1,}", "expected a member's name in double quotes at byte 7"},
           {"{1:2}", "expected a member's name in double quotes at byte 1"},
           {"\"a\tb\"", "a control character in a string (write it escaped, as \\n) at byte 2"},
           {"\"\\x\"", "'\\x' is not an escape at byte 1"},
           {"\"\\u12\"", "\\u is not followed by four hex digits at byte 1"},
           {"tru", "expected a value but found 'tru' at byte 0"},
           {"1 1", "text follows the value at byte 2"},
           {"{\"a\"", "the text ends where ':' after a member's name should be at byte 4"},
       }) {
    const absl::Status checked = Check(bad.text);
    EXPECT_FALSE(checked.ok()) << bad.text;
    EXPECT_EQ(std::string(checked.message()), bad.problem) << bad.text;
  }
}

TEST(JsonDocumentTest, NestsAThousandDeepAndNoDeeper) {
  const std::string deep = std::string(kMaxDepth, '[') + std::string(kMaxDepth, ']');
  ASSERT_TRUE(Check(deep).ok());
  std::string canonical;
  ASSERT_TRUE(AppendCanonical(deep, &canonical).ok());
  EXPECT_EQ(canonical, deep);
  const std::string deeper = "{\"a\":" + deep + "}";
  EXPECT_EQ(
      std::string(Check(deeper).message()),
      "arrays and objects nest deeper than 1000 at byte " + std::to_string(5 + kMaxDepth - 1));
}

TEST(JsonDocumentTest, WritesCompactAndCanonicalText) {
  const std::string_view text =
      " { \"b\" : [ 1 , 2.50 ] , \"a\\u0041\" : \"x\\/y\\u00e9\" , \"b\" : { \"z\" : 1 , \"y\" : 2 "
      "} } ";
  ASSERT_TRUE(Check(text).ok());
  std::string compact, canonical;
  AppendCompact(text, &compact);
  EXPECT_EQ(compact, "{\"b\":[1,2.50],\"aA\":\"x/y\xC3\xA9\",\"b\":{\"z\":1,\"y\":2}}");
  ASSERT_TRUE(AppendCanonical(text, &canonical).ok());
  EXPECT_EQ(canonical, "{\"aA\":\"x/y\xC3\xA9\",\"b\":{\"y\":2,\"z\":1}}");
}

TEST(JsonDocumentTest, ReadsPathsAndRefusesWhatItDoesNotKnow) {
  const absl::StatusOr<std::vector<PathStep>> path = ParsePath("$.a[\"b c\"]['d\\'e'][12].f-g");
  ASSERT_TRUE(path.ok()) << path.status();
  ASSERT_EQ(path->size(), 5u);
  EXPECT_EQ((*path)[0].key, "a");
  EXPECT_EQ((*path)[1].key, "b c");
  EXPECT_EQ((*path)[2].key, "d'e");
  EXPECT_EQ((*path)[3].index, 12);
  EXPECT_EQ((*path)[4].key, "f-g");
  EXPECT_TRUE(ParsePath("$").ok());
  for (std::string_view bad : {"", "a", "$.", "$..a", "$.*", "$[*]", "$[", "$[1", "$['a", "$a",
                               "$[-1]", "$[99999999999999999999]"}) {
    EXPECT_FALSE(ParsePath(bad).ok()) << bad;
  }
}

TEST(JsonDocumentTest, FindsAMembersFirstOccurrenceAndArrayElements) {
  const std::string_view text = "{\"k\": 1, \"l\": [\"x\", {\"m\": [true]}], \"k\": 2}";
  ASSERT_TRUE(Check(text).ok());
  auto find = [&](std::string_view path) -> std::optional<std::string_view> {
    return Find(text, *ParsePath(path));
  };
  EXPECT_EQ(find("$.k"), "1");
  EXPECT_EQ(find("$.l[1].m[0]"), "true");
  EXPECT_EQ(find("$.l[0]"), "\"x\"");
  EXPECT_EQ(find("$.l[2]"), std::nullopt);
  EXPECT_EQ(find("$.k[0]"), std::nullopt);
  EXPECT_EQ(find("$[0]"), std::nullopt);
  EXPECT_EQ(CountItems(*find("$.l")), 2u);
  EXPECT_EQ(ElementAt(*find("$.l"), 1), "{\"m\": [true]}");
  EXPECT_EQ(ElementAt(*find("$.l"), 2), std::nullopt);
  EXPECT_EQ(ElementAt(*find("$.l"), -1), "{\"m\": [true]}");
  EXPECT_EQ(ElementAt(*find("$.l"), -2), "\"x\"");
  EXPECT_EQ(ElementAt(*find("$.l"), -3), std::nullopt);
  EXPECT_EQ(ElementAt(*find("$.l"), std::numeric_limits<int64_t>::min()), std::nullopt);
  EXPECT_EQ(ElementAt("[]", -1), std::nullopt);
  EXPECT_EQ(ScalarText("\"a\\\"\\ud83d\\ude00\""), "a\"\xF0\x9F\x98\x80");
  EXPECT_EQ(ScalarText("null"), std::nullopt);
  EXPECT_EQ(ScalarText("[1]"), std::nullopt);
}

}  // namespace
}  // namespace strata::query::json
