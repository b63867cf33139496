// A long IN list counts against the query's memory (--query-memory-mb): a list parameter
// (`= ANY($1)` of up to 1,000,000 values) copied into the plan and hashed, and the hash set of
// an IN (SELECT ...)'s answers.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/support/least_memory_limit.h"
#include "tests/support/query_memory_test.h"

namespace strata::query {
namespace {

constexpr int64_t kValues = 100'000;

using InListMemoryTest = testing::QueryMemoryTest;

TEST_F(InListMemoryTest, AListParameterCountsItsCopyAndItsHashSet) {
  std::vector<Datum> hosts;
  for (int64_t i = 0; i < kValues; ++i) hosts.push_back(Datum::Varchar(absl::StrCat("host_", i)));
  QueryParameters parameters;
  parameters.positional.push_back(Datum::Composite(*ArrayOf(DataType::kVarchar), std::move(hosts)));
  const std::string sql =
      "SELECT count(*) FROM UNNEST(sequence(1, 10)) AS t(i) "
      "WHERE 'host_' || CAST(i AS varchar) = ANY(?)";
  // ~100 bytes a value: the array's datums, and a slot of the hash set each.
  const absl::Status refused = RunUnder(sql, 4 << 20, parameters);
  EXPECT_TRUE(absl::IsResourceExhausted(refused)) << refused;
  EXPECT_NE(refused.message().find("for its list parameters"), std::string::npos) << refused;
  EXPECT_TRUE(RunUnder(sql, 64 << 20, parameters).ok());
}

TEST_F(InListMemoryTest, AnInSubquerysAnswersCountTheirHashSet) {
  // kValues numbers (sequence() makes at most 10,000 a call).
  const std::string answers =
      "SELECT a * 10000 + b AS i FROM UNNEST(sequence(0, 9)) AS s(a) "
      "CROSS JOIN UNNEST(sequence(1, 10000)) AS t(b)";
  const std::string sql = absl::StrCat(
      "SELECT count(*) FROM UNNEST(sequence(1, 10)) AS t(x) WHERE x IN (", answers, ")");
  const int64_t limit =
      testing::LeastMemoryLimit([&](int64_t bytes) { return RunUnder(sql, bytes); });
  // The answers as rows (a datum each), then their hash set: a slot of 37 bytes an answer at
  // least (a key string and its control byte at 7/8 full). Before the set was counted, the
  // least limit was that of the rows alone (8.7 MB here).
  EXPECT_GE(limit, static_cast<int64_t>(sizeof(Datum) + 37) * kValues) << limit;
}

}  // namespace
}  // namespace strata::query
