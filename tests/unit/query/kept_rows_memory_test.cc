// A WITH query read more than once keeps its rows for the other readings (KeptRowsNode) within
// the query's memory (--query-memory-mb); rows that would not fit are let go and each reading
// runs the query again, as it did before rows were kept, instead of the query failing.
#include <string>

#include "absl/strings/str_cat.h"
#include "common/status.h"
#include "gtest/gtest.h"
#include "tests/support/least_memory_limit.h"
#include "tests/support/query_memory_test.h"

namespace strata::query {
namespace {

constexpr int64_t kWithRows = 100'000;

// The first value of the answer's first row.
class FirstValue final : public ResultSink {
 public:
  absl::Status Columns(const std::vector<ResultColumn>&) override { return absl::OkStatus(); }
  absl::Status Rows(std::vector<Row> page) override {
    if (!page.empty()) value = page[0][0].i;
    return absl::OkStatus();
  }
  int64_t value = -1;
};

class KeptRowsMemoryTest : public testing::QueryMemoryTest {
 protected:
  // `select` over `WITH t(x)`, kWithRows random doubles, under `limit` bytes.
  absl::StatusOr<int64_t> Run(const std::string& select, int64_t limit) {
    FirstValue sink;
    RETURN_IF_ERROR(RunUnder(absl::StrCat("WITH t AS (SELECT random() AS x FROM "
                                          "UNNEST(sequence(1, 1000)) AS a(i) CROSS JOIN "
                                          "UNNEST(sequence(1, 100)) AS b(j)) ",
                                          select),
                             limit, {}, &sink));
    return sink.value;
  }
};

constexpr char kBothReadings[] =
    "SELECT count(*) FROM (SELECT x FROM t UNION ALL SELECT x FROM t) s";

// With room, the second reading replays the first's rows: every random value is found again.
TEST_F(KeptRowsMemoryTest, TheSecondReadingReplaysTheFirstsRows) {
  const absl::StatusOr<int64_t> matches =
      Run("SELECT count(*) FROM t a JOIN t b ON a.x = b.x", 1 << 30);
  ASSERT_TRUE(matches.ok()) << matches.status();
  EXPECT_EQ(*matches, kWithRows);
  const absl::StatusOr<int64_t> rows = Run(kBothReadings, 1 << 30);
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_EQ(*rows, 2 * kWithRows);
}

// Without room to keep them (a row costs more than 16 bytes kept), both readings still run and
// count every row.
TEST_F(KeptRowsMemoryTest, RowsThatDoNotFitAreLetGoAndTheQueryRunsOn) {
  const int64_t least =
      testing::LeastMemoryLimit([&](int64_t limit) { return Run(kBothReadings, limit).status(); });
  EXPECT_LT(least, 16 * kWithRows);
  const absl::StatusOr<int64_t> rows = Run(kBothReadings, least);
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_EQ(*rows, 2 * kWithRows);
}

}  // namespace
}  // namespace strata::query
