#include "storage/write/writer.h"

#include <algorithm>
#include <atomic>
#include <future>
#include <map>
#include <thread>
#include <tuple>

#include "absl/container/flat_hash_map.h"
#include "absl/time/clock.h"
#include "common/clock.h"
#include "gtest/gtest.h"
#include "storage/engine.h"
#include "storage/kv/keys.h"
#include "tests/support/temp_dir.h"

namespace strata {
namespace {

constexpr int64_t kNow = 1'700'000'000LL * kNanosPerSecond;
constexpr int64_t kNowMillis = kNow / kNanosPerMilli;

InputRecord Point(const std::string& host, int64_t time_millis, Value value,
                  std::optional<int64_t> version = std::nullopt) {
  InputRecord r;
  r.dimensions = {{"host", host}};
  r.measure_name = "cpu";
  r.measure_value = std::move(value);
  r.time = time_millis;
  r.version = version;
  return r;
}

InputRecord Multi(const std::string& host, int64_t time_millis, std::vector<InputMeasure> values,
                  std::optional<int64_t> version = std::nullopt) {
  InputRecord r;
  r.dimensions = {{"host", host}};
  r.measure_name = "metrics";
  r.measure_values = std::move(values);
  r.time = time_millis;
  r.version = version;
  return r;
}

class WriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Open();
    ASSERT_TRUE(engine_->catalog().CreateDatabase("mydb", "").ok());
    ASSERT_TRUE(engine_->catalog()
                    .CreateTable({.database_name = "mydb", .table_name = "tbl",
                                  .retention = {.memory_store_retention_hours = 6,
                                                .magnetic_store_retention_days = 30}})
                    .ok());
  }

  void Open() {
    engine_.reset();
    auto engine = Engine::Open({.data_dir = dir_.Sub("data"), .clock = &clock_});
    ASSERT_TRUE(engine.ok()) << engine.status();
    engine_ = std::move(*engine);
  }

  absl::StatusOr<WriteResult> Write(std::vector<InputRecord> records,
                                    const std::string& table = "tbl") {
    WriteRequest request{.database_name = "mydb", .table_name = table};
    request.records = std::move(records);
    return engine_->Write(request);
  }

  WriteResult MustWrite(std::vector<InputRecord> records) {
    auto result = Write(std::move(records));
    EXPECT_TRUE(result.ok()) << result.status();
    return result.value_or(WriteResult{});
  }

  std::vector<ScanRow> ScanAll(const std::string& table = "tbl") {
    std::vector<ScanRow> rows;
    auto info = engine_->catalog().DescribeTable("mydb", table);
    EXPECT_TRUE(info.ok());
    EXPECT_TRUE(engine_->Scan(*info, {}, [&](const ScanRow& row) {
                  rows.push_back(row);
                  return true;
                }).ok());
    return rows;
  }

  void EnableMagneticWrites() {
    ASSERT_TRUE(
        engine_->catalog().UpdateTable("mydb", "tbl", {.enable_magnetic_store_writes = true}).ok());
  }

  testing::TempDir dir_;
  ManualClock clock_{kNow};
  std::unique_ptr<Engine> engine_;
};

TEST_F(WriterTest, WritesAndScansBack) {
  WriteResult result = MustWrite({Point("h1", kNowMillis, Value::Double(1.5)),
                                  Point("h2", kNowMillis, Value::Double(2.5))});
  EXPECT_EQ(result.total(), 2);
  EXPECT_EQ(result.memory_store, 2);
  EXPECT_TRUE(result.rejected.empty());
  std::vector<ScanRow> rows = ScanAll();
  ASSERT_EQ(rows.size(), 2u);
  double sum = 0;
  for (const ScanRow& row : rows) {
    EXPECT_EQ(row.time_nanos, kNow);
    EXPECT_EQ(row.version, 1);
    sum += row.measures[0].value.real;
  }
  EXPECT_EQ(sum, 4.0);
}

TEST_F(WriterTest, UnknownTableIsNotFound) {
  auto result = Write({Point("h1", kNowMillis, Value::Double(1))}, "nope");
  EXPECT_EQ(result.status().code(), absl::StatusCode::kNotFound);
}

struct VersionCase {
  std::string what;
  Value first_value;
  int64_t first_version;
  Value second_value;
  std::optional<int64_t> second_version;
  bool accepted;
  Value stored_value;
  int64_t stored_version;
};

std::vector<VersionCase> VersionCases() {
  return {
      {"same value, same version: idempotent", Value::Double(1), 1, Value::Double(1), 1, true,
       Value::Double(1), 1},
      {"same value, lower version: idempotent", Value::Double(1), 5, Value::Double(1), 2, true,
       Value::Double(1), 5},
      {"same value, no version (1) under 5: idempotent", Value::Double(1), 5, Value::Double(1),
       std::nullopt, true, Value::Double(1), 5},
      {"same value, higher version: version raised", Value::Double(1), 1, Value::Double(1), 4,
       true, Value::Double(1), 4},
      {"other value, higher version: overwrite", Value::Double(1), 1, Value::Double(2), 2, true,
       Value::Double(2), 2},
      {"other value, same version: rejected", Value::Double(1), 3, Value::Double(2), 3, false,
       Value::Double(1), 3},
      {"other value, lower version: rejected", Value::Double(1), 3, Value::Double(2), 1, false,
       Value::Double(1), 3},
      {"other value, no version: rejected", Value::Double(1), 1, Value::Double(2), std::nullopt,
       false, Value::Double(1), 1},
  };
}

TEST_F(WriterTest, VersionRules) {
  const std::vector<VersionCase> cases = VersionCases();
  int host = 0;
  for (const VersionCase& c : cases) {
    std::string name = "host" + std::to_string(host++);
    MustWrite({Point(name, kNowMillis, c.first_value, c.first_version)});
    WriteResult second = MustWrite({Point(name, kNowMillis, c.second_value, c.second_version)});
    if (c.accepted) {
      EXPECT_EQ(second.total(), 1) << c.what;
      EXPECT_TRUE(second.rejected.empty()) << c.what;
    } else {
      ASSERT_EQ(second.rejected.size(), 1u) << c.what;
      EXPECT_EQ(second.rejected[0].existing_version, c.first_version) << c.what;
      EXPECT_NE(second.rejected[0].reason.find("already exists with version"), std::string::npos)
          << c.what;
    }
  }
  std::vector<ScanRow> rows = ScanAll();
  ASSERT_EQ(rows.size(), cases.size());
  // Match rows to cases by their series' host.
  auto state = engine_->TableStateOf(*engine_->catalog().DescribeTable("mydb", "tbl"));
  ASSERT_TRUE(state.ok());
  for (const ScanRow& row : rows) {
    auto info = (*state)->DescribeSeries(row.series);
    ASSERT_TRUE(info.has_value());
    int index = std::stoi(info->dimensions[0].second.substr(4));
    const VersionCase& c = cases[index];
    EXPECT_EQ(row.version, c.stored_version) << c.what;
    EXPECT_EQ(row.measures[0].value, c.stored_value) << c.what;
  }
}

TEST_F(WriterTest, DimensionOrderDoesNotChangeIdentity) {
  InputRecord a = Point("h1", kNowMillis, Value::Double(1));
  a.dimensions = {{"host", "h1"}, {"region", "eu"}};
  InputRecord b = Point("h1", kNowMillis, Value::Double(2));
  b.dimensions = {{"region", "eu"}, {"host", "h1"}};
  MustWrite({a});
  WriteResult second = MustWrite({b});
  ASSERT_EQ(second.rejected.size(), 1u);
  EXPECT_EQ(ScanAll().size(), 1u);
}

TEST_F(WriterTest, DuplicatesInOneRequestResolveInOrder) {
  WriteResult result = MustWrite({Point("h1", kNowMillis, Value::Double(1), 1),
                                  Point("h1", kNowMillis, Value::Double(1), 1),   // retry: ok
                                  Point("h1", kNowMillis, Value::Double(2), 1),   // conflict
                                  Point("h1", kNowMillis, Value::Double(3), 2)}); // upsert
  EXPECT_EQ(result.total(), 3);
  ASSERT_EQ(result.rejected.size(), 1u);
  EXPECT_EQ(result.rejected[0].record_index, 2);
  EXPECT_EQ(result.rejected[0].existing_version, 1);
  std::vector<ScanRow> rows = ScanAll();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].measures[0].value, Value::Double(3));
  EXPECT_EQ(rows[0].version, 2);
}

// A request's rows reach the head and its log grouped by bucket, in the
// order they were applied, not sorted by key: series interleaved across two
// hours, times going back within a series, and a point upserted after rows of
// other buckets all read back in key order (bucket, series, time), with the
// last version, before and after the log is replayed.
TEST_F(WriterTest, RowsInAnyOrderAcrossBucketsReadBackInOrder) {
  const int64_t hour = 3'600'000;
  const int64_t t = kNowMillis - 2 * hour;
  WriteResult result = MustWrite({Point("h2", t + hour, Value::Double(1)),
                                  Point("h1", t + 2, Value::Double(2)),
                                  Point("h1", t + hour, Value::Double(3)),
                                  Point("h1", t + 1, Value::Double(4)),
                                  Point("h2", t, Value::Double(5)),
                                  Point("h1", t + 2, Value::Double(6), 2),  // upsert
                                  Point("h2", t + hour - 1, Value::Double(7))});
  EXPECT_EQ(result.total(), 7);
  EXPECT_TRUE(result.rejected.empty());
  auto rows_as_written = [&] {
    std::map<std::pair<uint64_t, int64_t>, std::pair<double, int64_t>> by_key;
    std::vector<std::tuple<int64_t, uint64_t, int64_t>> order;  // bucket, series, time
    for (const ScanRow& row : ScanAll()) {
      order.emplace_back(keys::BucketOf(row.time_nanos), row.series, row.time_nanos);
      by_key[{row.series, row.time_nanos}] = {row.measures.at(0).value.real, row.version};
    }
    EXPECT_TRUE(std::is_sorted(order.begin(), order.end()));
    std::vector<std::tuple<int64_t, double, int64_t>> out;  // (time, value, version)
    for (const auto& [key, value] : by_key) {
      out.emplace_back((key.second - kNow) / kNanosPerMilli, value.first, value.second);
    }
    std::sort(out.begin(), out.end());
    return out;
  };
  const int64_t base = t - kNowMillis;
  const std::vector<std::tuple<int64_t, double, int64_t>> expected = {
      {base, 5, 1},        {base + 1, 4, 1},        {base + 2, 6, 2},
      {base + hour - 1, 7, 1}, {base + hour, 1, 1}, {base + hour, 3, 1}};
  EXPECT_EQ(rows_as_written(), expected);
  Open();
  EXPECT_EQ(rows_as_written(), expected);
}

// The same rules between two records of one request: the second meets the
// row the first wrote, kept by the write group as its encoded bytes (compact
// in the memory store, whole in the magnetic store's delta).
TEST_F(WriterTest, VersionRulesHoldBetweenRecordsOfOneRequest) {
  EnableMagneticWrites();
  const std::vector<VersionCase> cases = VersionCases();
  for (const int64_t time : {kNowMillis, kNowMillis - int64_t{48} * 3'600'000}) {
    std::vector<InputRecord> records;
    for (size_t i = 0; i < cases.size(); ++i) {
      const std::string host = "host" + std::to_string(i) + "-" + std::to_string(time);
      records.push_back(Point(host, time, cases[i].first_value, cases[i].first_version));
      records.push_back(Point(host, time, cases[i].second_value, cases[i].second_version));
    }
    WriteResult result = MustWrite(records);
    size_t rejected = 0;
    for (size_t i = 0; i < cases.size(); ++i) {
      const VersionCase& c = cases[i];
      const bool refused = rejected < result.rejected.size() &&
                           result.rejected[rejected].record_index == static_cast<int>(2 * i + 1);
      EXPECT_EQ(refused, !c.accepted) << c.what << " at " << time;
      if (refused) {
        EXPECT_EQ(result.rejected[rejected].existing_version, c.first_version) << c.what;
        ++rejected;
      }
    }
    EXPECT_EQ(rejected, result.rejected.size()) << time;
  }
  auto state = engine_->TableStateOf(*engine_->catalog().DescribeTable("mydb", "tbl"));
  ASSERT_TRUE(state.ok());
  std::vector<ScanRow> rows = ScanAll();
  ASSERT_EQ(rows.size(), 2 * cases.size());
  for (const ScanRow& row : rows) {
    auto info = (*state)->DescribeSeries(row.series);
    ASSERT_TRUE(info.has_value());
    const std::string& host = info->dimensions[0].second;
    const VersionCase& c = cases[std::stoi(host.substr(4, host.find('-') - 4))];
    EXPECT_EQ(row.version, c.stored_version) << c.what << " " << host;
    EXPECT_EQ(row.measures[0].value, c.stored_value) << c.what << " " << host;
  }
}

// A MULTI record upserting part of the row an earlier record of the same
// request wrote, with a value of every type: the row read back from the
// group's bytes keeps the attributes not named.
TEST_F(WriterTest, MultiUpsertWithinOneRequestKeepsEveryTypedAttribute) {
  WriteResult result = MustWrite(
      {Multi("h1", kNowMillis,
             {{"d", std::nullopt, Value::Double(1.25)}, {"i", std::nullopt, Value::Bigint(-7)},
              {"s", std::nullopt, Value::Varchar("text")}, {"b", std::nullopt, Value::Boolean(true)},
              {"t", std::nullopt, Value::Timestamp(kNowMillis)}},  // in the record's unit
             1),
       Multi("h1", kNowMillis, {{"i", std::nullopt, Value::Bigint(8)}}, 2),
       Multi("h1", kNowMillis, {{"s", std::nullopt, Value::Varchar("text")}}, 1)});  // same: ok
  EXPECT_EQ(result.total(), 3);
  for (const RejectedRecord& r : result.rejected) ADD_FAILURE() << r.record_index << ": " << r.reason;
  std::vector<ScanRow> rows = ScanAll();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].version, 2);
  std::map<std::string, Value> values;
  for (const Measure& m : rows[0].measures) values[m.name] = m.value;
  EXPECT_EQ(values["d"], Value::Double(1.25));
  EXPECT_EQ(values["i"], Value::Bigint(8));
  EXPECT_EQ(values["s"], Value::Varchar("text"));
  EXPECT_EQ(values["b"], Value::Boolean(true));
  EXPECT_EQ(values["t"], Value::Timestamp(kNow));
}

TEST_F(WriterTest, MultiUpsertReplacesNamedAttributesAndKeepsOthers) {
  MustWrite({Multi("h1", kNowMillis,
                   {{"a", std::nullopt, Value::Double(1)}, {"b", std::nullopt, Value::Bigint(2)}},
                   1)});
  // A subset with the same values is the same record.
  WriteResult same = MustWrite({Multi("h1", kNowMillis, {{"a", std::nullopt, Value::Double(1)}})});
  EXPECT_TRUE(same.rejected.empty());
  // A new attribute is a different value: needs a higher version.
  WriteResult conflict =
      MustWrite({Multi("h1", kNowMillis, {{"c", std::nullopt, Value::Varchar("x")}})});
  ASSERT_EQ(conflict.rejected.size(), 1u);
  WriteResult upsert = MustWrite({Multi(
      "h1", kNowMillis,
      {{"a", std::nullopt, Value::Double(10)}, {"c", std::nullopt, Value::Varchar("x")}}, 2)});
  EXPECT_TRUE(upsert.rejected.empty());
  std::vector<ScanRow> rows = ScanAll();
  ASSERT_EQ(rows.size(), 1u);
  std::map<std::string, Value> values;
  for (const Measure& m : rows[0].measures) values[m.name] = m.value;
  EXPECT_EQ(values["a"], Value::Double(10));
  EXPECT_EQ(values["b"], Value::Bigint(2));
  EXPECT_EQ(values["c"], Value::Varchar("x"));
  EXPECT_EQ(rows[0].version, 2);
}

TEST_F(WriterTest, MeasureTypesAreFixedPerTable) {
  MustWrite({Point("h1", kNowMillis, Value::Double(1))});
  WriteResult bigint = MustWrite({Point("h2", kNowMillis, Value::Bigint(1))});
  ASSERT_EQ(bigint.rejected.size(), 1u);
  EXPECT_NE(bigint.rejected[0].reason.find("measure \"cpu\" holds DOUBLE values"),
            std::string::npos)
      << bigint.rejected[0].reason;

  MustWrite({Multi("h1", kNowMillis, {{"a", std::nullopt, Value::Double(1)}})});
  WriteResult attr = MustWrite({Multi("h2", kNowMillis, {{"a", std::nullopt, Value::Bigint(1)}})});
  ASSERT_EQ(attr.rejected.size(), 1u);
  EXPECT_NE(attr.rejected[0].reason.find("attribute \"a\" holds DOUBLE values in this table; "
                                         "this record writes BIGINT"),
            std::string::npos)
      << attr.rejected[0].reason;
  InputRecord scalar_on_multi = Point("h3", kNowMillis, Value::Double(1));
  scalar_on_multi.measure_name = "metrics";
  WriteResult kind = MustWrite({scalar_on_multi});
  ASSERT_EQ(kind.rejected.size(), 1u);
  EXPECT_NE(kind.rejected[0].reason.find("holds MULTI values"), std::string::npos);

  // The schema survives a restart.
  Open();
  WriteResult after = MustWrite({Point("h4", kNowMillis, Value::Varchar("x"))});
  ASSERT_EQ(after.rejected.size(), 1u);
}

// SQL shows one column per name: an attribute name has one type across the
// table's measure names, and a name is a dimension or an attribute.
TEST_F(WriterTest, OneTypeAndOneMeaningPerName) {
  auto multi = [](std::string measure, std::vector<std::pair<std::string, std::string>> dims,
                  std::vector<InputMeasure> values) {
    InputRecord r = Multi("h1", kNowMillis, std::move(values));
    r.measure_name = std::move(measure);
    for (auto& d : dims) r.dimensions.push_back({d.first, d.second});
    return r;
  };
  auto scalar = [](std::string measure, std::vector<std::pair<std::string, std::string>> dims) {
    InputRecord r = Point("h1", kNowMillis, Value::Double(1));
    r.measure_name = std::move(measure);
    for (auto& d : dims) r.dimensions.push_back({d.first, d.second});
    return r;
  };
  MustWrite({multi("a", {}, {{"x", std::nullopt, Value::Bigint(5)}}),
             scalar("cpu", {{"rack", "r1"}})});
  struct Case {
    const char* what;
    InputRecord record;
    const char* reason;  // empty: accepted
  };
  const std::vector<Case> cases = {
      {"another measure, another type", multi("b", {}, {{"x", std::nullopt, Value::Varchar("12")}}),
       "attribute \"x\" holds BIGINT values in this table; this record writes VARCHAR. An "
       "attribute has one type across all measure names: write it as BIGINT"},
      {"DOUBLE for BIGINT", multi("c", {}, {{"x", std::nullopt, Value::Double(2.75)}}),
       "holds BIGINT values in this table; this record writes DOUBLE"},
      {"BOOLEAN for BIGINT", multi("d", {}, {{"x", std::nullopt, Value::Boolean(true)}}),
       "holds BIGINT values in this table; this record writes BOOLEAN"},
      {"the same type from another measure", multi("e", {}, {{"x", std::nullopt, Value::Bigint(1)}}),
       ""},
      {"an attribute named like a dimension",
       multi("f", {}, {{"rack", std::nullopt, Value::Varchar("r2")}}),
       "\"rack\" is a dimension in this table, so it cannot also be a MULTI measure attribute"},
      {"a dimension named like an attribute", scalar("cpu", {{"x", "1"}}),
       "\"x\" is a MULTI measure attribute (BIGINT) in this table, so it cannot also be a "
       "dimension"},
      {"a dimension named like an attribute, MULTI",
       multi("a", {{"x", "1"}}, {{"y", std::nullopt, Value::Bigint(1)}}),
       "\"x\" is a MULTI measure attribute (BIGINT)"},
  };
  for (const Case& c : cases) {
    WriteResult result = MustWrite({c.record});
    if (std::string(c.reason).empty()) {
      EXPECT_TRUE(result.rejected.empty()) << c.what << ": " << result.rejected[0].reason;
      continue;
    }
    ASSERT_EQ(result.rejected.size(), 1u) << c.what;
    EXPECT_NE(result.rejected[0].reason.find(c.reason), std::string::npos)
        << c.what << ": " << result.rejected[0].reason;
  }

  // A rejected record registers nothing: neither its measure nor its series.
  auto state = engine_->TableStateOf(*engine_->catalog().DescribeTable("mydb", "tbl"));
  ASSERT_TRUE(state.ok());
  EXPECT_FALSE((*state)->FindMeasure("b"));
  EXPECT_FALSE((*state)->IsDimension("x"));
  EXPECT_EQ((*state)->AttributeType("x"), ValueType::kBigint);
  EXPECT_EQ((*state)->attribute_count(), 1);
  EXPECT_TRUE((*state)->LegacyConflicts().empty());

  // Inside one request, the first record decides for the ones after it.
  WriteResult group = MustWrite({multi("g", {}, {{"z", std::nullopt, Value::Double(1)}}),
                                 multi("h", {}, {{"z", std::nullopt, Value::Bigint(1)}}),
                                 scalar("cpu", {{"z", "1"}}), scalar("cpu", {{"zone", "eu"}}),
                                 multi("i", {}, {{"zone", std::nullopt, Value::Varchar("eu")}})});
  ASSERT_EQ(group.rejected.size(), 3u);
  EXPECT_EQ(group.rejected[0].record_index, 1);
  EXPECT_EQ(group.rejected[1].record_index, 2);
  EXPECT_EQ(group.rejected[2].record_index, 4);

  // And after a restart.
  Open();
  EXPECT_EQ(MustWrite({multi("j", {}, {{"z", std::nullopt, Value::Bigint(1)}})}).rejected.size(),
            1u);
  EXPECT_EQ(MustWrite({scalar("cpu", {{"z", "2"}})}).rejected.size(), 1u);
  EXPECT_EQ(MustWrite({multi("k", {}, {{"zone", std::nullopt, Value::Double(1)}})}).rejected.size(),
            1u);
}

TEST_F(WriterTest, TypeConflictInsideOneRequest) {
  InputRecord other = Point("h2", kNowMillis, Value::Bigint(1));
  WriteResult result = MustWrite({Point("h1", kNowMillis, Value::Double(1)), other});
  EXPECT_EQ(result.total(), 1);
  ASSERT_EQ(result.rejected.size(), 1u);
  EXPECT_EQ(result.rejected[0].record_index, 1);
}

// The writer reuses a record's schema check for the next record of the
// request when both have the same names and types: a record that differs
// only in one attribute's type must still be checked, and rejected.
TEST_F(WriterTest, RecordsOfOneRequestAreEachCheckedAgainstTheSchema) {
  MustWrite({Multi("h0", kNowMillis - 1000, {{"a", std::nullopt, Value::Double(1)},
                                             {"b", std::nullopt, Value::Bigint(1)}})});
  WriteResult result = MustWrite({
      Multi("h1", kNowMillis, {{"a", std::nullopt, Value::Double(1)},
                               {"b", std::nullopt, Value::Bigint(2)}}),
      Multi("h2", kNowMillis, {{"a", std::nullopt, Value::Double(1)},
                               {"b", std::nullopt, Value::Varchar("x")}}),
      Multi("h3", kNowMillis, {{"a", std::nullopt, Value::Double(1)},
                               {"b", std::nullopt, Value::Bigint(3)}}),
      Multi("h4", kNowMillis, {{"a", std::nullopt, Value::Bigint(1)},
                               {"b", std::nullopt, Value::Bigint(3)}}),
  });
  EXPECT_EQ(result.total(), 2);
  ASSERT_EQ(result.rejected.size(), 2u);
  EXPECT_EQ(result.rejected[0].record_index, 1);
  EXPECT_NE(result.rejected[0].reason.find("attribute \"b\" holds BIGINT values"),
            std::string::npos)
      << result.rejected[0].reason;
  EXPECT_EQ(result.rejected[1].record_index, 3);
  EXPECT_NE(result.rejected[1].reason.find("attribute \"a\" holds DOUBLE values"),
            std::string::npos)
      << result.rejected[1].reason;
  EXPECT_EQ(ScanAll().size(), 3u);
}

TEST_F(WriterTest, TimeWindows) {
  const int64_t hour = 3'600'000;
  WriteResult future = MustWrite({Point("h1", kNowMillis + 16 * 60'000, Value::Double(1))});
  ASSERT_EQ(future.rejected.size(), 1u);
  EXPECT_NE(future.rejected[0].reason.find("more than 15 minutes in the future"),
            std::string::npos);
  EXPECT_EQ(MustWrite({Point("h1", kNowMillis + 14 * 60'000, Value::Double(1))}).memory_store, 1);

  WriteResult old = MustWrite({Point("h1", kNowMillis - 7 * hour, Value::Double(1))});
  ASSERT_EQ(old.rejected.size(), 1u);
  EXPECT_NE(old.rejected[0].reason.find(
                "outside the time range [2023-11-14T16:13:20.000Z, 2023-11-14T22:28:20.000Z) of "
                "the memory store"),
            std::string::npos)
      << old.rejected[0].reason;
  EXPECT_NE(old.rejected[0].reason.find("enable_magnetic_store_writes"), std::string::npos);

  EnableMagneticWrites();
  WriteResult late = MustWrite({Point("h1", kNowMillis - 7 * hour, Value::Double(1))});
  EXPECT_EQ(late.magnetic_store, 1);
  EXPECT_EQ(late.memory_store, 0);
  WriteResult expired = MustWrite({Point("h1", kNowMillis - 31 * 24 * hour, Value::Double(1))});
  ASSERT_EQ(expired.rejected.size(), 1u);
  EXPECT_NE(expired.rejected[0].reason.find("older than the table's retention"),
            std::string::npos);
  EXPECT_EQ(ScanAll().size(), 2u);
}

TEST_F(WriterTest, LateWritesFollowTheVersionRules) {
  EnableMagneticWrites();
  const int64_t late = kNowMillis - 10 * 3'600'000;
  MustWrite({Point("h1", late, Value::Double(1), 2)});
  WriteResult lower = MustWrite({Point("h1", late, Value::Double(5), 1)});
  ASSERT_EQ(lower.rejected.size(), 1u);
  EXPECT_EQ(lower.rejected[0].existing_version, 2);
  WriteResult higher = MustWrite({Point("h1", late, Value::Double(5), 3)});
  EXPECT_EQ(higher.magnetic_store, 1);
  std::vector<ScanRow> rows = ScanAll();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].measures[0].value, Value::Double(5));
}

TEST_F(WriterTest, RowsThatAgedPastMemoryRetentionAreStillCheckedWhenWrittenLate) {
  // Written while recent (memory store), then time passes: a late write with
  // a lower version must still be rejected against the stored row.
  MustWrite({Point("h1", kNowMillis, Value::Double(1), 5)});
  clock_.Advance(8 * kNanosPerHour);
  EnableMagneticWrites();
  WriteResult lower = MustWrite({Point("h1", kNowMillis, Value::Double(2), 4)});
  ASSERT_EQ(lower.rejected.size(), 1u);
  EXPECT_EQ(lower.rejected[0].existing_version, 5);
  WriteResult higher = MustWrite({Point("h1", kNowMillis, Value::Double(2), 6)});
  EXPECT_TRUE(higher.rejected.empty());
  std::vector<ScanRow> rows = ScanAll();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].version, 6);
}

TEST_F(WriterTest, ExpiredRowsAreNeverScanned) {
  MustWrite({Point("h1", kNowMillis, Value::Double(1))});
  clock_.Advance(6 * kNanosPerHour + 30 * kNanosPerDay + kNanosPerSecond);
  EXPECT_TRUE(ScanAll().empty());
}

TEST_F(WriterTest, ScanFiltersByTimeAndSeries) {
  std::vector<InputRecord> records;
  for (int i = 0; i < 10; ++i) {
    records.push_back(Point("h1", kNowMillis - i * 60'000, Value::Double(i)));
    records.push_back(Point("h2", kNowMillis - i * 60'000, Value::Double(i)));
  }
  EXPECT_EQ(MustWrite(records).total(), 20);
  auto table = *engine_->catalog().DescribeTable("mydb", "tbl");
  auto state = *engine_->TableStateOf(table);
  NormalizedRecord h1;
  h1.measure_name = "cpu";
  h1.dimensions = {{"host", "h1"}};
  std::vector<SeriesTarget> only_h1 = {
      {PartitionHash("cpu", h1.dimensions, table.partition_key), *state->FindSeries(SeriesKeyView::Of(h1))}};
  int count = 0;
  int64_t previous = INT64_MIN;
  ASSERT_TRUE(engine_
                  ->Scan(table,
                         {.start_nanos = kNow - 4 * kNanosPerMinute, .end_nanos = kNow,
                          .series = &only_h1},
                         [&](const ScanRow& row) {
                           EXPECT_GT(row.time_nanos, previous);  // key order within a series
                           previous = row.time_nanos;
                           ++count;
                           return true;
                         })
                  .ok());
  EXPECT_EQ(count, 4);  // minutes -4, -3, -2, -1
}

TEST_F(WriterTest, RequiredPartitionKeyIsEnforced) {
  PartitionKey key{PartitionKeyType::kDimension, "host", Enforcement::kRequired};
  ASSERT_TRUE(engine_->catalog()
                  .CreateTable({.database_name = "mydb", .table_name = "parts", .partition_key = key})
                  .ok());
  InputRecord no_host = Point("h1", kNowMillis, Value::Double(1));
  no_host.dimensions = {{"region", "eu"}};
  auto result = Write({Point("h1", kNowMillis, Value::Double(1)), no_host}, "parts");
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->total(), 1);
  ASSERT_EQ(result->rejected.size(), 1u);
  EXPECT_EQ(result->rejected[0].record_index, 1);
}

TEST_F(WriterTest, DataSurvivesReopenAndAppendsAfterReopenStillDeduplicate) {
  MustWrite({Point("h1", kNowMillis, Value::Double(1), 3)});
  Open();
  WriteResult conflict = MustWrite({Point("h1", kNowMillis, Value::Double(2), 2)});
  ASSERT_EQ(conflict.rejected.size(), 1u);
  EXPECT_EQ(conflict.rejected[0].existing_version, 3);
  EXPECT_EQ(MustWrite({Point("h1", kNowMillis + 1, Value::Double(2))}).total(), 1);
  EXPECT_EQ(ScanAll().size(), 2u);
}

TEST_F(WriterTest, RacingVersionsEndInASerialOrder) {
  // Many threads write the same identity with distinct values and versions.
  // Whatever the interleaving, the highest version must win, and exactly the
  // writes that a serial order allows are accepted.
  constexpr int kThreads = 8, kPerThread = 50;
  std::atomic<int> accepted{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        int64_t version = 1 + i * kThreads + t;  // all distinct
        auto result = Write({Point("h1", kNowMillis, Value::Double(version), version)});
        ASSERT_TRUE(result.ok());
        accepted += static_cast<int>(result->total());
      }
    });
  }
  for (auto& th : threads) th.join();
  std::vector<ScanRow> rows = ScanAll();
  ASSERT_EQ(rows.size(), 1u);
  const int64_t max_version = kThreads * kPerThread;
  EXPECT_EQ(rows[0].version, max_version);
  EXPECT_EQ(rows[0].measures[0].value, Value::Double(max_version));
  EXPECT_GE(accepted.load(), 1);
}

TEST_F(WriterTest, ConcurrentWritersToDistinctSeriesLoseNothing) {
  constexpr int kThreads = 4, kRequests = 50;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kRequests; ++i) {
        std::vector<InputRecord> records;
        for (int h = 0; h < 10; ++h) {
          records.push_back(Point("t" + std::to_string(t) + "h" + std::to_string(h),
                                  kNowMillis - i, Value::Double(i)));
        }
        auto result = Write(records);
        ASSERT_TRUE(result.ok());
        ASSERT_EQ(result->total(), 10);
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(ScanAll().size(), static_cast<size_t>(kThreads * kRequests * 10));
}

}  // namespace
}  // namespace strata

namespace strata {
namespace {

// Asynchronous writes: every request's callback runs exactly once with its
// own result, requests refused as a whole answer at once, and closing the
// engine commits what is queued.
TEST_F(WriterTest, AsynchronousWritesEachCompleteOnceAndClosingCommitsTheQueue) {
  constexpr int kRequests = 200;
  std::atomic<int> completed{0}, accepted{0}, failed{0};
  std::vector<std::atomic<int>> calls(kRequests);
  for (int i = 0; i < kRequests; ++i) {
    WriteRequest request{.database_name = "mydb", .table_name = "tbl"};
    // Request i: host i's point, and a duplicate of request i-1's point with
    // another value and the same version (rejected if that one came first,
    // as it does: requests are committed in the order they were queued).
    request.records.push_back(Point("h" + std::to_string(i), kNowMillis, Value::Double(i)));
    if (i > 0) {
      request.records.push_back(
          Point("h" + std::to_string(i - 1), kNowMillis, Value::Double(-1)));
    }
    engine_->WriteAsync(request, [&, i](absl::StatusOr<WriteResult> result) {
      ++calls[i];
      if (!result.ok()) {
        ++failed;
      } else {
        accepted += static_cast<int>(result->total());
        if (i > 0 && (result->rejected.size() != 1 || result->rejected[0].record_index != 1)) {
          ++failed;
        }
      }
      ++completed;
    });
  }
  // Not found: answered on the caller's thread, before WriteAsync returns.
  bool answered = false;
  engine_->WriteAsync({.database_name = "mydb", .table_name = "nope"},
                      [&](absl::StatusOr<WriteResult> result) {
                        EXPECT_EQ(result.status().code(), absl::StatusCode::kNotFound);
                        answered = true;
                      });
  EXPECT_TRUE(answered);
  Open();  // closes the engine: what was queued is committed first
  EXPECT_EQ(completed.load(), kRequests);
  for (int i = 0; i < kRequests; ++i) EXPECT_EQ(calls[i].load(), 1) << "request " << i;
  EXPECT_EQ(failed.load(), 0);
  EXPECT_EQ(accepted.load(), kRequests);
  std::vector<ScanRow> rows = ScanAll();
  ASSERT_EQ(rows.size(), static_cast<size_t>(kRequests));
  for (const ScanRow& row : rows) EXPECT_GE(row.measures[0].value.real, 0);
}

}  // namespace
}  // namespace strata

namespace strata {
namespace {

// Past the queue's bound a write is refused at once, saying why, and the
// queued ones are written when the commit can go on.
TEST_F(WriterTest, WritesPastTheQueueBoundAreRefusedAtOnce) {
  engine_.reset();
  auto engine = Engine::Open({.data_dir = dir_.Sub("data"), .write_queue = 2, .clock = &clock_});
  ASSERT_TRUE(engine.ok()) << engine.status();
  engine_ = std::move(*engine);
  std::atomic<int> written{0};
  std::vector<absl::Status> refusals;
  // While this holds the commit lock, the committer takes what is queued
  // when it wakes (at most the queue's two) and waits with it; two more
  // wait in the queue, the rest are refused inside WriteAsync.
  engine_->writer().Exclusive([&] {
    for (int i = 0; i < 5; ++i) {
      WriteRequest request{.database_name = "mydb", .table_name = "tbl"};
      request.records.push_back(Point("h" + std::to_string(i), kNowMillis, Value::Double(i)));
      engine_->WriteAsync(request, [&](absl::StatusOr<WriteResult> result) {
        if (result.ok()) {
          written += static_cast<int>(result->total());
        } else {
          refusals.push_back(result.status());
        }
      });
    }
    return 0;
  });
  Open();  // waits for the queued writes
  ASSERT_GE(refusals.size(), 1u);
  ASSERT_LE(refusals.size(), 3u);
  for (const absl::Status& s : refusals) {
    EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
    EXPECT_NE(s.message().find("--write-queue"), std::string::npos) << s;
  }
  EXPECT_EQ(written.load(), 5 - static_cast<int>(refusals.size()));
  EXPECT_EQ(ScanAll().size(), static_cast<size_t>(written.load()));
}

// A source that counts the records the writer reads from it.
class CountingSource final : public WriteSource {
 public:
  explicit CountingSource(WriteRequest& request) : inner_(request) {}
  std::string_view database_name() const override { return inner_.database_name(); }
  std::string_view table_name() const override { return inner_.table_name(); }
  int record_count() const override { return inner_.record_count(); }
  absl::Status ValidateShape() const override { return inner_.ValidateShape(); }
  absl::Status NormalizeInto(int i, const PartitionKey& key, NormalizedRecord* out) override {
    ++read;
    return inner_.NormalizeInto(i, key, out);
  }
  int read = 0;

 private:
  InputWriteSource inner_;
};

// With the queue full, a write is refused before any of its records is read: under overload
// a refusal costs next to nothing (it cost as much as the write before).
TEST_F(WriterTest, AWriteToAFullQueueIsRefusedBeforeItIsRead) {
  engine_.reset();
  auto engine = Engine::Open({.data_dir = dir_.Sub("data"), .write_queue = 1, .clock = &clock_});
  ASSERT_TRUE(engine.ok()) << engine.status();
  engine_ = std::move(*engine);
  auto request = [](const std::string& host) {
    WriteRequest r{.database_name = "mydb", .table_name = "tbl"};
    r.records.push_back(Point(host, kNowMillis, Value::Double(1)));
    return r;
  };
  absl::Mutex mu;
  std::vector<absl::Status> answers;
  auto answer = [&](absl::StatusOr<WriteResult> result) {
    absl::MutexLock lock(&mu);
    answers.push_back(result.status());
  };
  int refused_read = -1;
  engine_->writer().Exclusive([&] {
    WriteRequest first = request("first");
    engine_->WriteAsync(first, answer);  // taken by the committer, which waits
    while (engine_->QueuedWrites() > 0) absl::SleepFor(absl::Milliseconds(1));
    WriteRequest second = request("second");
    engine_->WriteAsync(second, answer);  // fills the queue of one
    WriteRequest third = request("third");
    CountingSource source(third);
    engine_->WriteAsync(source, answer);
    refused_read = source.read;
    return 0;
  });
  Open();  // waits for the queued writes
  EXPECT_EQ(refused_read, 0);
  ASSERT_EQ(answers.size(), 3u);
  EXPECT_EQ(answers[0].code(), absl::StatusCode::kResourceExhausted) << answers[0];
  EXPECT_NE(answers[0].message().find("--write-queue"), std::string::npos) << answers[0];
  EXPECT_TRUE(answers[1].ok()) << answers[1];
  EXPECT_TRUE(answers[2].ok()) << answers[2];
  EXPECT_EQ(ScanAll().size(), 2u);
}

}  // namespace
}  // namespace strata

namespace strata {
namespace {

// A bulk write counts in the queue as the 100-record writes it could have
// been, so --write-queue bounds the records waiting, whatever their requests'
// size; an empty queue still takes a bulk write larger than all of it.
TEST_F(WriterTest, BulkWritesCountInTheQueueByTheirRecords) {
  auto open_with_a_queue_of_15 = [&] {
    engine_.reset();
    auto engine =
        Engine::Open({.data_dir = dir_.Sub("data"), .write_queue = 15, .clock = &clock_});
    ASSERT_TRUE(engine.ok()) << engine.status();
    engine_ = std::move(*engine);
  };
  open_with_a_queue_of_15();
  auto bulk = [](const std::string& prefix, int records) {
    WriteRequest request{.database_name = "mydb", .table_name = "tbl"};
    for (int i = 0; i < records; ++i) {
      request.records.push_back(
          Point(prefix + std::to_string(i), kNowMillis, Value::Double(i)));
    }
    return request;
  };
  absl::Mutex mu;
  std::vector<std::pair<std::string, absl::Status>> answers;
  auto write = [&](const std::string& name, WriteRequest request) {
    InputWriteSource source(request, kMaxRecordsPerBulkWrite);
    engine_->WriteAsync(source, [&, name](absl::StatusOr<WriteResult> result) {
      absl::MutexLock lock(&mu);
      answers.emplace_back(name, result.status());
    });
  };
  engine_->writer().Exclusive([&] {
    // The committer takes this one and waits for the commit lock: the queue
    // is empty from here on, and nothing leaves it until Exclusive returns.
    write("first", bulk("f", 1));
    while (engine_->QueuedWrites() > 0) absl::SleepFor(absl::Milliseconds(1));
    write("1000 records: 10 of 15", bulk("a", 1000));
    write("1000 more: 20 of 15", bulk("b", 1000));
    write("500: 15 of 15", bulk("c", 500));
    write("one more: 16 of 15", bulk("d", 1));
    return 0;
  });
  Open();  // waits for the queued writes
  absl::flat_hash_map<std::string, absl::Status> by_name(answers.begin(), answers.end());
  ASSERT_EQ(by_name.size(), 5u);
  EXPECT_TRUE(by_name["first"].ok()) << by_name["first"];
  EXPECT_TRUE(by_name["1000 records: 10 of 15"].ok()) << by_name["1000 records: 10 of 15"];
  EXPECT_EQ(by_name["1000 more: 20 of 15"].code(), absl::StatusCode::kResourceExhausted);
  EXPECT_TRUE(by_name["500: 15 of 15"].ok()) << by_name["500: 15 of 15"];
  EXPECT_EQ(by_name["one more: 16 of 15"].code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(by_name["one more: 16 of 15"].message().find("--write-queue"), std::string::npos);
  EXPECT_EQ(ScanAll().size(), 1501u);

  // With the queue empty, a write of more than the whole queue waits alone.
  open_with_a_queue_of_15();
  engine_->writer().Exclusive([&] {
    write("2000 of 15, alone", bulk("e", 2000));
    return 0;
  });
  Open();
  absl::MutexLock lock(&mu);
  ASSERT_EQ(answers.size(), 6u);
  EXPECT_EQ(answers.back().first, "2000 of 15, alone");
  EXPECT_TRUE(answers.back().second.ok()) << answers.back().second;
  EXPECT_EQ(ScanAll().size(), 3501u);
}

// The door's limit on a write's records: WriteRecords' 100, a bulk door's
// 10,000, each refusal naming the limit.
TEST_F(WriterTest, AWritesRecordLimitIsItsDoors) {
  auto refused = [&](int records, int limit) {
    WriteRequest request{.database_name = "mydb", .table_name = "tbl"};
    for (int i = 0; i < records; ++i) {
      request.records.push_back(Point("h" + std::to_string(i), kNowMillis, Value::Double(i)));
    }
    InputWriteSource source(request, limit);
    std::promise<absl::Status> answered;
    engine_->WriteAsync(source, [&](absl::StatusOr<WriteResult> result) {
      answered.set_value(result.status());
    });
    return answered.get_future().get();
  };
  EXPECT_TRUE(refused(100, kMaxRecordsPerWrite).ok());
  absl::Status s = refused(101, kMaxRecordsPerWrite);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("1..100 records, this one has 101"), std::string::npos) << s;
  EXPECT_TRUE(refused(10'000, kMaxRecordsPerBulkWrite).ok());
  s = refused(10'001, kMaxRecordsPerBulkWrite);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("1..10000 records, this one has 10001"), std::string::npos) << s;
}

}  // namespace
}  // namespace strata

namespace strata {
namespace {

// When a write's callback runs, its caller may go on and drop the table: the
// request must no longer hold the table's state then (it did, until the
// committer thread freed the request a moment later: a dropped table's state
// outlived the sweep, and a test of that was flaky).
TEST_F(WriterTest, AWriteNoLongerHoldsItsTablesStateWhenItsCallbackRuns) {
  auto info = engine_->catalog().DescribeTable("mydb", "tbl");
  ASSERT_TRUE(info.ok()) << info.status();
  absl::StatusOr<std::shared_ptr<TableState>> state = engine_->TableStateOf(*info);
  ASSERT_TRUE(state.ok()) << state.status();
  const long holders_before = state->use_count();  // the writer's map and this test
  for (const bool valid : {true, false}) {
    WriteRequest request{.database_name = "mydb", .table_name = "tbl"};
    request.records.push_back(
        Point("h1", valid ? kNowMillis : kNowMillis + 48 * 3600 * 1000LL, Value::Double(1)));
    std::atomic<long> holders_in_callback{-1};
    std::atomic<bool> done{false};
    engine_->WriteAsync(request, [&](absl::StatusOr<WriteResult> result) {
      EXPECT_TRUE(result.ok()) << result.status();
      holders_in_callback = state->use_count();
      done = true;
    });
    while (!done) std::this_thread::yield();
    EXPECT_EQ(holders_in_callback.load(), holders_before) << (valid ? "committed" : "rejected");
  }
}

}  // namespace
}  // namespace strata

namespace strata {
namespace {

absl::StatusOr<WriteResult> WriteWith(Engine& engine, std::vector<InputRecord> records,
                                      WriteOptions options) {
  WriteRequest request{.database_name = "mydb", .table_name = "tbl"};
  request.records = std::move(records);
  InputWriteSource source(request);
  std::promise<absl::StatusOr<WriteResult>> done;
  auto result = done.get_future();
  engine.writer().WriteAsync(source, std::move(options),
                             [&done](absl::StatusOr<WriteResult> r) { done.set_value(std::move(r)); });
  return result.get();
}

// A cluster replica applies a log entry at its leader's time (cluster/replica.h): the
// windows follow that time, not the replica's clock.
TEST_F(WriterTest, OptionsJudgeAtTheGivenTime) {
  // Two hours ahead of this clock: outside the future window now, inside it at a later time.
  const int64_t ahead = kNowMillis + 2 * 3600 * 1000;
  auto now = WriteWith(*engine_, {Point("h1", ahead, Value::Double(1))}, {});
  ASSERT_TRUE(now.ok());
  EXPECT_EQ(now->rejected.size(), 1u);
  auto later = WriteWith(*engine_, {Point("h1", ahead, Value::Double(1))},
                         {.now_nanos = kNow + 2 * 3600 * kNanosPerSecond});
  ASSERT_TRUE(later.ok());
  EXPECT_EQ(later->rejected.size(), 0u);
  EXPECT_EQ(later->total(), 1);
}

TEST_F(WriterTest, CatalogPutsCommitWithTheWriteOrAlone) {
  WriteOptions with_rows;
  with_rows.catalog_puts.emplace_back("c-test-1", "one");
  ASSERT_TRUE(WriteWith(*engine_, {Point("h1", kNowMillis, Value::Double(1))}, with_rows).ok());
  // Every record rejected: the entry's puts are still written.
  WriteOptions all_rejected;
  all_rejected.catalog_puts.emplace_back("c-test-2", "two");
  auto rejected = WriteWith(*engine_, {Point("h1", kNowMillis + 3'600'000 * 24, Value::Double(1))},
                            all_rejected);
  ASSERT_TRUE(rejected.ok());
  EXPECT_EQ(rejected->rejected.size(), 1u);
  std::promise<absl::Status> alone;
  WriteOptions only_puts;
  only_puts.catalog_puts.emplace_back("c-test-3", "three");
  engine_->writer().CommitAsync(std::move(only_puts), [&alone](absl::StatusOr<WriteResult> r) {
    alone.set_value(r.status());
  });
  ASSERT_TRUE(alone.get_future().get().ok());
  Open();  // durable
  EXPECT_EQ(engine_->ReadCatalogEntry("c-test-1")->value_or(""), "one");
  EXPECT_EQ(engine_->ReadCatalogEntry("c-test-2")->value_or(""), "two");
  EXPECT_EQ(engine_->ReadCatalogEntry("c-test-3")->value_or(""), "three");
  EXPECT_FALSE(engine_->ReadCatalogEntry("c-test-4")->has_value());
  EXPECT_EQ(ScanAll().size(), 1u);
}

}  // namespace
}  // namespace strata
