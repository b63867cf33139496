// A window's state counts against the query's memory (--query-memory-mb): its rows, keys and
// order, and the copy of the keys that a sort by one DOUBLE key makes beside the rows.
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/support/least_memory_limit.h"
#include "tests/support/query_memory_test.h"

namespace strata::query {
namespace {

constexpr int64_t kRows = 100'000;

class WindowMemoryTest : public testing::QueryMemoryTest {
 protected:
  // rank() over kRows rows ordered by `key` (computed, one partition), under `limit` bytes.
  absl::Status Rank(const std::string& key, int64_t limit) {
    return RunUnder(absl::StrCat("SELECT count(r) FROM (SELECT rank() OVER (ORDER BY ", key,
                                 ") AS r FROM UNNEST(sequence(1, 1000)) AS a(i) "
                                 "CROSS JOIN UNNEST(sequence(1, 100)) AS b(j))"),
                    limit);
  }

  // The least limit (to 1 KiB) under which the query runs.
  int64_t LeastLimit(const std::string& key) {
    return testing::LeastMemoryLimit([&](int64_t bytes) { return Rank(key, bytes); });
  }
};

// The same rows and the same 8-byte keys, an integer key read in place and a DOUBLE one sorted
// as a copy of (key, row) pairs with as much again for the stable sort's buffer: 32 bytes a
// row more. Before, that copy was not counted, and both needed the same limit.
TEST_F(WindowMemoryTest, ASortByOneDoubleKeyCountsItsCopyOfTheKeys) {
  const int64_t integers = LeastLimit("i * 100 + j");
  const int64_t doubles = LeastLimit("i * 100 + j + 0e0");
  EXPECT_GE(doubles - integers, 32 * kRows - 4096) << integers << " " << doubles;
  const absl::Status refused = Rank("i * 100 + j + 0e0", integers + 16 * kRows);
  EXPECT_TRUE(absl::IsResourceExhausted(refused)) << refused;
  EXPECT_NE(refused.message().find("a window function's sort"), std::string::npos) << refused;
}

// A bound on row_number() above the window (r <= 3) keeps three rows of each of the 1,000
// partitions instead of all 100,000 (partition_top_n.h): the least limit it runs under is a
// fraction of the whole window's (written r + 0 <= 3, a bound the planner does not read).
TEST_F(WindowMemoryTest, ABoundOnTheRankKeepsTheTopRowsOfEachPartitionOnly) {
  auto newest = [&](const std::string& bound, int64_t limit) {
    return RunUnder(absl::StrCat("SELECT count(*) FROM (SELECT i, row_number() OVER (PARTITION "
                                 "BY i ORDER BY j DESC) AS r FROM UNNEST(sequence(1, 1000)) AS "
                                 "a(i) CROSS JOIN UNNEST(sequence(1, 100)) AS b(j)) t WHERE ",
                                 bound),
                    limit);
  };
  const int64_t top = testing::LeastMemoryLimit([&](int64_t b) { return newest("r <= 3", b); });
  const int64_t whole =
      testing::LeastMemoryLimit([&](int64_t b) { return newest("r + 0 <= 3", b); });
  EXPECT_LT(top * 4, whole) << top << " " << whole;
}

// The partitions' keys are counted too: 25,000 partitions of 4 KB keys each keep one small
// row apiece (their rows come in the window's order, so the others are dropped as they come),
// yet their keys hold 100 MB (before, the top rows' partitions were not counted and such a
// query grew past any limit).
TEST_F(WindowMemoryTest, TheTopRowsPartitionsKeysCount) {
  const absl::Status refused = RunUnder(
      "SELECT count(*) FROM (SELECT row_number() OVER (PARTITION BY lpad(CAST(i * 25 + j % 25 "
      "AS varchar), 4000, 'x') ORDER BY j) AS r FROM UNNEST(sequence(1, 1000)) AS a(i) CROSS "
      "JOIN UNNEST(sequence(1, 200)) AS b(j)) t WHERE r <= 1",
      32 << 20);
  EXPECT_TRUE(absl::IsResourceExhausted(refused)) << refused;
  EXPECT_NE(refused.message().find("top rows of each partition"), std::string::npos) << refused;
}

}  // namespace
}  // namespace strata::query
