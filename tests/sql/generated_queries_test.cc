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
#include <cstdint>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/clock.h"
#include "common/strings.h"
#include "gtest/gtest.h"
#include "tests/sql/in_process_backend.h"
#include "tests/support/generated_sql.h"

namespace strata {
namespace {

constexpr int kHours = 6;
constexpr int64_t kStart = testing::kGeneratedStartMillis * kNanosPerMilli;

// A generated row as a write's record.
InputRecord ToRecord(const testing::GeneratedRow& row) {
  InputRecord r;
  for (const auto& [name, value] : row.dimensions) r.dimensions.push_back({name, value});
  r.measure_name = row.measure_name;
  r.time = row.time_millis;
  if (row.version != 1) r.version = row.version;
  for (const auto& [name, value] : row.values) {
    Value v;
    if (const double* d = std::get_if<double>(&value)) v = Value::Double(*d);
    if (const int64_t* i = std::get_if<int64_t>(&value)) v = Value::Bigint(*i);
    if (const std::string* t = std::get_if<std::string>(&value)) v = Value::Varchar(*t);
    if (const bool* b = std::get_if<bool>(&value)) v = Value::Boolean(*b);
    r.measure_values.push_back({name, std::nullopt, v});
  }
  return r;
}

void WriteAll(testing::InProcess& backend, const std::vector<testing::GeneratedRow>& rows) {
  std::vector<InputRecord> records;
  for (const testing::GeneratedRow& row : rows) records.push_back(ToRecord(row));
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
  if (!testing::OrdersItsRows(sql)) std::sort(lines->begin(), lines->end());
  return absl::StrJoin(*lines, "\n");
}

// Makes the table tiers.metrics (magnetic writes on, for late rows) and writes `hours` generated
// hours into it, each as it happens so that every row enters the memory head; the clock then
// stands at the end of the last hour.
void LoadGeneratedHours(testing::InProcess& backend, int hours, int memory_hours,
                        std::mt19937& random) {
  backend.SetClock(kStart);
  ASSERT_TRUE(backend.CreateDatabase("tiers").ok());
  TableSpec spec{.database_name = "tiers", .table_name = "metrics"};
  spec.retention.memory_store_retention_hours = memory_hours;
  spec.retention.magnetic_store_retention_days = 30;
  spec.enable_magnetic_store_writes = true;
  ASSERT_TRUE(backend.CreateTable(spec).ok());
  for (int hour = 0; hour < hours; ++hour) {
    backend.SetClock(kStart + (hour * 60 + 59) * kNanosPerMinute);
    WriteAll(backend, testing::GeneratedHour(hour, random));
  }
  backend.SetClock(kStart + hours * 60 * kNanosPerMinute);
}

// Where the table's rows are: "blocks | head | late rows".
std::string Tiers(testing::InProcess& backend) {
  return Answer(backend,
                "SELECT magnetic_store_blocks > 0, memory_store_rows > 0, late_write_rows > 0 "
                "FROM system.tables");
}

// Runs `check` (given the step's name) over the rows in the memory head, then sealed into
// blocks (the hours before the memory store's two), then with late rows into the sealed hours
// merged at read time.
void AcrossTiers(testing::InProcess& backend, std::mt19937& random,
                 const std::function<void(const std::string& step)>& check) {
  check("the memory head");
  backend.Maintain();
  ASSERT_EQ(Tiers(backend), "true | true | false");
  check("sealed into blocks");
  WriteAll(backend, testing::GeneratedLateRows(random));
  ASSERT_EQ(Tiers(backend), "true | true | true");
  check("late rows merged at read time");
}

TEST(TierDifferentialTest, GeneratedQueriesAnswerAlikeFromTheHeadAndFromBlocks) {
  testing::InProcess backend;
  std::mt19937 random(7);
  ASSERT_NO_FATAL_FAILURE(LoadGeneratedHours(backend, kHours, 2, random));

  testing::QueryGrammar grammar(testing::GeneratedSeed(2024), "tiers.metrics");
  std::vector<std::string> queries;
  for (int i = 0; i < testing::GeneratedQueries(400); ++i) queries.push_back(grammar.Next());
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
  WriteAll(backend, testing::GeneratedLateRows(random));
  ASSERT_EQ(Tiers(backend), "true | true | true");
  ask_all();
  backend.Maintain();
  ASSERT_EQ(Tiers(backend), "true | true | false");
  same_again("late rows merged into blocks");
}

// Ternary logic partitioning (SQLancer's TLP): every row is in exactly one of WHERE p,
// WHERE NOT (p) and WHERE (p) IS NULL, so their counts and sums, by host, add up to the
// table's. Over the memory head, over blocks (whose headers' ranges prune them, and whose
// columns hold the NULLs of absent measures), and with late rows merged at read time.
TEST(PartitionedPredicateTest, EveryRowIsInOneOfPNotPAndPIsNull) {
  testing::InProcess backend;
  std::mt19937 random(13);
  ASSERT_NO_FATAL_FAILURE(LoadGeneratedHours(backend, kHours, 2, random));
  testing::QueryGrammar grammar(testing::GeneratedSeed(99), "tiers.metrics");
  std::vector<std::string> predicates;
  for (int i = 0; i < testing::GeneratedQueries(150); ++i) {
    predicates.push_back(grammar.Predicate());
  }
  // Each host's row count and sum of procs (as text: it is BIGINT), under `where`.
  auto by_host = [&](const std::string& where) {
    std::map<std::string, std::pair<int64_t, int64_t>> hosts;
    absl::StatusOr<std::vector<std::string>> lines =
        backend.Query("SELECT host, count(*), coalesce(sum(procs), 0) FROM tiers.metrics" + where +
                      " GROUP BY host");
    EXPECT_TRUE(lines.ok()) << where << ": " << lines.status();
    if (!lines.ok()) return hosts;
    for (const std::string& line : *lines) {
      const std::vector<std::string> fields = absl::StrSplit(line, " | ");
      if (fields.size() != 3) continue;
      hosts[fields[0]] = {std::stoll(fields[1]), std::stoll(fields[2])};
    }
    return hosts;
  };
  auto check_all = [&](const std::string& step) {
    const auto whole = by_host("");
    ASSERT_EQ(whole.size(), static_cast<size_t>(testing::kGeneratedHosts)) << step;
    for (const std::string& p : predicates) {
      std::map<std::string, std::pair<int64_t, int64_t>> added;
      // Each host's counts in the three parts, as "a b c".
      std::map<std::string, std::string> counted;
      for (const std::string& where :
           {" WHERE " + p, " WHERE NOT (" + p + ")", " WHERE (" + p + ") IS NULL"}) {
        const auto part = by_host(where);
        for (const auto& [host, sums] : whole) {
          const auto it = part.find(host);
          const std::pair<int64_t, int64_t> in =
              it == part.end() ? std::pair<int64_t, int64_t>{0, 0} : it->second;
          added[host].first += in.first;
          added[host].second += in.second;
          absl::StrAppend(&counted[host], counted[host].empty() ? "" : " ", in.first);
        }
      }
      EXPECT_EQ(added, whole) << step << ": " << p;
      // And the same counts from p as a value, not a filter (no pruning, no pushed
      // condition: each row's p computed).
      absl::StatusOr<std::vector<std::string>> lines = backend.Query(
          absl::StrCat("SELECT host, count_if(", p, "), count_if(NOT (", p, ")), count_if((", p,
                       ") IS NULL) FROM tiers.metrics GROUP BY host"));
      ASSERT_TRUE(lines.ok()) << p << ": " << lines.status();
      std::map<std::string, std::string> valued;
      for (const std::string& line : *lines) {
        const std::vector<std::string> fields = absl::StrSplit(line, " | ");
        ASSERT_EQ(fields.size(), 4u) << line;
        valued[fields[0]] = absl::StrCat(fields[1], " ", fields[2], " ", fields[3]);
      }
      EXPECT_EQ(valued, counted) << step << ": " << p;
    }
  };
  AcrossTiers(backend, random, check_all);
}

// Statements the engine answers by a shortcut (QueryGrammar::Shortcut: LIMIT ... OFFSET over
// rows or groups, last points) against the same question asked plainly, for generated
// conditions, over the head, the blocks and late rows.
TEST(ShortcutDifferentialTest, ShortcutsAnswerAsThePlainStatement) {
  testing::InProcess backend;
  std::mt19937 random(17);
  ASSERT_NO_FATAL_FAILURE(LoadGeneratedHours(backend, kHours, 2, random));
  testing::QueryGrammar grammar(testing::GeneratedSeed(31), "tiers.metrics");
  std::vector<testing::QueryGrammar::ShortcutPair> pairs;
  for (int i = 0; i < testing::GeneratedQueries(100); ++i) pairs.push_back(grammar.Shortcut());
  auto check_all = [&](const std::string& step) {
    for (const testing::QueryGrammar::ShortcutPair& pair : pairs) {
      absl::StatusOr<std::vector<std::string>> plain = backend.Query(pair.plain);
      ASSERT_TRUE(plain.ok()) << pair.plain << ": " << plain.status();
      std::vector<std::string> lines = *plain;
      if (pair.limit > 0) {
        lines.erase(lines.begin(), lines.begin() + std::min(pair.offset, lines.size()));
        lines.resize(std::min(pair.limit, lines.size()));
      } else {
        std::sort(lines.begin(), lines.end());
      }
      EXPECT_EQ(Answer(backend, pair.shortcut), absl::StrJoin(lines, "\n"))
          << step << ": " << pair.shortcut;
    }
  };
  AcrossTiers(backend, random, check_all);
}

// CUBE, ROLLUP and GROUPING SETS of generated keys and aggregates against the UNION ALL of
// one plain GROUP BY per set, the keys outside the set NULL; with the same conditions. Over the
// head and the blocks both (an hour sealed).
TEST(GroupingSetsDifferentialTest, GroupingSetsAnswerAsTheUnionOfOneGroupByPerSet) {
  testing::InProcess backend;
  std::mt19937 random(11);
  ASSERT_NO_FATAL_FAILURE(LoadGeneratedHours(backend, 2, 1, random));
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
  std::mt19937 pick(testing::GeneratedSeed(5));
  auto uniform = [&](size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(pick); };
  for (int q = 0; q < testing::GeneratedQueries(60); ++q) {
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
