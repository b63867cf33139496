// Generated queries checked against another way to the same answer. First, they answer alike
// while their rows are in the memory head and once maintenance has sealed them into magnetic
// blocks. The blocks have their own fast paths (aggregates from
// block headers, filters and pruning by block statistics, newest-first reads, last points),
// each of which must give what decoding every point gives. The golden files check chosen
// queries (block_aggregates.test, block_filter.test); this test checks a few hundred shapes
// drawn from a grammar of keys, aggregates, conditions and orders, over rows with NULLs, a
// missing dimension, a second measure and an extreme BIGINT.
// Second, a GROUP BY of grouping sets (one pass, GroupingSetsNode) answers what the UNION ALL
// of one plain GROUP BY per set answers.
#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_join.h"
#include "common/clock.h"
#include "common/strings.h"
#include "gtest/gtest.h"
#include "tests/sql/in_process_backend.h"

namespace strata {
namespace {

constexpr int kHosts = 12;
constexpr int kHours = 6;
// 2024-03-10T06:00:00Z: the first hour written.
constexpr int64_t kStart = 1710050400LL * kNanosPerSecond;

// Picks from the grammar below with a fixed seed: the same queries on every run.
class QueryGrammar {
 public:
  explicit QueryGrammar(uint32_t seed) : random_(seed) {}

  std::string Next() {
    switch (Pick(6)) {
      case 0:
        return NewestRows();
      case 1:
        return LastPoints();
      default:
        return Grouped();
    }
  }

 private:
  size_t Pick(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(random_); }
  bool Chance(int percent) { return static_cast<int>(Pick(100)) < percent; }
  template <typename T>
  const T& OneOf(const std::vector<T>& options) {
    return options[Pick(options.size())];
  }

  // 0 to 2 conditions ANDed, or none.
  std::string Where() {
    static const std::vector<std::string> kConditions = {
        "host = 'h3'",
        "host IN ('h1', 'h7', 'h11')",
        "region = 'r1'",
        "region IS NULL",
        "measure_name = 'cpu'",
        "measure_name = 'temp'",
        "usage > 50",
        "usage BETWEEN -2 AND 20.5",
        "procs < 100",
        "procs >= 400",
        "state = 'ok'",
        "state IS NULL",
        "up",
        "time >= TIMESTAMP '2024-03-10 09:00:00'",
        "time < TIMESTAMP '2024-03-10 07:30:00'",
        "time BETWEEN TIMESTAMP '2024-03-10 08:10:00' AND TIMESTAMP '2024-03-10 10:40:00'",
        "time > ago(3h)",
        "temp > 20",
    };
    const size_t n = Pick(3);
    std::vector<std::string> chosen;
    for (size_t i = 0; i < n; ++i) chosen.push_back(OneOf(kConditions));
    return chosen.empty() ? "" : " WHERE " + absl::StrJoin(chosen, " AND ");
  }

  std::string Grouped() {
    static const std::vector<std::string> kKeys = {"host",           "region",
                                                   "measure_name",   "bin(time, 1h)",
                                                   "bin(time, 15m)", "date_trunc('hour', time)",
                                                   "bin(time, 1d)",  "state"};
    static const std::vector<std::string> kAggregates = {
        "count(*)",
        "count(usage)",
        "round(sum(usage), 4)",
        "round(avg(usage), 4)",
        "min(usage)",
        "max(usage)",
        "sum(procs)",
        "min(procs)",
        "max(procs)",
        "round(avg(procs), 4)",
        "max(state)",
        "min(state)",
        "count(state)",
        "count_if(up)",
        "count(DISTINCT host)",
        "max_by(usage, time)",
        "min_by(procs, time)",
        "max(time)",
        "min(time)",
        "round(sum(temp), 4)",
        "max(temp)",
        "approx_distinct(state)",
        "round(stddev(usage), 4)",
    };
    std::vector<std::string> keys;
    for (size_t i = Pick(3); i > 0; --i) {
      const std::string& key = OneOf(kKeys);
      if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
    }
    std::vector<std::string> aggregates;
    for (size_t i = 1 + Pick(4); i > 0; --i) aggregates.push_back(OneOf(kAggregates));
    std::vector<std::string> items = keys;
    items.insert(items.end(), aggregates.begin(), aggregates.end());
    std::string sql = "SELECT " + absl::StrJoin(items, ", ") + " FROM tiers.metrics" + Where();
    if (keys.empty()) return sql;
    std::vector<std::string> positions;
    for (size_t k = 1; k <= keys.size(); ++k) positions.push_back(std::to_string(k));
    const std::string by = absl::StrJoin(positions, ", ");
    sql += Chance(15) ? " GROUP BY ROLLUP (" + by + ")" : " GROUP BY " + by;
    if (Chance(30)) sql += " HAVING count(*) > 3";
    if (Chance(30)) {
      // Every key in the order: the first n groups are one set, whatever the ties.
      sql += StrCat(" ORDER BY ", by, Chance(50) ? " DESC" : "", " LIMIT ", 1 + Pick(20));
    }
    return sql;
  }

  // ORDER BY time DESC LIMIT n: the scan reads newest first and stops early.
  std::string NewestRows() {
    return StrCat("SELECT time, host, measure_name, usage, procs, state, temp FROM tiers.metrics",
                  Where(), " ORDER BY time DESC, host, measure_name LIMIT ", 1 + Pick(40));
  }

  // A last point per series: read from each series' newest row only.
  std::string LastPoints() {
    static const std::vector<std::string> kLast = {"max_by(usage, time)", "max(time)",
                                                   "max_by(state, time)", "max_by(temp, time)"};
    return StrCat("SELECT host, measure_name, ", OneOf(kLast), " FROM tiers.metrics",
                  Chance(50) ? " WHERE time > ago(30m)" : "", " GROUP BY host, measure_name");
  }

  std::mt19937 random_;
};

// An hour of rows: every host's cpu row each 5 minutes (usage, procs, state, up; some left out)
// and four hosts' temp each 15 minutes. Host h11 has no region.
std::vector<InputRecord> HourOfRows(int hour, std::mt19937& random) {
  std::vector<InputRecord> records;
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(random); };
  static const char* kStates[] = {"ok", "degraded", "down"};
  for (int h = 0; h < kHosts; ++h) {
    std::vector<InputDimension> dimensions = {{"host", StrCat("h", h)}};
    if (h != 11) dimensions.push_back({"region", StrCat("r", h % 3)});
    for (int m = 0; m < 60; m += 5) {
      const int64_t millis = (kStart + (hour * 60 + m) * kNanosPerMinute) / kNanosPerMilli;
      InputRecord cpu;
      cpu.dimensions = dimensions;
      cpu.measure_name = "cpu";
      cpu.time = millis;
      if (uniform(0, 19) != 0) {
        cpu.measure_values.push_back(
            {"usage", std::nullopt, Value::Double(uniform(-500, 10000) / 100.0)});
      }
      const bool extreme = h == 2 && hour == 1 && m == 30;
      cpu.measure_values.push_back(
          {"procs", std::nullopt, Value::Bigint(extreme ? int64_t{1} << 62 : uniform(0, 500))});
      if (uniform(0, 9) != 0) {
        cpu.measure_values.push_back(
            {"state", std::nullopt, Value::Varchar(kStates[uniform(0, 2)])});
      }
      cpu.measure_values.push_back({"up", std::nullopt, Value::Boolean(uniform(0, 3) != 0)});
      records.push_back(std::move(cpu));
      if (h < 4 && m % 15 == 0) {
        InputRecord temp;
        temp.dimensions = dimensions;
        temp.measure_name = "temp";
        temp.time = millis;
        temp.measure_values.push_back(
            {"temp", std::nullopt, Value::Double(uniform(1500, 3500) / 100.0)});
        records.push_back(std::move(temp));
      }
    }
  }
  return records;
}

// Rows written late into the sealed hours: new points between the 5-minute ones, and points
// written again with a higher version and other values (upserts).
std::vector<InputRecord> LateRows(std::mt19937& random) {
  std::vector<InputRecord> records;
  std::set<std::tuple<int, int, int>> written;
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(random); };
  for (int i = 0; i < 150; ++i) {
    const int h = uniform(0, kHosts - 1), hour = uniform(0, 3);
    const bool upsert = i % 2 == 0;
    const int minute = upsert ? 5 * uniform(0, 11) : 5 * uniform(0, 11) + uniform(1, 4);
    if (!written.insert({h, hour, minute}).second) continue;  // each point once
    InputRecord cpu;
    cpu.dimensions = {{"host", StrCat("h", h)}};
    if (h != 11) cpu.dimensions.push_back({"region", StrCat("r", h % 3)});
    cpu.measure_name = "cpu";
    cpu.time = (kStart + (hour * 60 + minute) * kNanosPerMinute) / kNanosPerMilli;
    if (upsert) cpu.version = 2;
    cpu.measure_values.push_back(
        {"usage", std::nullopt, Value::Double(uniform(-500, 10000) / 100.0)});
    cpu.measure_values.push_back({"procs", std::nullopt, Value::Bigint(uniform(0, 500))});
    cpu.measure_values.push_back({"state", std::nullopt, Value::Varchar("late")});
    cpu.measure_values.push_back({"up", std::nullopt, Value::Boolean(true)});
    records.push_back(std::move(cpu));
  }
  return records;
}

void WriteAll(testing::InProcess& backend, const std::vector<InputRecord>& records) {
  for (size_t i = 0; i < records.size(); i += 100) {
    WriteRequest request{.database_name = "tiers", .table_name = "metrics"};
    request.records.assign(
        records.begin() + static_cast<int64_t>(i),
        records.begin() + static_cast<int64_t>(std::min(records.size(), i + 100)));
    absl::StatusOr<WriteResult> written = backend.Write(request);
    ASSERT_TRUE(written.ok()) << written.status();
    ASSERT_TRUE(written->rejected.empty()) << written->rejected.front().reason;
  }
}

// Each result as text, its lines sorted unless the query orders them.
std::string Answer(testing::InProcess& backend, const std::string& sql) {
  absl::StatusOr<std::vector<std::string>> lines = backend.Query(sql);
  if (!lines.ok()) return StrCat("error: ", lines.status().message());
  if (sql.find(" ORDER BY ") == std::string::npos) std::sort(lines->begin(), lines->end());
  return absl::StrJoin(*lines, "\n");
}

// Where the table's rows are: "blocks | head | late rows".
std::string Tiers(testing::InProcess& backend) {
  return Answer(backend,
                "SELECT magnetic_store_blocks > 0, memory_store_rows > 0, late_write_rows > 0 "
                "FROM system.tables");
}

TEST(TierDifferentialTest, GeneratedQueriesAnswerAlikeFromTheHeadAndFromBlocks) {
  testing::InProcess backend;
  backend.SetClock(kStart);
  ASSERT_TRUE(backend.CreateDatabase("tiers").ok());
  TableSpec spec{.database_name = "tiers", .table_name = "metrics"};
  spec.retention.memory_store_retention_hours = 2;
  spec.retention.magnetic_store_retention_days = 30;
  spec.enable_magnetic_store_writes = true;
  ASSERT_TRUE(backend.CreateTable(spec).ok());
  // Each hour written as it happens, so that every row enters the memory head.
  std::mt19937 random(7);
  for (int hour = 0; hour < kHours; ++hour) {
    backend.SetClock(kStart + (hour * 60 + 59) * kNanosPerMinute);
    WriteAll(backend, HourOfRows(hour, random));
  }
  backend.SetClock(kStart + kHours * 60 * kNanosPerMinute);

  QueryGrammar grammar(2024);
  std::vector<std::string> queries;
  for (int i = 0; i < 400; ++i) queries.push_back(grammar.Next());
  std::vector<std::string> before;
  auto ask_all = [&] {
    before.clear();
    for (const std::string& sql : queries) before.push_back(Answer(backend, sql));
  };
  auto same_again = [&](const std::string& step) {
    for (size_t i = 0; i < queries.size(); ++i) {
      EXPECT_EQ(Answer(backend, queries[i]), before[i]) << step << ": " << queries[i];
    }
  };
  ask_all();
  // The hours before the memory store's two are sealed into blocks.
  backend.Maintain();
  ASSERT_EQ(Tiers(backend), "true | true | false");
  same_again("sealed into blocks");
  // The grammar makes valid statements: an error is the exception it reports.
  EXPECT_LT(std::count_if(before.begin(), before.end(),
                          [](const std::string& a) { return a.rfind("error: ", 0) == 0; }),
            20);

  // Late rows into the sealed hours are merged at read time, then into the blocks.
  WriteAll(backend, LateRows(random));
  ASSERT_EQ(Tiers(backend), "true | true | true");
  ask_all();
  backend.Maintain();
  ASSERT_EQ(Tiers(backend), "true | true | false");
  same_again("late rows merged into blocks");
}

// CUBE, ROLLUP and GROUPING SETS of generated keys and aggregates against the UNION ALL of
// one plain GROUP BY per set, the keys outside the set NULL; with the same conditions. Over the
// head and the blocks both (an hour sealed).
TEST(GroupingSetsDifferentialTest, GroupingSetsAnswerAsTheUnionOfOneGroupByPerSet) {
  testing::InProcess backend;
  backend.SetClock(kStart);
  ASSERT_TRUE(backend.CreateDatabase("tiers").ok());
  TableSpec spec{.database_name = "tiers", .table_name = "metrics"};
  spec.retention.memory_store_retention_hours = 1;
  spec.retention.magnetic_store_retention_days = 30;
  ASSERT_TRUE(backend.CreateTable(spec).ok());
  std::mt19937 random(11);
  for (int hour = 0; hour < 2; ++hour) {
    backend.SetClock(kStart + (hour * 60 + 59) * kNanosPerMinute);
    WriteAll(backend, HourOfRows(hour, random));
  }
  backend.SetClock(kStart + 2 * 60 * kNanosPerMinute + kNanosPerMinute);
  backend.Maintain();
  ASSERT_EQ(Tiers(backend), "true | true | false");

  const std::vector<std::string> keys = {"host", "region", "state", "measure_name",
                                         "bin(time, 30m)"};
  const std::vector<std::string> aggregates = {
      "count(*)",           "round(sum(usage), 4)", "max(procs)",
      "min(state)",         "count(DISTINCT host)", "max_by(usage, time)",
      "round(avg(temp), 4)"};
  const std::vector<std::string> conditions = {"", " WHERE usage > 20", " WHERE host <> 'h4'",
                                               " WHERE time > ago(90m)"};
  std::mt19937 pick(5);
  auto uniform = [&](size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(pick); };
  for (int q = 0; q < 60; ++q) {
    std::vector<std::string> chosen;
    for (size_t n = 1 + uniform(3); chosen.size() < n;) {
      const std::string& k = keys[uniform(keys.size())];
      if (std::find(chosen.begin(), chosen.end(), k) == chosen.end()) chosen.push_back(k);
    }
    const std::string aggregate =
        aggregates[uniform(aggregates.size())] + ", " + aggregates[uniform(aggregates.size())];
    const std::string where = conditions[uniform(conditions.size())];
    // The sets as bit masks over `chosen` (bit k: key k grouped).
    std::vector<uint32_t> sets;
    std::string form;
    const uint32_t all = (1u << chosen.size()) - 1;
    switch (uniform(3)) {
      case 0:  // CUBE: every subset
        form = "CUBE";
        for (uint32_t m = all + 1; m-- > 0;) sets.push_back(m);
        break;
      case 1:  // ROLLUP: each prefix
        form = "ROLLUP";
        for (size_t n = chosen.size() + 1; n-- > 0;) sets.push_back((1u << n) - 1);
        break;
      default:  // GROUPING SETS: the first key alone, all of them, and ()
        form = "GROUPING SETS";
        sets = {1u, all, 0u};
        break;
    }
    std::string grouped = "SELECT " + absl::StrJoin(chosen, ", ") + ", " + aggregate +
                          " FROM tiers.metrics" + where + " GROUP BY " + form + " (";
    if (form == "GROUPING SETS") {
      grouped += "(" + chosen[0] + "), (" + absl::StrJoin(chosen, ", ") + "), ())";
    } else {
      grouped += absl::StrJoin(chosen, ", ") + ")";
    }
    std::vector<std::string> selects;
    for (uint32_t set : sets) {
      std::vector<std::string> items, by;
      for (size_t k = 0; k < chosen.size(); ++k) {
        const bool in = set >> k & 1;
        items.push_back(in ? chosen[k] : "NULL");
        if (in) by.push_back(chosen[k]);
      }
      selects.push_back("SELECT " + absl::StrJoin(items, ", ") + ", " + aggregate +
                        " FROM tiers.metrics" + where +
                        (by.empty() ? "" : " GROUP BY " + absl::StrJoin(by, ", ")));
    }
    const std::string united = absl::StrJoin(selects, " UNION ALL ");
    const std::string answer = Answer(backend, grouped);
    EXPECT_EQ(answer, Answer(backend, united)) << grouped;
    EXPECT_EQ(answer.rfind("error: ", 0), std::string::npos) << grouped << "\n" << answer;
  }
}

}  // namespace
}  // namespace strata
