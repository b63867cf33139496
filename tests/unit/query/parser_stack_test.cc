// The parser on a thread whose stack is smaller than its nesting limits
// were measured for: it refuses a deep statement with an error instead of
// overflowing the stack (a sanitizer build's query worker did).
#include <gtest/gtest.h>

#include <string>

#include "query/parse/parser.h"
#include "tests/support/small_stack.h"

namespace strata::query {
namespace {

constexpr size_t kSmallStack = 512 * 1024;

std::string Parenthesized(int levels) {
  return "SELECT " + std::string(levels, '(') + "1" + std::string(levels, ')');
}

TEST(ParserStack, RefusesNestingDeeperThanTheStackAllows) {
  absl::StatusOr<Statement> parsed;
  testing::RunOnSmallStack(kSmallStack, [&] { parsed = Parse(Parenthesized(kMaxExpressionDepth)); });
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(parsed.status().message().find("too deeply for the server's stack"), std::string::npos)
      << parsed.status();
}

// (A release build's parser takes ~2.6 KiB of stack per level of
// parentheses, AddressSanitizer's ~17 KiB: both parse this.)
TEST(ParserStack, ParsesShallowNestingOnTheSameStack) {
  absl::StatusOr<Statement> parsed;
  testing::RunOnSmallStack(kSmallStack, [&] { parsed = Parse(Parenthesized(10)); });
  EXPECT_TRUE(parsed.ok()) << parsed.status();
}

}  // namespace
}  // namespace strata::query
