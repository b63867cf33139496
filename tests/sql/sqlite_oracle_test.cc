// The engine against an independent one: generated statements (tests/sql/two_dialect_grammar.h)
// run over the same rows in Strata and in SQLite, whose answers must agree, value by value.
// The other differential tests compare the engine with itself (head against blocks, a cluster
// against one node, a shortcut against the plain statement); they cannot see a rule the engine
// gets wrong everywhere alike: three-valued logic, NULLs in keys, joins and IN lists, a
// window's frame and peers, integer division, LIKE. SQLite can. The grammar keeps to what the
// two dialects define alike; a difference is the engine's until shown otherwise.
#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "gtest/gtest.h"
#include "tests/sql/in_process_backend.h"
#include "tests/sql/two_dialect_grammar.h"
#include "tests/support/generated_sql.h"
#include "tests/support/oracle_rows.h"

namespace strata {
namespace {

using testing::Kind;
using testing::OracleRow;

constexpr int kOracleHours = 4;

// Rows written late into the sealed hours (0..2): new points half a minute after the ones
// there, and points written again with version 2 and every measure new (an upsert, the same
// whether it replaces the record or merges into it).
std::pair<std::vector<OracleRow>, std::vector<OracleRow>> LateRows(
    const std::vector<OracleRow>& written, std::mt19937& random) {
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(random); };
  std::vector<OracleRow> added, upserts;
  const int64_t sealed_end = testing::kOracleStartMillis + 3 * 3600 * int64_t{1000};
  std::set<std::tuple<std::string, std::string, int64_t>> points;  // each point written once
  for (int i = 0; i < 80; ++i) {
    const OracleRow& old = written[uniform(0, static_cast<int>(written.size()) - 1)];
    if (old.time_millis >= sealed_end) continue;
    OracleRow row = old;
    row.a = uniform(-20, 20);
    row.b = uniform(0, 1000);
    row.x = uniform(-5000, 5000) / 100.0;
    row.y = 0.25 * uniform(-8, 8);
    row.s = i % 3 == 0 ? "late" : "apple";
    row.u = "späť";
    row.f = i % 2 == 0;
    if (i % 2 == 0) row.time_millis += 30'000;
    if (!points.insert({row.host, row.measure_name, row.time_millis}).second) continue;
    if (i % 2 == 0) {
      added.push_back(row);
    } else if (old.measure_name == "m") {
      row.version = 2;
      upserts.push_back(row);
    }
  }
  return {added, upserts};
}

InputRecord OracleRecord(const OracleRow& row) {
  InputRecord r;
  r.dimensions.push_back({"host", row.host});
  if (row.zone) r.dimensions.push_back({"zone", *row.zone});
  r.measure_name = row.measure_name;
  r.time = row.time_millis;
  if (row.version != 1) r.version = row.version;
  auto add = [&](const char* name, Value v) {
    r.measure_values.push_back({name, std::nullopt, v});
  };
  if (row.a) add("a", Value::Bigint(*row.a));
  add("b", Value::Bigint(row.b));
  if (row.x) add("x", Value::Double(*row.x));
  if (row.y) add("y", Value::Double(*row.y));
  if (row.s) add("s", Value::Varchar(*row.s));
  if (row.u) add("u", Value::Varchar(*row.u));
  if (row.f) add("f", Value::Boolean(*row.f));
  return r;
}

// Epoch milliseconds as Strata prints a TIMESTAMP: "2024-03-10 06:00:00.000000000".
std::string TimestampText(int64_t millis) {
  return absl::StrCat(
      absl::FormatTime("%Y-%m-%d %H:%M:%E3S", absl::FromUnixMillis(millis), absl::UTCTimeZone()),
      "000000");
}

// SQLite in memory, holding the same rows in table t (time in epoch milliseconds).
class Sqlite {
 public:
  Sqlite() {
    EXPECT_EQ(sqlite3_open(":memory:", &db_), SQLITE_OK);
    // LIKE as Presto's: case-sensitive.
    Run("PRAGMA case_sensitive_like = ON");
    Run("CREATE TABLE t (host TEXT, zone TEXT, measure_name TEXT, time INTEGER, a INTEGER, "
        "b INTEGER, x REAL, y REAL, s TEXT, f INTEGER, u TEXT)");
  }
  ~Sqlite() { sqlite3_close(db_); }

  void Insert(const std::vector<OracleRow>& rows) {
    Run("BEGIN");
    sqlite3_stmt* insert = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(db_, "INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", -1,
                                 &insert, nullptr),
              SQLITE_OK);
    for (const OracleRow& row : rows) {
      sqlite3_bind_text(insert, 1, row.host.c_str(), -1, SQLITE_TRANSIENT);
      if (row.zone) sqlite3_bind_text(insert, 2, row.zone->c_str(), -1, SQLITE_TRANSIENT);
      sqlite3_bind_text(insert, 3, row.measure_name.c_str(), -1, SQLITE_TRANSIENT);
      sqlite3_bind_int64(insert, 4, row.time_millis);
      if (row.a) sqlite3_bind_int64(insert, 5, *row.a);
      sqlite3_bind_int64(insert, 6, row.b);
      if (row.x) sqlite3_bind_double(insert, 7, *row.x);
      if (row.y) sqlite3_bind_double(insert, 8, *row.y);
      if (row.s) sqlite3_bind_text(insert, 9, row.s->c_str(), -1, SQLITE_TRANSIENT);
      if (row.f) sqlite3_bind_int(insert, 10, *row.f ? 1 : 0);
      if (row.u) sqlite3_bind_text(insert, 11, row.u->c_str(), -1, SQLITE_TRANSIENT);
      ASSERT_EQ(sqlite3_step(insert), SQLITE_DONE) << sqlite3_errmsg(db_);
      sqlite3_reset(insert);
      sqlite3_clear_bindings(insert);
    }
    sqlite3_finalize(insert);
    Run("COMMIT");
  }

  // Each row's measures replaced where host, measure_name and time match.
  void Update(const std::vector<OracleRow>& rows) {
    sqlite3_stmt* update = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(db_,
                                 "UPDATE t SET a = ?, b = ?, x = ?, y = ?, s = ?, f = ?, u = ? "
                                 "WHERE host = ? AND measure_name = ? AND time = ?",
                                 -1, &update, nullptr),
              SQLITE_OK);
    for (const OracleRow& row : rows) {
      sqlite3_bind_int64(update, 1, *row.a);
      sqlite3_bind_int64(update, 2, row.b);
      sqlite3_bind_double(update, 3, *row.x);
      sqlite3_bind_double(update, 4, *row.y);
      sqlite3_bind_text(update, 5, row.s->c_str(), -1, SQLITE_TRANSIENT);
      sqlite3_bind_int(update, 6, *row.f ? 1 : 0);
      sqlite3_bind_text(update, 7, row.u->c_str(), -1, SQLITE_TRANSIENT);
      sqlite3_bind_text(update, 8, row.host.c_str(), -1, SQLITE_TRANSIENT);
      sqlite3_bind_text(update, 9, row.measure_name.c_str(), -1, SQLITE_TRANSIENT);
      sqlite3_bind_int64(update, 10, row.time_millis);
      ASSERT_EQ(sqlite3_step(update), SQLITE_DONE) << sqlite3_errmsg(db_);
      ASSERT_EQ(sqlite3_changes(db_), 1) << row.host << " " << row.time_millis;
      sqlite3_reset(update);
    }
    sqlite3_finalize(update);
  }

  // The answer's rows, each field as Normalized() prints it, or "error: ...".
  std::vector<std::string> Query(const std::string& sql, const std::vector<Kind>& kinds) {
    sqlite3_stmt* statement = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &statement, nullptr) != SQLITE_OK) {
      return {StrCat("error: ", sqlite3_errmsg(db_))};
    }
    std::vector<std::string> lines;
    int step;
    while ((step = sqlite3_step(statement)) == SQLITE_ROW) {
      std::vector<std::string> fields;
      for (int i = 0; i < sqlite3_column_count(statement); ++i) {
        const Kind kind = i < static_cast<int>(kinds.size()) ? kinds[i] : Kind::kText;
        switch (sqlite3_column_type(statement, i)) {
          case SQLITE_NULL:
            fields.push_back("NULL");
            break;
          case SQLITE_INTEGER: {
            const int64_t v = sqlite3_column_int64(statement, i);
            fields.push_back(kind == Kind::kBool     ? (v ? "true" : "false")
                             : kind == Kind::kDouble ? Number(static_cast<double>(v))
                             : kind == Kind::kTime   ? TimestampText(v)
                                                     : std::to_string(v));
            break;
          }
          case SQLITE_FLOAT:
            fields.push_back(Number(sqlite3_column_double(statement, i)));
            break;
          default:
            fields.push_back(reinterpret_cast<const char*>(sqlite3_column_text(statement, i)));
        }
      }
      lines.push_back(absl::StrJoin(fields, " | "));
    }
    if (step != SQLITE_DONE) lines = {StrCat("error: ", sqlite3_errmsg(db_))};
    sqlite3_finalize(statement);
    return lines;
  }

  // A double to 9 significant digits: sums of doubles differ in their last bits by the order
  // they are added in (and a sliding sum's additions and subtractions leave 1e-14 for 0).
  static std::string Number(double v) {
    if (std::abs(v) < 1e-9) v = 0;  // -0 prints as 0 too
    char text[32];
    std::snprintf(text, sizeof(text), "%.9g", v);
    return text;
  }

 private:
  void Run(const char* sql) {
    char* error = nullptr;
    EXPECT_EQ(sqlite3_exec(db_, sql, nullptr, nullptr, &error), SQLITE_OK) << error;
    sqlite3_free(error);
  }
  sqlite3* db_ = nullptr;
};

// Strata's answer with each DOUBLE field as Sqlite::Number prints it.
std::vector<std::string> StrataAnswer(testing::InProcess& backend, const std::string& sql,
                                      const std::vector<Kind>& kinds) {
  absl::StatusOr<std::vector<std::string>> lines = backend.Query(sql);
  if (!lines.ok()) return {StrCat("error: ", lines.status().message())};
  for (std::string& line : *lines) {
    std::vector<std::string> fields = absl::StrSplit(line, " | ");
    for (size_t i = 0; i < fields.size() && i < kinds.size(); ++i) {
      if (kinds[i] != Kind::kDouble || fields[i] == "NULL") continue;
      fields[i] = Sqlite::Number(std::strtod(fields[i].c_str(), nullptr));
    }
    line = absl::StrJoin(fields, " | ");
  }
  return *lines;
}

// The lines only one answer has (rows sorted), or for ordered answers both from the first line
// where they part; at most 8 of each.
std::string Difference(std::vector<std::string> strata, std::vector<std::string> sqlite,
                       bool ordered) {
  std::vector<std::string> only_strata, only_sqlite;
  if (ordered) {
    size_t i = 0;
    while (i < strata.size() && i < sqlite.size() && strata[i] == sqlite[i]) ++i;
    only_strata.assign(strata.begin() + static_cast<int64_t>(i), strata.end());
    only_sqlite.assign(sqlite.begin() + static_cast<int64_t>(i), sqlite.end());
  } else {
    std::set_difference(strata.begin(), strata.end(), sqlite.begin(), sqlite.end(),
                        std::back_inserter(only_strata));
    std::set_difference(sqlite.begin(), sqlite.end(), strata.begin(), strata.end(),
                        std::back_inserter(only_sqlite));
  }
  auto head = [](const std::vector<std::string>& lines) {
    std::vector<std::string> first(lines.begin(),
                                   lines.begin() + std::min<size_t>(lines.size(), 8));
    return absl::StrCat("\n    ", absl::StrJoin(first, "\n    "),
                        lines.size() > 8 ? "\n    ..." : "");
  };
  return absl::StrCat("Strata (", strata.size(), " rows)",
                      ordered ? " from the first difference" : " only", ":", head(only_strata),
                      "\nSQLite (", sqlite.size(), " rows)",
                      ordered ? " from the first difference" : " only", ":", head(only_sqlite));
}

TEST(SqliteOracleTest, GeneratedStatementsAnswerAsSqliteDoes) {
  testing::InProcess backend;
  Sqlite sqlite;
  std::mt19937 random(31);
  const int64_t start = testing::kOracleStartMillis * kNanosPerMilli;
  backend.SetClock(start);
  ASSERT_TRUE(backend.CreateDatabase("oracle").ok());
  TableSpec spec{.database_name = "oracle", .table_name = "rows"};
  spec.retention.memory_store_retention_hours = 1;
  spec.retention.magnetic_store_retention_days = 30;
  spec.enable_magnetic_store_writes = true;  // the late rows below
  const absl::Status created = backend.CreateTable(spec);
  ASSERT_TRUE(created.ok()) << created;
  auto write = [&](const std::vector<OracleRow>& rows) {
    for (size_t i = 0; i < rows.size(); i += 100) {
      WriteRequest request{.database_name = "oracle", .table_name = "rows"};
      for (size_t k = i; k < std::min(rows.size(), i + 100); ++k) {
        request.records.push_back(OracleRecord(rows[k]));
      }
      absl::StatusOr<WriteResult> written = backend.Write(request);
      ASSERT_TRUE(written.ok()) << written.status();
      ASSERT_TRUE(written->rejected.empty()) << written->rejected.front().reason;
    }
  };
  std::vector<OracleRow> all;
  for (int hour = 0; hour < kOracleHours; ++hour) {
    backend.SetClock(start + (hour * 60 + 59) * kNanosPerMinute);
    const std::vector<OracleRow> rows = testing::OracleRows(hour, random);
    ASSERT_NO_FATAL_FAILURE(sqlite.Insert(rows));
    ASSERT_NO_FATAL_FAILURE(write(rows));
    all.insert(all.end(), rows.begin(), rows.end());
  }
  backend.SetClock(start + kOracleHours * 60 * kNanosPerMinute);

  testing::TwoDialectGrammar grammar(testing::GeneratedSeed(5), "oracle.rows");
  std::vector<testing::DialectPair> statements;
  for (int i = 0; i < testing::GeneratedQueries(400); ++i) statements.push_back(grammar.Next());
  auto check = [&](const std::string& step) {
    int differences = 0, with_rows = 0;
    for (const testing::DialectPair& q : statements) {
      std::vector<std::string> expected = sqlite.Query(q.sqlite, q.kinds);
      if (expected.size() == 1 && expected[0].rfind("error: ", 0) == 0) {
        ADD_FAILURE() << "SQLite refused its own statement (a grammar defect): " << expected[0]
                      << "\n"
                      << q.sqlite;
        continue;
      }
      if (!expected.empty()) ++with_rows;
      std::vector<std::string> got = StrataAnswer(backend, q.strata, q.kinds);
      if (!q.ordered) {
        std::sort(expected.begin(), expected.end());
        std::sort(got.begin(), got.end());
      }
      // Numbers within a few units of their ninth significant digit: an average's last
      // digits depend on the order its values were added in, so the ninth may round either way.
      if (got.size() == expected.size() &&
          testing::AnswersAgree(absl::StrJoin(got, "\n"), absl::StrJoin(expected, "\n"),
                                /*absolute=*/1e-8, /*relative=*/1e-8)) {
        continue;
      }
      // Keep the report readable: the first differences, each as the lines only one side
      // gave (for an ordered answer, from the first line where they part).
      if (++differences <= 15) {
        ADD_FAILURE() << step << ":\n  " << q.strata << "\n  (SQLite: " << q.sqlite << ")\n"
                      << Difference(got, expected, q.ordered);
      }
    }
    EXPECT_EQ(differences, 0) << step;
    // Statements that answer nothing compare nothing: most must have rows.
    EXPECT_GT(with_rows, static_cast<int>(statements.size()) * 3 / 4) << step;
  };
  check("the memory head");
  backend.Maintain();
  ASSERT_EQ(
      StrataAnswer(backend, "SELECT magnetic_store_blocks > 0 FROM system.tables", {Kind::kBool}),
      std::vector<std::string>{"true"});
  check("sealed into blocks");
  // Late rows and upserts into the sealed hours: merged at read time, then into the blocks.
  const auto [added, upserts] = LateRows(all, random);
  ASSERT_GT(added.size(), 20u);
  ASSERT_GT(upserts.size(), 20u);
  ASSERT_NO_FATAL_FAILURE(sqlite.Insert(added));
  ASSERT_NO_FATAL_FAILURE(sqlite.Update(upserts));
  ASSERT_NO_FATAL_FAILURE(write(added));
  ASSERT_NO_FATAL_FAILURE(write(upserts));
  ASSERT_EQ(StrataAnswer(backend, "SELECT late_write_rows > 0 FROM system.tables", {Kind::kBool}),
            std::vector<std::string>{"true"});
  check("late rows merged at read time");
  backend.Maintain();
  ASSERT_EQ(StrataAnswer(backend, "SELECT late_write_rows > 0 FROM system.tables", {Kind::kBool}),
            std::vector<std::string>{"false"});
  check("late rows merged into blocks");
}

}  // namespace
}  // namespace strata
