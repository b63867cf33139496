// Generated SQL and rows for differential tests: queries drawn from a grammar with a fixed
// seed, and TSBS-like rows with the awkward cases (NULL and absent measures, a host without a
// dimension, a second measure, one BIGINT of 2^62), so that two ways to an answer can be
// compared over a few hundred shapes: the memory head against magnetic blocks
// (tests/sql/generated_queries_test.cc), a cluster's fragments against one node's replicas
// (tests/cluster/cluster_generated_queries_test.cc).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <variant>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace strata::testing {

// The grammar's table holds 12 hosts (h0..h11) from 2024-03-10T06:00:00Z.
inline constexpr int kGeneratedHosts = 12;
inline constexpr int64_t kGeneratedStartMillis = 1710050400000;

// A record: a MULTI measure's values by name (absent ones are NULL).
struct GeneratedRow {
  std::vector<std::pair<std::string, std::string>> dimensions;
  std::string measure_name;
  int64_t time_millis = 0;
  int64_t version = 1;
  std::vector<std::pair<std::string, std::variant<double, int64_t, std::string, bool>>> values;
};

// Hour `hour` from the start: every host's cpu row each 5 minutes (usage, procs, state, up;
// some left out) and four hosts' temp each 15 minutes. Host h11 has no region.
inline std::vector<GeneratedRow> GeneratedHour(int hour, std::mt19937& random) {
  std::vector<GeneratedRow> rows;
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(random); };
  static const char* kStates[] = {"ok", "degraded", "down"};
  for (int h = 0; h < kGeneratedHosts; ++h) {
    std::vector<std::pair<std::string, std::string>> dimensions = {{"host", absl::StrCat("h", h)}};
    if (h != 11) dimensions.push_back({"region", absl::StrCat("r", h % 3)});
    for (int m = 0; m < 60; m += 5) {
      const int64_t millis = kGeneratedStartMillis + (hour * 60 + m) * int64_t{60'000};
      GeneratedRow cpu{.dimensions = dimensions, .measure_name = "cpu", .time_millis = millis};
      if (uniform(0, 19) != 0) cpu.values.push_back({"usage", uniform(-500, 10000) / 100.0});
      const bool extreme = h == 2 && hour == 1 && m == 30;
      cpu.values.push_back({"procs", extreme ? int64_t{1} << 62 : int64_t{uniform(0, 500)}});
      if (uniform(0, 9) != 0) cpu.values.push_back({"state", std::string(kStates[uniform(0, 2)])});
      cpu.values.push_back({"up", uniform(0, 3) != 0});
      rows.push_back(std::move(cpu));
      if (h < 4 && m % 15 == 0) {
        GeneratedRow temp{.dimensions = dimensions, .measure_name = "temp", .time_millis = millis};
        temp.values.push_back({"temp", uniform(1500, 3500) / 100.0});
        rows.push_back(std::move(temp));
      }
    }
  }
  return rows;
}

// Rows written late into hours 0..3: new points between the 5-minute ones, and points written
// again with version 2 and other values (upserts); each point once.
inline std::vector<GeneratedRow> GeneratedLateRows(std::mt19937& random) {
  std::vector<GeneratedRow> rows;
  std::set<std::tuple<int, int, int>> written;
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(random); };
  for (int i = 0; i < 150; ++i) {
    const int h = uniform(0, kGeneratedHosts - 1), hour = uniform(0, 3);
    const bool upsert = i % 2 == 0;
    const int minute = upsert ? 5 * uniform(0, 11) : 5 * uniform(0, 11) + uniform(1, 4);
    if (!written.insert({h, hour, minute}).second) continue;
    GeneratedRow cpu{.dimensions = {{"host", absl::StrCat("h", h)}},
                     .measure_name = "cpu",
                     .time_millis = kGeneratedStartMillis + (hour * 60 + minute) * int64_t{60'000},
                     .version = upsert ? 2 : 1};
    if (h != 11) cpu.dimensions.push_back({"region", absl::StrCat("r", h % 3)});
    cpu.values.push_back({"usage", uniform(-500, 10000) / 100.0});
    cpu.values.push_back({"procs", int64_t{uniform(0, 500)}});
    cpu.values.push_back({"state", std::string("late")});
    cpu.values.push_back({"up", true});
    rows.push_back(std::move(cpu));
  }
  return rows;
}

// Queries of the generated rows' table (group keys and time bins, ROLLUP, aggregates,
// conditions on dimensions, measures and time, HAVING, ORDER BY ... LIMIT over every key,
// newest-first rows, last points), the same ones for the same seed. A query without ORDER BY
// has no order: compare its rows sorted.
class QueryGrammar {
 public:
  // Queries of `table` ("db.name").
  QueryGrammar(uint32_t seed, std::string table) : random_(seed), table_(std::move(table)) {}

  // A condition for ternary logic partitioning (as SQLancer's TLP): atoms over dimensions,
  // measures (NULL in many rows), time and expressions, joined by AND, OR and NOT up to two
  // deep. Every row is in exactly one of WHERE p, WHERE NOT (p) and WHERE (p) IS NULL.
  std::string Predicate(int depth = 0) {
    static const std::vector<std::string> kAtoms = {
        "usage > 40",
        "usage <= 12.5",
        "usage = 50",
        "usage BETWEEN 10 AND 60",
        "usage IS NULL",
        "procs < 100",
        "procs IN (1, 2, 3, 250)",
        "procs >= 4611686018427387904",
        "state = 'ok'",
        "state LIKE 'd%'",
        "state IN ('ok', 'down')",
        "state IS NULL",
        "host = 'h3'",
        "host <> 'h3'",
        "host IN ('h1', 'h11')",
        "host > 'h5'",
        "region = 'r1'",
        "region IS NULL",
        "region LIKE 'r%'",
        "measure_name = 'cpu'",
        "time > TIMESTAMP '2024-03-10 08:00:00'",
        "time BETWEEN TIMESTAMP '2024-03-10 07:15:00' AND TIMESTAMP '2024-03-10 09:40:00'",
        "time < TIMESTAMP '2024-03-10 06:30:00'",
        "up",
        "temp > 20",
        "coalesce(usage, 0) > 10",
        "abs(usage) < 5",
        "usage + procs > 100",
        "usage > temp",
        "CASE WHEN state = 'ok' THEN usage > 50 ELSE procs < 200 END",
        "hour(time) = 7",
        "length(state) > 2",
        // NaN (the root of a negative usage) and infinities (a division by zero): every
        // comparison with a NaN is false, so NOT of one is true; the rows stored hold neither.
        "sqrt(usage) > 3",
        "sqrt(usage) <= 3",
        "sqrt(usage) = sqrt(usage)",
        "usage / (procs - procs) > 0",
    };
    if (depth >= 2 || Chance(40)) return OneOf(kAtoms);
    switch (Pick(3)) {
      case 0:
        return absl::StrCat("(", Predicate(depth + 1), " AND ", Predicate(depth + 1), ")");
      case 1:
        return absl::StrCat("(", Predicate(depth + 1), " OR ", Predicate(depth + 1), ")");
      default:
        return absl::StrCat("NOT (", Predicate(depth + 1), ")");
    }
  }

  // A statement the engine answers by a shortcut, and the same question asked plainly: ORDER BY
  // ... LIMIT n OFFSET m of rows (a scan newest first that stops early) or of groups (the first
  // groups kept in a bounded heap), whose answer is the plain one's lines m to m + n; last
  // points (max_by(x, time) by series, read from each series' newest rows), whose answer is
  // row_number() over each series newest first (limit 0: compare the lines sorted).
  struct ShortcutPair {
    std::string shortcut, plain;
    size_t offset = 0, limit = 0;
  };
  ShortcutPair Shortcut() {
    const std::string where = Pick(4) == 0 ? "" : " WHERE " + Predicate();
    const size_t limit = 1 + Pick(30), offset = Chance(33) ? Pick(10) : 0;
    const std::string cut =
        absl::StrCat(" LIMIT ", limit, offset ? absl::StrCat(" OFFSET ", offset) : "");
    switch (Pick(3)) {
      case 0: {
        const std::string sql =
            absl::StrCat("SELECT time, host, measure_name, usage, state FROM ", table_, where,
                         " ORDER BY time", Chance(50) ? " DESC" : "", ", host, measure_name");
        return {sql + cut, sql, offset, limit};
      }
      case 1: {
        const std::string sql = absl::StrCat(
            "SELECT host, bin(time, 15m), count(*), max(usage), min(state) FROM ", table_, where,
            " GROUP BY 1, 2 ORDER BY 2", Chance(50) ? " DESC" : "", ", 1");
        return {sql + cut, sql, offset, limit};
      }
      default: {
        const std::string recent = Chance(50) ? where : " WHERE time > ago(100m)";
        return {absl::StrCat("SELECT host, measure_name, max_by(usage, time), max_by(state, "
                             "time), max(time) FROM ",
                             table_, recent, " GROUP BY host, measure_name"),
                absl::StrCat("SELECT host, measure_name, usage, state, time FROM (SELECT host, "
                             "measure_name, usage, state, time, row_number() OVER (PARTITION BY "
                             "host, measure_name ORDER BY time DESC) AS newest FROM ",
                             table_, recent, ") WHERE newest = 1")};
      }
    }
  }

  std::string Next() {
    switch (Pick(10)) {
      case 0:
        return NewestRows();
      case 1:
        return LastPoints();
      case 2:
        return Windowed();
      case 3:
        return Combined();
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
    const std::vector<std::string> conditions = {
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
        "host LIKE 'h1%'",
        "NOT (usage > 30)",
        "(procs < 50 OR state = 'down')",
        "region <> 'r0'",
        "usage IS NOT NULL",
        "measure_name IN ('cpu', 'temp')",
        "host IN (SELECT host FROM " + table_ + " WHERE procs > 450)",
    };
    const size_t n = Pick(3);
    std::vector<std::string> chosen;
    for (size_t i = 0; i < n; ++i) chosen.push_back(OneOf(conditions));
    return chosen.empty() ? "" : " WHERE " + absl::StrJoin(chosen, " AND ");
  }

  std::string Grouped() {
    static const std::vector<std::string> kKeys = {"host",
                                                   "region",
                                                   "measure_name",
                                                   "bin(time, 1h)",
                                                   "bin(time, 15m)",
                                                   "date_trunc('hour', time)",
                                                   "bin(time, 1d)",
                                                   "state",
                                                   "time_bucket('20 minutes', time)",
                                                   "floor(to_unixtime(time) / 600) * 600"};
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
        // By a key no two rows share: with ties (every host writes at the same times)
        // either row is an answer, and a cluster's merge may pick another than one node.
        "max_by(usage, concat(CAST(time AS varchar), host, measure_name))",
        "min_by(procs, concat(CAST(time AS varchar), host, measure_name))",
        "max(time)",
        "min(time)",
        "round(sum(temp), 4)",
        "max(temp)",
        "approx_distinct(state)",
        "round(stddev(usage), 4)",
        "sum(CASE WHEN state = 'ok' THEN 1 ELSE 0 END)",
        "round(avg(if(up, usage)), 4)",
        "max(greatest(usage, procs))",
        "count(CASE region WHEN 'r1' THEN host END)",
        "bool_and(up)",
        "bool_or(up)",
        "round(variance(usage), 4)",
        "count(DISTINCT state)",
        "max(length(state))",
        "sum(procs) FILTER (WHERE up)",
        "count(*) FILTER (WHERE usage > 50)",
        "round(geometric_mean(procs), 4)",
        "count_if(time > ago(2h))",
        // Aggregates with an order of their own, a total one (a series has one row a time).
        "substr(string_agg(state, ',' ORDER BY time DESC, host, measure_name), 1, 40)",
        "element_at(array_agg(usage ORDER BY time, host, measure_name), 1)",
        "listagg(DISTINCT state, '/') WITHIN GROUP (ORDER BY state DESC)",
        "round(percentile_cont(0.5) WITHIN GROUP (ORDER BY usage), 4)",
        "percentile_disc(0.9) WITHIN GROUP (ORDER BY procs DESC)",
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
    std::string sql = "SELECT " + absl::StrJoin(items, ", ") + " FROM " + table_ + Where();
    if (keys.empty()) return sql;
    std::vector<std::string> positions;
    for (size_t k = 1; k <= keys.size(); ++k) positions.push_back(std::to_string(k));
    const std::string by = absl::StrJoin(positions, ", ");
    sql += Chance(15) ? " GROUP BY ROLLUP (" + by + ")" : " GROUP BY " + by;
    if (Chance(30)) sql += " HAVING count(*) > 3";
    if (Chance(30)) {
      // Every key in the order: the first n groups are one set, whatever the ties.
      sql += absl::StrCat(" ORDER BY ", by, Chance(50) ? " DESC" : "", " LIMIT ", 1 + Pick(20));
    }
    return sql;
  }

  // A window over each series' rows in time order (a series has one row a time), or over a
  // dimension's partition; the input filtered first.
  std::string Windowed() {
    static const std::vector<std::string> kFunctions = {
        "row_number() OVER (PARTITION BY host, measure_name ORDER BY time)",
        "lag(usage) OVER (PARTITION BY host, measure_name ORDER BY time)",
        "lead(state, 2) OVER (PARTITION BY host, measure_name ORDER BY time)",
        "round(avg(usage) OVER (PARTITION BY host, measure_name ORDER BY time ROWS BETWEEN 2 "
        "PRECEDING AND CURRENT ROW), 4)",
        "sum(procs) OVER (PARTITION BY host, measure_name ORDER BY time)",
        "max(usage) OVER (PARTITION BY region)",
        "count(*) OVER (PARTITION BY measure_name)",
        "rank() OVER (PARTITION BY region ORDER BY procs DESC)",
        "first_value(usage) OVER (PARTITION BY host, measure_name ORDER BY time DESC)",
    };
    return absl::StrCat("SELECT host, measure_name, time, ", OneOf(kFunctions), " FROM ", table_,
                        Where());
  }

  // Subqueries, joins, set operations and CTEs over the table: their inputs read (through a
  // cluster: fetched as rows or groups) and combined after.
  std::string Combined() {
    const std::string& t = table_;
    switch (Pick(6)) {
      case 0:
        return absl::StrCat("SELECT host, count(*) FROM ", t, " WHERE host IN (SELECT host FROM ",
                            t, " WHERE state = 'down' AND usage > 60) GROUP BY host");
      case 1:
        return absl::StrCat("SELECT a.host, count(*), round(max(a.usage - b.m), 4) FROM ", t,
                            " a JOIN (SELECT host, avg(usage) AS m FROM ", t,
                            " GROUP BY host) b ON a.host = b.host", " WHERE a.usage > b.m",
                            " GROUP BY a.host");
      case 2: {
        static const std::vector<std::string> kOperators = {"UNION", "UNION ALL", "INTERSECT",
                                                            "EXCEPT"};
        return absl::StrCat("SELECT host, state FROM ", t, " WHERE usage > 80 ", OneOf(kOperators),
                            " SELECT host, state FROM ", t, Where());
      }
      case 3:
        return absl::StrCat(
            "WITH hourly AS (SELECT host, bin(time, 1h) AS hour, avg(usage) AS u "
            "FROM ",
            t, Where(),
            " GROUP BY 1, 2) SELECT hour, count(*), round(max(u), 4), "
            "round(min(u), 4) FROM hourly GROUP BY hour");
      case 4:
        return absl::StrCat("SELECT host, time, usage FROM ", t, " WHERE usage > (SELECT ",
                            "avg(usage) + 2 * stddev(usage) FROM ", t, ")");
      default:
        return absl::StrCat("SELECT region, CASE WHEN usage > 50 THEN 'high' ELSE 'low' END, ",
                            "count(*) FROM ", t, Where(), " GROUP BY 1, 2");
    }
  }

  // ORDER BY time DESC LIMIT n: the scan reads newest first and stops early.
  std::string NewestRows() {
    return absl::StrCat("SELECT time, host, measure_name, usage, procs, state, temp FROM ", table_,
                        Where(), " ORDER BY time DESC, host, measure_name LIMIT ", 1 + Pick(40));
  }

  // A last point per series: read from each series' newest row only.
  std::string LastPoints() {
    static const std::vector<std::string> kLast = {"max_by(usage, time)", "max(time)",
                                                   "max_by(state, time)", "max_by(temp, time)"};
    return absl::StrCat("SELECT host, measure_name, ", OneOf(kLast), " FROM " + table_,
                        Chance(50) ? " WHERE time > ago(30m)" : "", " GROUP BY host, measure_name");
  }

  std::mt19937 random_;
  std::string table_;
};

// The grammar's seed and the number of queries a test asks, unless STRATA_GENERATED_SEED or
// STRATA_GENERATED_QUERIES says otherwise: run a test with other seeds and more queries to
// look for differences beyond the ones CI asks (the cluster's count over no rows was found so).
inline uint32_t GeneratedSeed(uint32_t fallback) {
  const char* seed = std::getenv("STRATA_GENERATED_SEED");
  return seed != nullptr ? static_cast<uint32_t>(std::strtoul(seed, nullptr, 10)) : fallback;
}
inline int GeneratedQueries(int fallback) {
  const char* count = std::getenv("STRATA_GENERATED_QUERIES");
  return count != nullptr ? std::atoi(count) : fallback;
}

// Whether `sql` orders its rows: an ORDER BY of the statement, not of a window (OVER (...)).
// Compare the rows of one that does not sorted.
inline bool OrdersItsRows(const std::string& sql) {
  const size_t at = sql.rfind(" ORDER BY ");
  return at != std::string::npos && sql.find(')', at) == std::string::npos;
}

// Whether two answers' texts agree: the same lines and fields, where a number with a fraction
// may differ by one unit of the grammar's round(x, 4), or of the sixth significant digit the
// cluster tests' answers print. Sums of doubles depend on the order they are added in, and an
// average of two-decimal values often ends in a 5 at the fifth decimal, so a rounded average
// may land either side (a cluster merges its fragments as they come). Fields are split at
// '|' and compared without the spaces around them; `absolute` and `relative` are the
// tolerances (either suffices).
inline bool AnswersAgree(const std::string& a, const std::string& b, double absolute = 1.0001e-4,
                         double relative = 1.0001e-5) {
  if (a == b) return true;
  const std::vector<std::string> a_fields = absl::StrSplit(a, absl::ByAnyChar("|\n"));
  const std::vector<std::string> b_fields = absl::StrSplit(b, absl::ByAnyChar("|\n"));
  if (a_fields.size() != b_fields.size()) return false;
  for (size_t i = 0; i < a_fields.size(); ++i) {
    const std::string x(absl::StripAsciiWhitespace(a_fields[i]));
    const std::string y(absl::StripAsciiWhitespace(b_fields[i]));
    if (x == y) continue;
    // Two whole numbers must be equal; a double may print as a whole number ("0" for a sum
    // whose terms cancel exactly, beside "-3.55271e-15" where they were added in another
    // order), so one side with a fraction or an exponent makes it a double.
    const auto fractional = [](const std::string& v) {
      return v.find_first_of(".eE") != std::string::npos;
    };
    if (!fractional(x) && !fractional(y)) return false;
    char* x_end = nullptr;
    char* y_end = nullptr;
    const double x_value = std::strtod(x.c_str(), &x_end);
    const double y_value = std::strtod(y.c_str(), &y_end);
    if (*x_end != '\0' || *y_end != '\0') return false;
    const double difference = std::abs(x_value - y_value);
    if (difference > absolute &&
        difference > relative * std::max(std::abs(x_value), std::abs(y_value))) {
      return false;
    }
  }
  return true;
}

}  // namespace strata::testing
