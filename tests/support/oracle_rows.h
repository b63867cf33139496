// The rows of the SQLite oracle's table (tests/sql/sqlite_oracle_test.cc), also read through a
// cluster's fragments (tests/cluster/cluster_generated_queries_test.cc), and the time of its
// first point (tests/sql/two_dialect_expressions.h: kOracleStartMillis).
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/sql/two_dialect_expressions.h"

namespace strata::testing {

inline constexpr int kOracleHosts = 8;

// One row of the oracle table: dimensions host and zone (absent for h7), measure_name, the
// time, and measures a, b (BIGINT), x, y (DOUBLE), s, u (VARCHAR) and f (BOOLEAN), any of them
// but b absent (NULL) in some rows. Values repeat, so groups, ranks and DISTINCT see ties.
struct OracleRow {
  std::string host;
  std::optional<std::string> zone;
  std::string measure_name;
  int64_t time_millis = 0;
  std::optional<int64_t> a;
  int64_t b = 0;
  std::optional<double> x, y;
  std::optional<std::string> s, u;  // u: text beyond ASCII
  std::optional<bool> f;
  int64_t version = 1;
};

// Hour `hour` from kOracleStartMillis: each host's rows every 1 to 3 minutes.
inline std::vector<OracleRow> OracleRows(int hour, std::mt19937& random) {
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(random); };
  static const char* kStrings[] = {"apple", "Apple", "banana", "b_n%x", "kiwi fruit", "ap", "h1"};
  static const char* kUnicode[] = {"café", "naïve", "Ωmega", "zürich", "日本", "apple"};
  static const double kYs[] = {0.5, 1.25, -3.0, 10.0, 0.0, 2.5};
  std::vector<OracleRow> rows;
  for (int h = 0; h < kOracleHosts; ++h) {
    for (int m = 0; m < 60; m += 1 + h % 3) {
      OracleRow row{.host = absl::StrCat("h", h),
                    .measure_name = m % 10 == 0 && h % 2 == 0 ? "n" : "m",
                    .time_millis = kOracleStartMillis + (hour * 60 + m) * int64_t{60'000},
                    .b = uniform(0, 1000)};
      if (h != 7) row.zone = absl::StrCat("z", h % 3);
      if (uniform(0, 7) != 0) row.a = uniform(-20, 20);
      if (uniform(0, 5) != 0) row.x = uniform(-5000, 5000) / 100.0;
      if (row.measure_name == "m" && uniform(0, 3) != 0) row.y = kYs[uniform(0, 5)];
      if (uniform(0, 4) != 0) row.s = kStrings[uniform(0, 6)];
      if (uniform(0, 3) != 0) row.u = kUnicode[uniform(0, 5)];
      if (row.measure_name == "m" && uniform(0, 6) != 0) row.f = uniform(0, 1) == 1;
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

}  // namespace strata::testing
