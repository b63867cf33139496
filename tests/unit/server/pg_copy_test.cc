// COPY ... TO STDOUT as the PostgreSQL port reads it (both spellings of the options) and the
// lines it writes in the text format and as CSV.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "server/pg/copy.h"

namespace strata::pg {
namespace {

using query::Datum;
using ::testing::HasSubstr;

CopyStatement Parsed(std::string_view sql) {
  std::optional<absl::StatusOr<CopyStatement>> copy = ParseCopyStatement(sql);
  EXPECT_TRUE(copy.has_value()) << sql;
  EXPECT_TRUE(copy->ok()) << sql << ": " << copy->status();
  return copy->ok() ? **copy : CopyStatement{};
}

TEST(PgCopyTest, ReadsTheQueryOrTableAndTheOptions) {
  EXPECT_EQ(Parsed("COPY ((SELECT 1) UNION ALL (SELECT 2)) TO STDOUT").query,
            "(SELECT 1) UNION ALL (SELECT 2)");
  EXPECT_EQ(Parsed("COPY (VALUES (1)) TO STDOUT").query, "VALUES (1)");
  CopyStatement c = Parsed("COPY (SELECT f(x), ')' FROM t WHERE (a) > 1) TO STDOUT");
  EXPECT_EQ(c.query, "SELECT f(x), ')' FROM t WHERE (a) > 1");
  EXPECT_EQ(c.query_offset, 6u);
  EXPECT_FALSE(Parsed("COPY t TO STDOUT").query_offset.has_value());
  EXPECT_FALSE(c.csv);
  EXPECT_EQ(c.delimiter, '\t');
  EXPECT_EQ(c.null_text, "\\N");

  c = Parsed(R"(copy  mydb."My Table" (host, "usage") to stdout csv header)");
  EXPECT_EQ(c.query, R"(SELECT host, "usage" FROM mydb."My Table")");
  EXPECT_TRUE(c.csv);
  EXPECT_TRUE(c.header);
  EXPECT_EQ(c.delimiter, ',');
  EXPECT_EQ(c.null_text, "");

  c = Parsed(
      "COPY t TO STDOUT WITH (FORMAT csv, HEADER false, DELIMITER ';', NULL 'null', "
      "QUOTE '''', ESCAPE '\\');");
  EXPECT_EQ(c.query, "SELECT * FROM t");
  EXPECT_FALSE(c.header);
  EXPECT_EQ(c.delimiter, ';');
  EXPECT_EQ(c.null_text, "null");
  EXPECT_EQ(c.quote, '\'');
  EXPECT_EQ(c.escape, '\\');

  c = Parsed("COPY t TO STDOUT DELIMITER AS '|' NULL AS '' ENCODING 'UTF8'");
  EXPECT_EQ(c.delimiter, '|');
  EXPECT_EQ(c.null_text, "");
  EXPECT_FALSE(ParseCopyStatement("SELECT 1").has_value());
  EXPECT_FALSE(ParseCopyStatement("copyright").has_value());
}

TEST(PgCopyTest, RefusesWhatItDoesNotDoSayingWhatToUse) {
  struct Case {
    std::string_view sql;
    std::string_view message;
  };
  for (const Case& c : std::vector<Case>{
           {"COPY t FROM STDIN", "COPY ... FROM is not supported; write rows with INSERT"},
           {"COPY t TO '/tmp/x'", "COPY TO a server file or program is not supported"},
           {"COPY t TO STDOUT (FORMAT binary)", "binary format is not supported"},
           {"COPY t TO STDOUT BINARY", "binary format is not supported"},
           {"COPY t TO STDOUT (DELIMITER ';;')", "DELIMITER takes one character"},
           {"COPY t TO STDOUT (FORMAT xml)", "FORMAT is text or csv"},
           {"COPY t TO STDOUT (FORCE_QUOTE *)", "FORCE_QUOTE is not supported"},
           {"COPY t TO STDOUT (ENCODING 'LATIN1')", "UTF8 only"},
           {"COPY t TO STDOUT (HEADER) x", "text after the options"},
           {"COPY (SELECT 1 TO STDOUT", "parenthesis is not closed"},
           {"COPY t", "TO STDOUT is missing"},
           {"COPY (DELETE FROM t) TO STDOUT", "COPY (query) takes a SELECT, WITH or VALUES"},
           {"COPY (INSERT INTO t VALUES (1)) TO STDOUT", "takes a SELECT"},
           {"COPY t TO STDOUT (wat 1)", "unknown option wat"},
       }) {
    std::optional<absl::StatusOr<CopyStatement>> copy = ParseCopyStatement(c.sql);
    ASSERT_TRUE(copy.has_value()) << c.sql;
    ASSERT_FALSE(copy->ok()) << c.sql;
    EXPECT_THAT(copy->status().message(), HasSubstr(c.message)) << c.sql;
  }
}

TEST(PgCopyTest, WritesTextAndCsvLines) {
  const std::vector<Datum> row = {Datum::Varchar("a\tb\\c\nd"), Datum::Null(), Datum::Double(1.5),
                                  Datum::Varchar(""), Datum::Varchar("x,\"y\"")};
  std::string text;
  AppendCopyRow(CopyStatement{}, row, &text);
  EXPECT_EQ(text, "a\\tb\\\\c\\nd\t\\N\t1.5\t\tx,\"y\"\n");

  CopyStatement csv = Parsed("COPY t TO STDOUT CSV");
  std::string line;
  AppendCopyRow(csv, row, &line);
  EXPECT_EQ(line, "\"a\tb\\c\nd\",,1.5,\"\",\"x,\"\"y\"\"\"\n");
  line.clear();
  AppendCopyHeader(csv, {"host", "a,b"}, &line);
  EXPECT_EQ(line, "host,\"a,b\"\n");

  CopyStatement pipes = Parsed("COPY t TO STDOUT DELIMITER '|'");
  line.clear();
  AppendCopyRow(pipes, {Datum::Varchar("a|b")}, &line);
  EXPECT_EQ(line, "a\\|b\n");
}

}  // namespace
}  // namespace strata::pg
