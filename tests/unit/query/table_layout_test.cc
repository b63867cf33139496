#include "query/exec/table_layout.h"

#include <algorithm>
#include <atomic>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "common/clock.h"
#include "common/strings.h"
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
      WriteAll(table, {Record({{"host", "h1"}}, "cpu", Value::Double(1))});
    }
  }

  // One scalar measure's record at kNow.
  static InputRecord Record(std::vector<InputDimension> dimensions, std::string measure,
                            Value value) {
    InputRecord r;
    r.dimensions = std::move(dimensions);
    r.measure_name = std::move(measure);
    r.measure_value = value;
    r.time = kNow / kNanosPerMilli;
    return r;
  }

  // Writes `records` into `table`; every one must be ingested.
  void WriteAll(const std::string& table, std::vector<InputRecord> records) {
    const size_t n = records.size();
    auto written = engine_->Write({.database_name = "mydb", .table_name = table,
                                   .records = std::move(records)});
    ASSERT_TRUE(written.ok()) << written.status();
    ASSERT_EQ(written->total(), static_cast<int64_t>(n));
  }

  struct Described {
    TableInfo info;
    std::shared_ptr<TableState> state;
  };
  Described Describe(const std::string& table) {
    absl::StatusOr<TableInfo> info = engine_->catalog().DescribeTable("mydb", table);
    EXPECT_TRUE(info.ok());
    absl::StatusOr<std::shared_ptr<TableState>> state = engine_->TableStateOf(*info);
    EXPECT_TRUE(state.ok());
    return {*info, *state};
  }

  std::shared_ptr<const TableLayout> Layout(const std::string& table) {
    const Described t = Describe(table);
    return cache_.Get(t.info, t.state);
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
  WriteAll("kept", {Record({{"host", "h2"}}, "cpu", Value::Double(1))});
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
// order, and none lacking the dimension; a column's postings are made once and
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
      const std::vector<uint32_t> found = layout->postings.Find(batch, c, value);
      EXPECT_EQ(std::vector<uint32_t>(found.begin(), found.end()), expected)
          << name << " = '" << value << "'";
    }
  }
  EXPECT_EQ(layout->postings.Find(batch, column("region"), "eu").size(), 3u);
  EXPECT_EQ(layout->postings.Find(batch, column("host"), "h1").size(), 1u);
}

// Everything a query reads from a layout, compared: the schema, the series
// in key order with their batch rows and column values, the partitions, and
// the postings of every series column for every value either holds.
void ExpectSameLayout(const TableLayout& got, const TableLayout& want) {
  ASSERT_EQ(got.schema.size(), want.schema.size());
  for (size_t c = 0; c < want.schema.size(); ++c) {
    EXPECT_EQ(got.schema[c].name, want.schema[c].name);
    EXPECT_EQ(got.schema[c].type, want.schema[c].type);
  }
  EXPECT_EQ(got.series_columns, want.series_columns);
  EXPECT_EQ(got.columns->types, want.columns->types);
  EXPECT_EQ(got.columns->time_column, want.columns->time_column);
  EXPECT_EQ(got.columns->scalar_column, want.columns->scalar_column);
  ASSERT_EQ(got.columns->attribute_column.size(), want.columns->attribute_column.size());
  for (const auto& [name, column] : want.columns->attribute_column) {
    ASSERT_TRUE(got.columns->attribute_column.contains(name)) << name;
    EXPECT_EQ(got.columns->attribute_column.at(name).column, column.column) << name;
    EXPECT_EQ(got.columns->attribute_column.at(name).type, column.type) << name;
  }
  EXPECT_EQ(got.measure_is_multi, want.measure_is_multi);
  EXPECT_EQ(got.partitions, want.partitions);
  EXPECT_EQ(got.registered, want.registered);
  ASSERT_EQ(got.series.size(), want.series.size());
  ASSERT_EQ(got.series_batch.rows, want.series_batch.rows);
  for (size_t i = 0; i < want.series.size(); ++i) {
    EXPECT_EQ(got.series[i].series, want.series[i].series) << "row " << i;
    EXPECT_EQ(got.series[i].pk_hash, want.series[i].pk_hash) << "row " << i;
    for (int c = 0; c < want.series_columns; ++c) {
      const Vector& g = got.series_batch.columns[c];
      const Vector& w = want.series_batch.columns[c];
      ASSERT_EQ(g.null(i), w.null(i)) << "row " << i << " column " << c;
      if (!w.null(i)) {
        EXPECT_EQ(g.strings[i], w.strings[i]);
      }
    }
    const SeriesColumns& g = got.columns->series.at(want.series[i].series);
    const SeriesColumns& w = want.columns->series.at(want.series[i].series);
    EXPECT_EQ(g.multi, w.multi);
    EXPECT_EQ(std::vector(g.values.begin(), g.values.end()),
              std::vector(w.values.begin(), w.values.end()));
  }
  for (int c = 0; c < want.series_columns; ++c) {
    std::set<std::string_view> values = {"absent"};
    for (size_t i = 0; i < want.series.size(); ++i) {
      const Vector& column = want.series_batch.columns[c];
      if (!column.null(i)) values.insert(column.strings[i]);
    }
    for (std::string_view value : values) {
      EXPECT_EQ(got.postings.Find(got.series_batch, c, value),
                want.postings.Find(want.series_batch, c, value))
          << want.schema[c].name << " = '" << value << "'";
    }
  }
}

// Values whose hashes collide are told apart: with every value hashing
// alike, or by its first byte only, each value's rows are found, made and
// after an extension that moved the old rows and added new ones.
TEST(SeriesPostingsTest, ValuesWhoseHashesCollideAreToldApart) {
  auto column_of = [](const std::vector<std::optional<std::string_view>>& cells) {
    Batch batch;
    batch.rows = cells.size();
    Vector& v = batch.columns.emplace_back(DataType::kVarchar);
    v.ResetNull(cells.size());
    v.strings.resize(cells.size());
    for (size_t i = 0; i < cells.size(); ++i) {
      if (cells[i]) {
        v.nulls[i] = 0;
        v.strings[i] = *cells[i];
      }
    }
    return batch;
  };
  auto scan = [](const Batch& batch, std::string_view value) {
    std::vector<uint32_t> rows;
    for (size_t i = 0; i < batch.rows; ++i) {
      if (!batch.columns[0].null(i) && batch.columns[0].strings[i] == value) rows.push_back(i);
    }
    return rows;
  };
  const std::vector<std::string_view> values = {"a", "b", "ab", "ba", "c", "zz"};
  for (SeriesPostings::Hash hash : {+[](std::string_view) -> uint64_t { return 7; },
                                   +[](std::string_view v) -> uint64_t { return v[0]; }}) {
    const Batch before = column_of({"a", "b", "a", std::nullopt, "ab", "b", "ba"});
    SeriesPostings old(hash);
    for (std::string_view value : values) {
      EXPECT_EQ(old.Find(before, 0, value), scan(before, value)) << value;
    }
    // Rows 1, 4 and 8 are new; the old rows moved up around them.
    const Batch after = column_of({"a", "ab", "b", "a", "c", std::nullopt, "ab", "b", "a", "ba"});
    SeriesPostings extended(hash);
    extended.Extend(old, {0, 2, 3, 5, 6, 7, 9}, {1, 4, 8}, after);
    for (std::string_view value : values) {
      EXPECT_EQ(extended.Find(after, 0, value), scan(after, value)) << value;
    }
  }
}

// A layout extended by the series written since (rounds of series whose
// keys fall before, between and after the ones before them, in partitions
// old and new) is the layout built anew, postings included: those made
// before the extension (merged) and those made after it. Past 16 extensions
// the chunks are pooled, never more than 16.
TEST_F(TableLayoutCacheTest, AnExtendedLayoutIsTheLayoutBuiltAnew) {
  // Partitioned by host: new series fall in old partitions and new ones.
  ASSERT_TRUE(engine_->catalog()
                  .CreateTable({.database_name = "mydb", .table_name = "parted",
                                .retention = {.memory_store_retention_hours = 6},
                                .partition_key = {.type = PartitionKeyType::kDimension,
                                                  .name = "host"}})
                  .ok());
  const Described t = Describe("parted");
  std::shared_ptr<const TableLayout> previous;
  for (int round = 0; round < 20; ++round) {
    std::vector<InputRecord> records;
    for (int k = 0; k < 1 + round % 3; ++k) {
      // The same host in two rounds is a new series by its rack; some
      // series have no rack.
      InputRecord r =
          Record({{"host", StrCat("h", (round * 7 + k * 13) % 23)}}, "cpu", Value::Double(1));
      if (k < 2) r.dimensions.push_back({"rack", StrCat("r", round, "_", k)});
      // New measures now and then (a new column, an extension still).
      if (round % 6 == 5 && k == 0) {
        r.measure_name = "mem";
        r.measure_value = Value::Bigint(round);
      } else if (round % 6 == 4 && k == 0) {
        r.measure_name = "disk";
        r.measure_value.reset();
        r.measure_values = {{.name = StrCat("free_", round), .value = Value::Double(1)}};
      }
      records.push_back(std::move(r));
    }
    WriteAll("parted", std::move(records));
    if (HasFatalFailure()) return;
    const std::shared_ptr<const TableLayout> layout = Layout("parted");
    ASSERT_NE(layout, previous);
    if (round == 0) {
      EXPECT_EQ(layout->columns->chunks.size(), 1u);
    } else {
      EXPECT_GT(layout->columns->chunks.size(), 1u) << "round " << round << ": built anew";
      EXPECT_LE(layout->columns->chunks.size(), 16u);
    }
    const std::shared_ptr<const TableLayout> built = BuildTableLayout(t.info, *t.state);
    // The host column's postings made before each extension, merged by it.
    layout->postings.Find(layout->series_batch, 0, "h1");
    ExpectSameLayout(*layout, *built);
    if (HasFailure()) FAIL() << "round " << round;
    previous = layout;
  }
  EXPECT_GT(previous->partitions, 10);
}

// Layouts extended while a writer registers series (one a write, some with
// a new measure) are each whole: every series they count is in their list,
// batch, series map and postings, in key order; the last is the layout
// built anew.
TEST_F(TableLayoutCacheTest, LayoutsExtendedWhileSeriesAreWrittenAreWhole) {
  const Described t = Describe("kept");
  constexpr int kSeries = 300;
  std::atomic<bool> done{false};
  std::thread writer([&] {
    for (int i = 0; i < kSeries; ++i) {
      WriteAll("kept", {Record({{"host", StrCat("w", i)}}, i % 50 == 49 ? StrCat("m", i) : "cpu",
                               Value::Double(i))});
    }
    done = true;
  });
  std::atomic<int> layouts_checked{0};
  auto check = [&] {
    while (!done.load()) {
      const std::shared_ptr<const TableLayout> layout = cache_.Get(t.info, t.state);
      const size_t n = layout->series.size();
      ASSERT_EQ(n, layout->registered);
      ASSERT_EQ(layout->series_batch.rows, n);
      ASSERT_EQ(layout->columns->series.size(), n);
      ASSERT_TRUE(std::is_sorted(layout->series.begin(), layout->series.end()));
      const int host = layout->dimension_column.at("host");
      for (size_t row = 0; row < n; ++row) {
        const SeriesColumns& columns = layout->columns->series.at(layout->series[row].series);
        ASSERT_EQ(columns.values.size(), 2u);  // host, measure_name
        ASSERT_EQ(columns.values[0].first, host);
        const std::string_view value = layout->series_batch.columns[host].strings[row];
        ASSERT_EQ(columns.values[0].second, value);
        const std::vector<uint32_t> rows = layout->postings.Find(layout->series_batch, host, value);
        ASSERT_EQ(rows.size(), 1u) << value;
        ASSERT_EQ(rows[0], row) << value;
      }
      ++layouts_checked;
    }
  };
  std::thread reader1(check), reader2(check);
  writer.join();
  reader1.join();
  reader2.join();
  EXPECT_GT(layouts_checked.load(), 0);
  const std::shared_ptr<const TableLayout> last = cache_.Get(t.info, t.state);
  EXPECT_EQ(last->series.size(), kSeries + 1u);
  ExpectSameLayout(*last, *BuildTableLayout(t.info, *t.state));
}

// A layout that already holds every series (made while the write that
// changed the generation landed) is extended to itself, not built anew.
TEST_F(TableLayoutCacheTest, ALayoutHoldingEverySeriesExtendsToItself) {
  const Described t = Describe("kept");
  const std::shared_ptr<const TableLayout> current = BuildTableLayout(t.info, *t.state);
  EXPECT_EQ(ExtendTableLayout(t.info, current, *t.state), current);
  WriteAll("kept", {Record({{"host", "h2"}}, "cpu", Value::Double(1))});
  const std::shared_ptr<const TableLayout> extended = ExtendTableLayout(t.info, current, *t.state);
  ASSERT_NE(extended, nullptr);
  EXPECT_NE(extended, current);
  EXPECT_EQ(extended->series.size(), 2u);
}

// A series of a new measure extends the layout by the measure's column; a
// new dimension name builds it anew (the dimensions' columns come first).
TEST_F(TableLayoutCacheTest, ANewDimensionBuildsTheLayoutAnewANewMeasureExtendsIt) {
  const Described t = Describe("kept");
  Layout("kept");
  using Change = std::tuple<std::string, std::string, bool>;  // dimension, measure, extended
  for (auto [dimension, measure, extended] :
       std::vector<Change>{{"host", "mem", true}, {"zone", "cpu", false}}) {
    WriteAll("kept", {Record({{dimension, "x"}}, measure,
                             measure == "mem" ? Value::Bigint(1) : Value::Double(1))});
    const std::shared_ptr<const TableLayout> layout = Layout("kept");
    EXPECT_EQ(layout->columns->chunks.size() > 1, extended) << dimension << " " << measure;
    ExpectSameLayout(*layout, *BuildTableLayout(t.info, *t.state));
    bool found = false;
    for (const ColumnInfo& c : layout->schema) {
      found |= c.name == dimension || (c.name == "measure_value::bigint" && measure == "mem");
    }
    EXPECT_TRUE(found) << dimension << " " << measure;
  }
}

}  // namespace
}  // namespace strata::query
