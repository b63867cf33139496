// EXPLAIN ANALYZE runs the statement and shows each plan node's rows, runs and time
// (query/exec/plan_analysis.h): the rows a node hands on are counted whatever form they take
// (batches, rows), a node read twice is counted at each run, and the answer is not sent.
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/query_memory_test.h"

namespace strata::query {
namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::Not;

class PlanLines final : public ResultSink {
 public:
  absl::Status Columns(const std::vector<ResultColumn>&) override { return absl::OkStatus(); }
  absl::Status Rows(std::vector<Row> page) override {
    for (const Row& row : page) lines.push_back(row[0].s);
    return absl::OkStatus();
  }
  std::vector<std::string> lines;
};

class ExplainAnalyzeTest : public testing::QueryMemoryTest {
 protected:
  // The plan's lines, each node's with what it did.
  std::vector<std::string> Analyze(const std::string& select) {
    PlanLines sink;
    const absl::Status ran = RunUnder("EXPLAIN ANALYZE " + select, 1 << 30, {}, &sink);
    EXPECT_TRUE(ran.ok()) << ran;
    return sink.lines;
  }
  // The line that starts (past its indent) with `node`.
  static std::string Line(const std::vector<std::string>& lines, const std::string& node) {
    for (const std::string& line : lines) {
      if (line.find_first_not_of(' ') == line.find(node)) return line;
    }
    return "(no line for " + node + ")";
  }
};

constexpr char kTopRows[] =
    "SELECT count(*) FROM (SELECT i % 10 AS k, row_number() OVER (PARTITION BY i % 10 ORDER BY "
    "i DESC) AS r FROM UNNEST(sequence(1, 5000)) AS s(i)) t WHERE r <= 3";

// Every node's rows as it handed them on: 5,000 from the UNNEST, 30 kept by the window (three
// of each of ten partitions), one count; then the times.
TEST_F(ExplainAnalyzeTest, EachNodeSaysTheRowsItHandedOnAndItsTime) {
  const std::vector<std::string> lines = Analyze(kTopRows);
  EXPECT_THAT(Line(lines, "Unnest"), HasSubstr("(actual rows=5000 loops=1 time="));
  EXPECT_THAT(Line(lines, "Window"), HasSubstr("(actual rows=30 loops=1 time="));
  EXPECT_THAT(Line(lines, "Filter"), HasSubstr("(actual rows=30 loops=1 time="));
  EXPECT_THAT(Line(lines, "HashAggregate"),
              ContainsRegex("actual rows=1 loops=1 time=[0-9]+\\.[0-9]{3} ms"));
  ASSERT_GE(lines.size(), 3u);
  EXPECT_THAT(lines[lines.size() - 3], ContainsRegex("^Planning time: [0-9]+\\.[0-9]{3} ms$"));
  EXPECT_THAT(lines[lines.size() - 2],
              ContainsRegex("^Execution time: [0-9]+\\.[0-9]{3} ms \\(1 row\\)$"));
  // No table: nothing scanned.
  EXPECT_EQ(lines.back(),
            "Scanned: 0 rows, 0 bytes; series 0 (0 pruned), partitions 0 (0 pruned), blocks 0 (0 "
            "pruned), hours 0 (0 pruned)");
}

// A WITH query read twice is made once: its plan ran once, each reading handed on its rows.
TEST_F(ExplainAnalyzeTest, AWithQueryReadTwiceRanOnce) {
  const std::vector<std::string> lines = Analyze(
      "WITH w AS (SELECT i FROM UNNEST(sequence(1, 100)) AS s(i)) SELECT count(*) FROM w "
      "a JOIN w b ON a.i = b.i");
  EXPECT_THAT(Line(lines, "HashJoin"), HasSubstr("(actual rows=100 loops=1 "));
  EXPECT_THAT(Line(lines, "Unnest"), HasSubstr("(actual rows=100 loops=1 "));
  int readings = 0;
  for (const std::string& line : lines) {
    if (line.find("WithQuery \"w\"") != std::string::npos) {
      EXPECT_THAT(line, HasSubstr("(actual rows=100 loops=1 "));
      ++readings;
    }
  }
  EXPECT_EQ(readings, 2);
}

// Without ANALYZE (or with it off) nothing runs: the plan as EXPLAIN shows it.
TEST_F(ExplainAnalyzeTest, AnalyzeOffShowsThePlanAlone) {
  PlanLines sink;
  ASSERT_TRUE(
      RunUnder(std::string("EXPLAIN (ANALYZE false) ") + kTopRows, 1 << 30, {}, &sink).ok());
  for (const std::string& line : sink.lines) EXPECT_THAT(line, Not(HasSubstr("actual")));
  EXPECT_THAT(sink.lines.back(), Not(HasSubstr("Scanned")));
}

}  // namespace
}  // namespace strata::query
