// A plan is a tree of operator nodes (query/exec/plan_node.h): its shape,
// EXPLAIN read off the tree, and a tree that runs more than once.
#include <memory>
#include <string>
#include <vector>

#include "common/clock.h"
#include "gtest/gtest.h"
#include "query/exec/plan_node.h"
#include "query/exec/select_nodes.h"
#include "query/exec/source_nodes.h"
#include "query/parse/parser.h"
#include "query/plan/planner.h"
#include "storage/engine.h"
#include "tests/support/engine_with_table.h"
#include "tests/support/temp_dir.h"

namespace strata::query {
namespace {

constexpr int64_t kPlanNow = 1'700'000'000LL * kNanosPerSecond;

// Counts the rows of the batches pushed into it.
class BatchRowCounter : public BatchSink {
 public:
  absl::Status Push(const Batch& batch) override {
    rows += static_cast<int64_t>(batch.rows);
    return absl::OkStatus();
  }
  absl::Status Finish() override { return absl::OkStatus(); }
  int64_t rows = 0;
};

class PlanTreeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto engine = testing::OpenEngineWithTable(dir_.Sub("data"), &clock_, 6);
    ASSERT_TRUE(engine.ok()) << engine.status();
    engine_ = std::move(*engine);
    std::vector<InputRecord> records;
    for (int i = 0; i < 6; ++i) {
      InputRecord r;
      r.dimensions = {{"host", i % 2 == 0 ? "a" : "b"}};
      r.measure_name = "cpu";
      r.measure_value = Value::Double(i);
      r.time = (kPlanNow - (6 - i) * kNanosPerMinute) / kNanosPerMilli;
      records.push_back(std::move(r));
    }
    auto written = engine_->Write(
        {.database_name = "mydb", .table_name = "cpu", .records = std::move(records)});
    ASSERT_TRUE(written.ok()) << written.status();
    ASSERT_EQ(written->total(), 6);
    context_.eval.now_nanos = kPlanNow;
  }

  std::shared_ptr<Plan> PlanOf(const std::string& sql) {
    sql_ = sql;
    absl::StatusOr<Statement> parsed = Parse(sql_);
    EXPECT_TRUE(parsed.ok()) << parsed.status();
    if (!parsed.ok()) return nullptr;
    Planner planner(*engine_, layouts_, sql_, &context_, &stats_);
    absl::StatusOr<std::shared_ptr<Plan>> plan = planner.PlanSelect(std::move(parsed->select));
    EXPECT_TRUE(plan.ok()) << plan.status();
    return plan.ok() ? *plan : nullptr;
  }

  std::vector<Row> Run(const Plan& plan) {
    CollectSink rows(&context_);
    absl::Status ran = plan.Run(&context_, &rows);
    EXPECT_TRUE(ran.ok()) << ran;
    return rows.rows();
  }

  // The node at `path` (input indexes from the root), as a T; null if it is
  // not one.
  template <typename T>
  static const T* At(const Plan& plan, std::vector<size_t> path) {
    const PlanNode* node = plan.root.get();
    for (size_t i : path) {
      if (i >= node->inputs().size()) return nullptr;
      node = node->inputs()[i].get();
    }
    return dynamic_cast<const T*>(node);
  }

  testing::TempDir dir_;
  ManualClock clock_{kPlanNow};
  std::unique_ptr<Engine> engine_;
  TableLayoutCache layouts_;
  QueryContext context_;
  QueryStats stats_;
  std::string sql_;
};

TEST_F(PlanTreeTest, AGroupedTopNIsATreeOfOperatorsThatExplainWalks) {
  std::shared_ptr<Plan> plan = PlanOf(
      "SELECT host, max(measure_value::double) FROM mydb.cpu "
      "WHERE measure_value::double > 0 GROUP BY host ORDER BY 2 DESC LIMIT 1");
  ASSERT_NE(plan, nullptr);
  EXPECT_NE(At<SortNode>(*plan, {}), nullptr);
  EXPECT_NE(At<ProjectNode>(*plan, {0}), nullptr);
  EXPECT_NE(At<AggregateNode>(*plan, {0, 0}), nullptr);
  EXPECT_NE(At<FilterNode>(*plan, {0, 0, 0}), nullptr);
  const TableScanNode* scan = At<TableScanNode>(*plan, {0, 0, 0, 0});
  ASSERT_NE(scan, nullptr);
  EXPECT_TRUE(scan->inputs().empty());

  const std::vector<std::string> lines = plan->Explain();
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(lines[0], "TopN 1 by 1 keys");
  EXPECT_EQ(lines[1], "  Project [host, max(measure_value::double)]");
  EXPECT_EQ(lines[2], "    HashAggregate keys=[host] aggregates=[max(measure_value::double)]");
  EXPECT_EQ(lines[3], "      Filter (measure_value::double > 0)");
  EXPECT_EQ(lines[4], "        " + scan->Describe());
  EXPECT_EQ(scan->Describe().rfind("Scan \"mydb\".\"cpu\"", 0), 0u) << scan->Describe();

  const std::vector<Row> rows = Run(*plan);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0][0].ToString(), "b");
  EXPECT_EQ(rows[0][1].ToString(), "5.0");
}

TEST_F(PlanTreeTest, AJoinHasBothSidesAsItsInputs) {
  std::shared_ptr<Plan> plan = PlanOf(
      "SELECT l.host, r.time FROM mydb.cpu l JOIN mydb.cpu r ON l.host = r.host "
      "WHERE l.measure_value::double = 0");
  ASSERT_NE(plan, nullptr);
  const JoinNode* join = At<JoinNode>(*plan, {0});
  ASSERT_NE(join, nullptr);
  ASSERT_EQ(join->inputs().size(), 2u);
  // WHERE on the left side filters below the join.
  EXPECT_NE(At<FilterNode>(*plan, {0, 0}), nullptr);
  EXPECT_NE(At<TableScanNode>(*plan, {0, 0, 0}), nullptr);
  EXPECT_NE(At<TableScanNode>(*plan, {0, 1}), nullptr);
  EXPECT_EQ(Run(*plan).size(), 3u);  // host a's row at 0.0 with each of a's three rows
}

TEST_F(PlanTreeTest, ExplainShowsTheInputsOfANodeThatOnlyAdaptsInItsPlace) {
  std::shared_ptr<Plan> plan = PlanOf("SELECT x FROM (SELECT 1 AS x) ORDER BY x + 1");
  ASSERT_NE(plan, nullptr);
  // Truncate (drops the hidden ORDER BY column) and the subquery's boundary
  // have no line of their own.
  EXPECT_NE(At<TruncateNode>(*plan, {}), nullptr);
  EXPECT_NE(At<SubqueryNode>(*plan, {0, 0, 0}), nullptr);
  EXPECT_EQ(plan->Explain(),
            (std::vector<std::string>{"Sort by 1 keys", "  Project [x, (x + 1)]", "    Project [1]",
                                      "      Values (one row)"}));
}

TEST_F(PlanTreeTest, ATreeRunsAgainWithTheSameResult) {
  // Newest first: the scan's stop question is set for a run and taken back.
  for (const char* sql :
       {"SELECT time, measure_value::double FROM mydb.cpu ORDER BY time DESC LIMIT 2",
        "SELECT bin(time, 2m) AS t, count(*) FROM mydb.cpu GROUP BY 1 ORDER BY t DESC LIMIT 2",
        "SELECT host, count(*) FROM mydb.cpu GROUP BY host ORDER BY host"}) {
    SCOPED_TRACE(sql);
    std::shared_ptr<Plan> plan = PlanOf(sql);
    ASSERT_NE(plan, nullptr);
    const std::vector<Row> first = Run(*plan);
    const std::vector<Row> second = Run(*plan);
    ASSERT_EQ(first.size(), 2u);
    ASSERT_EQ(second.size(), first.size());
    for (size_t i = 0; i < first.size(); ++i) {
      for (size_t c = 0; c < first[i].size(); ++c) {
        EXPECT_EQ(first[i][c].ToString(), second[i][c].ToString());
      }
    }
  }
}

TEST_F(PlanTreeTest, EveryNodeButDistinctRowsRunsColumnar) {
  // The rows each plan's batches come to.
  const std::vector<std::pair<std::string, int64_t>> columnar = {
      {"SELECT host FROM mydb.cpu WHERE host = 'a'", 3},
      // OFFSET alone is a node of its own: the batches it passes on lose the first rows.
      {"SELECT host FROM mydb.cpu WHERE host = 'a' OFFSET 2", 1},
      {"SELECT host FROM mydb.cpu LIMIT 4", 4},
      {"SELECT host, count(*) FROM mydb.cpu GROUP BY host HAVING count(*) > 1 ORDER BY 2 DESC", 2},
      {"SELECT host FROM mydb.cpu ORDER BY measure_value::double DESC LIMIT 5 OFFSET 3", 3},
      // DISTINCT alone is GROUP BY its select list.
      {"SELECT DISTINCT host FROM mydb.cpu", 2},
      {"SELECT host, row_number() OVER (ORDER BY time) FROM mydb.cpu", 6},
  };
  for (const auto& [sql, rows] : columnar) {
    SCOPED_TRACE(sql);
    std::shared_ptr<Plan> plan = PlanOf(sql);
    ASSERT_NE(plan, nullptr);
    EXPECT_TRUE(plan->columnar);
    BatchRowCounter counted;
    ASSERT_TRUE(plan->RunBatches(&context_, &counted).ok());
    EXPECT_EQ(counted.rows, rows);
  }
  // DISTINCT over groups or windows runs on the projected rows.
  for (const std::string sql :
       {"SELECT DISTINCT count(*) FROM mydb.cpu GROUP BY host",
        "SELECT DISTINCT row_number() OVER (ORDER BY time) FROM mydb.cpu"}) {
    std::shared_ptr<Plan> plan = PlanOf(sql);
    ASSERT_NE(plan, nullptr);
    EXPECT_FALSE(plan->columnar) << sql;
  }
}

// A cluster node's copy of the catalog may be a moment behind: a table it does not find is
// looked up again after the catch-up (QueryOptions::catch_up_catalog), which is not asked for a
// table it holds.
TEST_F(PlanTreeTest, ATableNotFoundIsLookedUpAgainAfterTheCatalogCatchesUp) {
  auto plan = [&](const std::string& sql) {
    sql_ = sql;
    absl::StatusOr<Statement> parsed = Parse(sql_);
    EXPECT_TRUE(parsed.ok()) << parsed.status();
    Planner planner(*engine_, layouts_, sql_, &context_, &stats_);
    return planner.PlanSelect(std::move(parsed->select)).status();
  };
  EXPECT_TRUE(absl::IsNotFound(plan("SELECT count(*) FROM mydb.late")));
  int catch_ups = 0;
  const std::function<bool()> catch_up = [&] {
    ++catch_ups;
    return engine_->catalog()
        .CreateTable({.database_name = "mydb",
                      .table_name = "late",
                      .retention = {.memory_store_retention_hours = 6}})
        .ok();
  };
  context_.catch_up_catalog = &catch_up;
  EXPECT_TRUE(plan("SELECT count(*) FROM mydb.cpu").ok());
  EXPECT_EQ(catch_ups, 0);
  EXPECT_TRUE(plan("SELECT count(*) FROM mydb.late").ok());
  EXPECT_EQ(catch_ups, 1);
  context_.catch_up_catalog = nullptr;
}

// Presto's names: an item's alias, the column it is, or _col<i>; a group key's expression as
// much as any other (it was named by its text before).
TEST_F(PlanTreeTest, OutputColumnsAreNamedAlikeWithOrWithoutGroups) {
  for (const std::string sql : {"SELECT upper(host), host, 1 AS one FROM mydb.cpu",
                                "SELECT upper(host), host, 1 AS one FROM mydb.cpu GROUP BY 1, 2, 3",
                                "SELECT DISTINCT upper(host), host, 1 AS one FROM mydb.cpu"}) {
    SCOPED_TRACE(sql);
    std::shared_ptr<Plan> plan = PlanOf(sql);
    ASSERT_NE(plan, nullptr);
    std::vector<std::string> names;
    for (const ColumnInfo& c : plan->output) names.push_back(c.name);
    EXPECT_EQ(names, (std::vector<std::string>{"_col0", "host", "one"}));
  }
}

}  // namespace
}  // namespace strata::query
