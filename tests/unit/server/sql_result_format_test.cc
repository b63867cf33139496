// The HTTP SQL API's answer formats (server/http/sql_result_format.h): every
// value kind in JSON, NDJSON and CSV, the choice of format, and the error
// object with its position.
#include "server/http/sql_result_format.h"

#include <cmath>
#include <limits>

#include "gtest/gtest.h"
#include "query/base/error.h"

namespace strata {
namespace {

using query::DataType;
using query::Datum;

std::string Write(SqlResultFormat format, const std::vector<query::ResultColumn>& columns,
                  const std::vector<query::Row>& rows, const absl::Status& failure = {},
                  bool* whole = nullptr) {
  auto writer = SqlResultWriter::For(format);
  std::string out;
  writer->Begin(columns, &out);
  for (const query::Row& row : rows) writer->Row(row, &out);
  query::QueryStats stats;
  stats.rows_returned = static_cast<int64_t>(rows.size());
  const bool ended = writer->End(stats, failure, "SELECT 1", &out);
  if (whole != nullptr) *whole = ended;
  return out;
}

TEST(SqlResultFormatTest, EachValueKindInJsonAndCsv) {
  struct Case {
    Datum value;
    std::string json, csv;
  };
  const Case cases[] = {
      {Datum::Null(DataType::kBigint), "null", ""},
      {Datum::Bool(true), "true", "true"},
      {Datum::Bigint(-42), "-42", "-42"},
      {Datum::Double(1.5), "1.5", "1.5"},
      {Datum::Double(std::nan("")), "\"NaN\"", "NaN"},  // as Presto prints them (were nan, inf)
      {Datum::Double(-std::numeric_limits<double>::infinity()), "\"-Infinity\"", "-Infinity"},
      {Datum::Varchar("plain"), "\"plain\"", "plain"},
      {Datum::Varchar("a \"b\", c"), "\"a \\\"b\\\", c\"", "\"a \"\"b\"\", c\""},
      {Datum::Varchar("two\nlines\ttab\x01"), "\"two\\nlines\\ttab\\u0001\"",
       "\"two\nlines\ttab\x01\""},
      {Datum::Timestamp(1'700'000'000'000'000'000), "\"2023-11-14 22:13:20.000000000\"",
       "2023-11-14 22:13:20.000000000"},
  };
  for (const Case& c : cases) {
    const std::string json = Write(SqlResultFormat::kJson, {{"v", c.value.type}}, {{c.value}});
    const std::string row = "\n[" + c.json + "]\n]";
    EXPECT_NE(json.find(row), std::string::npos) << c.json << " in " << json;
    const std::string csv = Write(SqlResultFormat::kCsv, {{"v", c.value.type}}, {{c.value}});
    EXPECT_EQ(csv, "v\r\n" + c.csv + "\r\n") << c.json;
  }
}

TEST(SqlResultFormatTest, JsonHasColumnsRowsAndStatistics) {
  const std::string json =
      Write(SqlResultFormat::kJson, {{"host", DataType::kVarchar}, {"n", DataType::kBigint}},
            {{Datum::Varchar("a"), Datum::Bigint(1)}, {Datum::Varchar("b"), Datum::Null()}});
  EXPECT_EQ(json.substr(0, json.find("\"statistics\"")),
            "{\"columns\":[{\"name\":\"host\",\"type\":\"varchar\"},{\"name\":\"n\",\"type\":"
            "\"bigint\"}],\"rows\":[\n[\"a\",1],\n[\"b\",null]\n],");
  EXPECT_NE(json.find("\"statistics\":{\"rows_returned\":2,"), std::string::npos) << json;
  EXPECT_EQ(json.back(), '\n');
}

TEST(SqlResultFormatTest, NdjsonHasAnObjectPerRow) {
  const std::string ndjson =
      Write(SqlResultFormat::kNdjson, {{"host", DataType::kVarchar}, {"n", DataType::kBigint}},
            {{Datum::Varchar("a"), Datum::Bigint(1)}});
  EXPECT_EQ(ndjson.substr(0, ndjson.find("{\"statistics\"")),
            "{\"columns\":[{\"name\":\"host\",\"type\":\"varchar\"},{\"name\":\"n\",\"type\":"
            "\"bigint\"}]}\n{\"host\":\"a\",\"n\":1}\n");
}

TEST(SqlResultFormatTest, AFailureAfterTheColumnsEndsJsonWithTheErrorAndCutsCsv) {
  const absl::Status timeout = absl::DeadlineExceededError("the query ran past its 100 ms");
  bool whole = false;
  const std::string json = Write(SqlResultFormat::kJson, {{"n", DataType::kBigint}},
                                 {{Datum::Bigint(1)}}, timeout, &whole);
  EXPECT_TRUE(whole);
  EXPECT_NE(json.find("],\"error\":{\"code\":\"DEADLINE_EXCEEDED\",\"message\":\"the query ran "
                      "past its 100 ms\"}}\n"),
            std::string::npos)
      << json;
  EXPECT_EQ(json.find("statistics"), std::string::npos);
  const std::string ndjson =
      Write(SqlResultFormat::kNdjson, {{"n", DataType::kBigint}}, {}, timeout, &whole);
  EXPECT_TRUE(whole);
  EXPECT_NE(ndjson.find("\n{\"error\":{\"code\":\"DEADLINE_EXCEEDED\""), std::string::npos);
  Write(SqlResultFormat::kCsv, {{"n", DataType::kBigint}}, {}, timeout, &whole);
  EXPECT_FALSE(whole);
}

TEST(SqlResultFormatTest, FormatByNameThenAcceptThenJson) {
  struct Case {
    std::string name, accept;
    SqlResultFormat want;
  };
  const Case cases[] = {
      {"", "", SqlResultFormat::kJson},
      {"csv", "application/json", SqlResultFormat::kCsv},
      {"NDJSON", "", SqlResultFormat::kNdjson},
      {"jsonl", "", SqlResultFormat::kNdjson},
      {"", "text/csv", SqlResultFormat::kCsv},
      {"", "text/html, application/x-ndjson;q=0.9", SqlResultFormat::kNdjson},
      {"", "*/*", SqlResultFormat::kJson},
  };
  for (const Case& c : cases) {
    auto got = ChooseSqlResultFormat(c.name, c.accept);
    ASSERT_TRUE(got.ok()) << c.name << " " << c.accept;
    EXPECT_EQ(*got, c.want) << c.name << " " << c.accept;
  }
  auto unknown = ChooseSqlResultFormat("xml", "");
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(unknown.status().message().find("json, ndjson or csv"), absl::string_view::npos);
}

TEST(SqlResultFormatTest, ErrorPositionIsLineAndColumnInCharacters) {
  const std::string sql = "SELECT 'é'\n  FROM nowhere";
  const int offset = static_cast<int>(sql.find("nowhere"));
  std::string out;
  AppendSqlErrorObject(query::SqlError(sql, {offset}, "no such table"), sql, &out);
  EXPECT_EQ(out,
            "{\"code\":\"INVALID_ARGUMENT\",\"message\":\"no such table\",\"position\":"
            "{\"line\":2,\"column\":8,\"offset\":" +
                std::to_string(offset) + "}}");
  out.clear();
  AppendSqlErrorObject(absl::PermissionDeniedError("no read grant"), sql, &out);
  EXPECT_EQ(out, "{\"code\":\"PERMISSION_DENIED\",\"message\":\"no read grant\"}");
}

}  // namespace
}  // namespace strata
