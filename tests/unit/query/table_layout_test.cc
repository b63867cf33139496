#include "query/table_layout.h"

#include "common/clock.h"
#include "gtest/gtest.h"
#include "storage/engine.h"
#include "tests/support/temp_dir.h"

namespace strata::query {
namespace {

constexpr int64_t kNow = 1'700'000'000LL * kNanosPerSecond;

class TableLayoutCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto engine = Engine::Open({.data_dir = dir_.Sub("data"), .clock = &clock_});
    ASSERT_TRUE(engine.ok()) << engine.status();
    engine_ = std::move(*engine);
    ASSERT_TRUE(engine_->catalog().CreateDatabase("mydb", "").ok());
    for (const char* table : {"kept", "gone"}) {
      ASSERT_TRUE(engine_->catalog()
                      .CreateTable({.database_name = "mydb", .table_name = table,
                                    .retention = {.memory_store_retention_hours = 6}})
                      .ok());
      InputRecord r;
      r.dimensions = {{"host", "h1"}};
      r.measure_name = "cpu";
      r.measure_value = Value::Double(1);
      r.time = kNow / kNanosPerMilli;
      auto written = engine_->Write({.database_name = "mydb", .table_name = table,
                                     .records = {std::move(r)}});
      ASSERT_TRUE(written.ok() && written->total() == 1);
    }
  }

  std::shared_ptr<const TableLayout> Layout(const std::string& table) {
    absl::StatusOr<TableInfo> info = engine_->catalog().DescribeTable("mydb", table);
    EXPECT_TRUE(info.ok());
    absl::StatusOr<std::shared_ptr<TableState>> state = engine_->TableStateOf(*info);
    EXPECT_TRUE(state.ok());
    return cache_.Get(*info, *state);
  }

  testing::TempDir dir_;
  ManualClock clock_{kNow};
  std::unique_ptr<Engine> engine_;
  TableLayoutCache cache_;
};

TEST_F(TableLayoutCacheTest, ALayoutIsReusedUntilTheRegistryChanges) {
  const std::shared_ptr<const TableLayout> first = Layout("kept");
  EXPECT_EQ(Layout("kept"), first);
  EXPECT_EQ(first->series.size(), 1u);
  InputRecord r;
  r.dimensions = {{"host", "h2"}};
  r.measure_name = "cpu";
  r.measure_value = Value::Double(1);
  r.time = kNow / kNanosPerMilli;
  ASSERT_TRUE(engine_->Write({.database_name = "mydb", .table_name = "kept", .records = {r}}).ok());
  const std::shared_ptr<const TableLayout> second = Layout("kept");
  EXPECT_NE(second, first);
  EXPECT_EQ(second->series.size(), 2u);
}

// A dropped table's layout is let go once the sweep has freed its state:
// at the next miss, here another table's first query.
TEST_F(TableLayoutCacheTest, ADroppedTablesLayoutGoesWithItsState) {
  std::weak_ptr<const TableLayout> gone = Layout("gone");
  ASSERT_FALSE(gone.expired());  // the cache holds it
  ASSERT_TRUE(engine_->catalog().DeleteTable("mydb", "gone").ok());
  ASSERT_TRUE(engine_->SweepDroppedTables().ok());
  EXPECT_FALSE(gone.expired());  // no miss yet
  Layout("kept");
  EXPECT_TRUE(gone.expired());
  EXPECT_EQ(Layout("kept")->series.size(), 1u);
}

// The postings list each series holding a value, in the series batch's
// order, and none lacking the dimension; a column's map is made once and
// serves every later lookup.
TEST_F(TableLayoutCacheTest, PostingsListTheSeriesHoldingAValue) {
  std::vector<InputRecord> records;
  for (auto [host, region] : std::vector<std::pair<std::string, std::string>>{
           {"h2", "eu"}, {"h3", "us"}, {"", "eu"}, {"h4", "eu"}}) {
    InputRecord r;
    if (!host.empty()) r.dimensions.push_back({"host", host});
    r.dimensions.push_back({"region", region});
    r.measure_name = "cpu";
    r.measure_value = Value::Double(1);
    r.time = kNow / kNanosPerMilli;
    records.push_back(std::move(r));
  }
  ASSERT_TRUE(engine_->Write({.database_name = "mydb", .table_name = "kept", .records = records})
                  .ok());
  const std::shared_ptr<const TableLayout> layout = Layout("kept");
  ASSERT_EQ(layout->series.size(), 5u);
  auto column = [&](std::string_view name) {
    for (size_t c = 0; c < layout->schema.size(); ++c) {
      if (layout->schema[c].name == name) return static_cast<int>(c);
    }
    return -1;
  };
  const Batch& batch = layout->series_batch;
  // Every series row holding each value, as a scan of the column finds them.
  for (std::string_view name : {"host", "region"}) {
    const int c = column(name);
    ASSERT_GE(c, 0);
    for (std::string_view value : {"h1", "h2", "h3", "h4", "eu", "us", "nope", ""}) {
      std::vector<uint32_t> expected;
      for (size_t row = 0; row < batch.rows; ++row) {
        if (!batch.columns[c].null(row) && batch.columns[c].strings[row] == value) {
          expected.push_back(static_cast<uint32_t>(row));
        }
      }
      absl::Span<const uint32_t> found = layout->postings.Find(batch, c, value);
      EXPECT_EQ(std::vector<uint32_t>(found.begin(), found.end()), expected)
          << name << " = '" << value << "'";
    }
  }
  EXPECT_EQ(layout->postings.Find(batch, column("region"), "eu").size(), 3u);
  EXPECT_EQ(layout->postings.Find(batch, column("host"), "h1").size(), 1u);
}

}  // namespace
}  // namespace strata::query
