// The lexer's reading of operators that share characters with a placeholder (@name) or
// with each other.
#include "query/parse/lexer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace strata::query {
namespace {

// The tokens' texts, a placeholder or name as itself.
std::vector<std::string> Texts(std::string_view sql) {
  Lexer lexer(sql);
  std::vector<std::string> out;
  Token t;
  while (true) {
    EXPECT_TRUE(lexer.Next(&t).ok()) << sql;
    if (t.kind == TokenKind::kEnd) return out;
    out.push_back(t.text);
  }
}

TEST(LexerTest, ReadsPostgresArrayOperatorsBesidePlaceholders) {
  struct Case {
    std::string_view sql;
    std::vector<std::string> tokens;
  };
  for (const Case& c : std::vector<Case>{
           {"a @> b", {"a", "@>", "b"}},
           {"a<@b", {"a", "<", "@b"}},  // x <@p is x < @p, a placeholder
           {"a <@ b", {"a", "<@", "b"}},
           {"a<@(b)", {"a", "<@", "(", "b", ")"}},
           {"a && b", {"a", "&&", "b"}},
           {"time <= @t", {"time", "<=", "@t"}},
           {"a <> b", {"a", "<>", "b"}},
       }) {
    EXPECT_EQ(Texts(c.sql), c.tokens) << c.sql;
  }
}

TEST(LexerTest, ReadsPostgresJsonOperatorsLongestFirst) {
  struct Case {
    std::string_view sql;
    std::vector<std::string> tokens;
  };
  for (const Case& c : std::vector<Case>{
           {"j->'a'", {"j", "->", "a"}},
           {"j->>'a'", {"j", "->>", "a"}},
           {"j#>'{a}'", {"j", "#>", "{a}"}},
           {"j#>>'{a}'", {"j", "#>>", "{a}"}},
           {"j->>-1", {"j", "->>", "-", "1"}},
           {"x -> x > 0", {"x", "->", "x", ">", "0"}},  // a lambda's arrow, then a comparison
           {"2^3", {"2", "^", "3"}},
           // jsonb's key tests and path deletion; ? alone is also a positional placeholder.
           {"j ? 'a'", {"j", "?", "a"}},
           {"j?|k", {"j", "?|", "k"}},
           {"j ?& k", {"j", "?&", "k"}},
           {"j#-'{a}'", {"j", "#-", "{a}"}},
           {"x = ?", {"x", "=", "?"}},
       }) {
    EXPECT_EQ(Texts(c.sql), c.tokens) << c.sql;
  }
}

}  // namespace
}  // namespace strata::query
