// A PostgreSQL session's time zone (QueryParameters::time_zone, query/parse/session_zone.h):
// the statement reads text and dates as the zone's wall clock and its calendar functions
// work on it, wherever the parser or the binder meets them; UTC changes nothing.
#include <memory>
#include <string>
#include <vector>

#include "common/clock.h"
#include "gtest/gtest.h"
#include "query/base/result.h"
#include "query/engine.h"
#include "storage/engine.h"
#include "tests/support/engine_with_table.h"
#include "tests/support/temp_dir.h"

namespace strata::query {
namespace {

constexpr int64_t kSessionClock = 1'700'000'000LL * kNanosPerSecond;  // 2023-11-14 22:13:20 UTC

// The answer's column names and its first row, as text.
class ZonedAnswer final : public ResultSink {
 public:
  absl::Status Columns(const std::vector<ResultColumn>& columns) override {
    for (const ResultColumn& c : columns) names.push_back(c.name);
    return absl::OkStatus();
  }
  absl::Status Rows(std::vector<Row> page) override {
    if (row.empty() && !page.empty()) {
      for (const Datum& d : page[0]) row.push_back(d.ToString());
    }
    return absl::OkStatus();
  }
  std::vector<std::string> names, row;
};

class SessionZoneTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto engine = testing::OpenEngineWithTable(dir_.Sub("data"), &clock_, 24);
    ASSERT_TRUE(engine.ok()) << engine.status();
    engine_ = std::move(*engine);
    query_ = std::make_unique<QueryEngine>(engine_.get());
    // Berlin (UTC+1 in November): 22:30 and 23:10 on the 14th, and 00:30 on the 14th, which
    // is the 13th in UTC.
    Run("INSERT INTO cpu (time, host, measure_name, usage) VALUES "
        "('2023-11-14T21:30:00Z', 'a', 'm', 1.0), ('2023-11-14T22:10:00Z', 'a', 'm', 2.0), "
        "('2023-11-13T23:30:00Z', 'b', 'm', 3.0)",
        "UTC");
  }

  ZonedAnswer Run(const std::string& sql, const std::string& zone) {
    QueryOptions options;
    options.default_database = "mydb";
    options.postgres_names = true;
    options.parameters.time_zone = zone;
    ZonedAnswer sink;
    const absl::Status ran = query_->Execute(sql, options, &sink).status();
    EXPECT_TRUE(ran.ok()) << sql << ": " << ran;
    return sink;
  }

  testing::TempDir dir_;
  ManualClock clock_{kSessionClock};
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<QueryEngine> query_;
};

TEST_F(SessionZoneTest, ReadsAndTruncatesOnTheZonesWallClock) {
  struct Case {
    std::string sql;
    std::string berlin;  // the first value under Europe/Berlin
    std::string utc;     // and under UTC
  };
  const Case cases[] = {
      // text compared with a timestamp, a date beside one, current_date (the binder's)
      {"SELECT count(*) FROM cpu WHERE time >= '2023-11-14 00:00'", "3", "2"},
      {"SELECT count(*) FROM cpu WHERE time >= DATE '2023-11-14'", "3", "2"},
      {"SELECT count(*) FROM cpu WHERE time >= current_date", "3", "2"},
      {"SELECT count(*) FROM cpu WHERE time BETWEEN '2023-11-14 00:00' AND '2023-11-14 22:10'", "1",
       "2"},
      {"SELECT count(*) FROM cpu WHERE time IN ('2023-11-14 22:30', '2023-11-14 23:10')", "2", "0"},
      // a date with a time of day, a date less a timestamp
      {"SELECT count(*) FROM cpu WHERE time >= DATE '2023-11-14' + TIME '22:30'", "2", "0"},
      {"SELECT min(time - DATE '2023-11-14') FROM cpu", "0 00:30:00.000000000",
       "-0 00:30:00.000000000"},
      // casts, literals, the calendar's functions
      {"SELECT min(CAST(time AS date)) FROM cpu", "2023-11-14", "2023-11-13"},
      {"SELECT min(hour(time)) FROM cpu", "0", "21"},
      {"SELECT min(extract(day FROM time)) FROM cpu", "14", "13"},
      {"SELECT max(to_char(time, 'HH24:MI')) FROM cpu", "23:10", "23:30"},
      {"SELECT CAST('2023-11-14 10:00' AS timestamp)", "2023-11-14 09:00:00.000000000",
       "2023-11-14 10:00:00.000000000"},
      {"SELECT '2023-11-14 10:00+03'::timestamptz", "2023-11-14 07:00:00.000000000",
       "2023-11-14 07:00:00.000000000"},
      {"SELECT TIMESTAMP '2023-11-14 10:00:00'", "2023-11-14 09:00:00.000000000",
       "2023-11-14 10:00:00.000000000"},
      {"SELECT try_cast('nope' AS timestamp)", "NULL", "NULL"},
      {"SELECT CAST(DATE '2023-11-14' AS timestamp)", "2023-11-13 23:00:00.000000000",
       "2023-11-14 00:00:00.000000000"},
      {"SELECT date_trunc('day', max(time)) FROM cpu", "2023-11-13 23:00:00.000000000",
       "2023-11-14 00:00:00.000000000"},
      {"SELECT count(DISTINCT date_trunc('day', time)) FROM cpu", "1", "2"},
      {"SELECT date_trunc('month', DATE '2023-11-14')", "2023-10-31 23:00:00.000000000",
       "2023-11-01"},
      {"SELECT current_date", "2023-11-14", "2023-11-14"},
      {"SELECT current_time", "23:13:20.000000000", "22:13:20.000000000"},
      // AT TIME ZONE: the instant that shows the wall clock's digits in the session's zone
      {"SELECT TIMESTAMP '2023-11-14 12:00:00Z' AT TIME ZONE 'UTC'",
       "2023-11-14 11:00:00.000000000", "2023-11-14 12:00:00.000000000"},
      {"SELECT hour(TIMESTAMP '2023-11-14 12:00:00Z' AT TIME ZONE 'Asia/Tokyo')", "21", "21"},
  };
  for (const Case& c : cases) {
    const ZonedAnswer berlin = Run(c.sql, "Europe/Berlin");
    ASSERT_EQ(berlin.row.size(), 1u) << c.sql;
    EXPECT_EQ(berlin.row[0], c.berlin) << c.sql;
    const ZonedAnswer utc = Run(c.sql, "UTC");
    ASSERT_EQ(utc.row.size(), 1u) << c.sql;
    EXPECT_EQ(utc.row[0], c.utc) << c.sql;
  }
}

// The calls the zone is written with do not rename the select list's items.
TEST_F(SessionZoneTest, ItemsKeepPostgresNames) {
  const ZonedAnswer r =
      Run("SELECT date_trunc('day', time), hour(time), CAST(time AS date), CAST('2023-11-14' AS "
          "timestamp), current_date FROM cpu LIMIT 1",
          "Europe/Berlin");
  EXPECT_EQ(r.names, (std::vector<std::string>{"date_trunc", "hour", "time", "timestamptz",
                                               "current_date"}));
}

// An INSERT's time written as text without an offset is the session's wall clock.
TEST_F(SessionZoneTest, InsertReadsTimeTextInTheZone) {
  Run("INSERT INTO cpu (time, host, measure_name, usage) VALUES ('2023-11-14 20:00', 'c', 'm', "
      "4.0), ('2023-11-14T20:00:00Z', 'd', 'm', 5.0)",
      "Europe/Berlin");
  EXPECT_EQ(Run("SELECT time FROM cpu WHERE host = 'c'", "UTC").row,
            std::vector<std::string>{"2023-11-14 19:00:00.000000000"});
  EXPECT_EQ(Run("SELECT time FROM cpu WHERE host = 'd'", "UTC").row,
            std::vector<std::string>{"2023-11-14 20:00:00.000000000"});
}

// A zone no front door should pass (the PostgreSQL wire checks its settings) is refused, not
// read as UTC.
TEST_F(SessionZoneTest, AnUnknownZoneIsRefused) {
  QueryOptions options;
  options.default_database = "mydb";
  options.parameters.time_zone = "Mars/Olympus";
  ZonedAnswer sink;
  const absl::Status ran = query_->Execute("SELECT count(*) FROM cpu", options, &sink).status();
  EXPECT_EQ(ran.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(ran.message().find("the session's time zone 'Mars/Olympus' is not a time zone"),
            std::string::npos)
      << ran;
}

// The statement shows what it was written with.
TEST_F(SessionZoneTest, ExplainShowsTheZonesCalls) {
  const ZonedAnswer r =
      Run("EXPLAIN SELECT hour(time), date_trunc('day', time) FROM cpu", "Europe/Berlin");
  ASSERT_FALSE(r.row.empty());
  EXPECT_NE(r.row[0].find("hour(wall_clock(time, 'Europe/Berlin'))"), std::string::npos)
      << r.row[0];
  EXPECT_NE(r.row[0].find("date_trunc('day', time, 'Europe/Berlin')"), std::string::npos)
      << r.row[0];
}

}  // namespace
}  // namespace strata::query
