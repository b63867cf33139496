// COPY ... TO STDOUT and COPY ... FROM STDIN as the PostgreSQL port reads them (both spellings
// of the options), the lines it writes in the text format and as CSV, and the rows it reads
// from a client's data cut anywhere.
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
  // FROM STDIN: Strata's COPY of the table and columns as written, and the same options.
  c = Parsed(R"(copy mydb."My Table" (time, "host") from stdin with (format csv, header))");
  EXPECT_TRUE(c.from_stdin);
  EXPECT_EQ(c.query, R"(COPY mydb."My Table" (time, "host") FROM STDIN)");
  EXPECT_TRUE(c.csv);
  EXPECT_TRUE(c.header);
  c = Parsed("COPY t FROM STDIN NULL 'x'");
  EXPECT_EQ(c.query, "COPY t FROM STDIN");
  EXPECT_EQ(c.null_text, "x");
  EXPECT_FALSE(Parsed("COPY t TO STDOUT").from_stdin);
  EXPECT_FALSE(ParseCopyStatement("SELECT 1").has_value());
  EXPECT_FALSE(ParseCopyStatement("copyright").has_value());
}

TEST(PgCopyTest, RefusesWhatItDoesNotDoSayingWhatToUse) {
  struct Case {
    std::string_view sql;
    std::string_view message;
  };
  for (const Case& c : std::vector<Case>{
           {"COPY t FROM '/tmp/x'", "COPY FROM a server file or program is not supported"},
           {"COPY t FROM PROGRAM 'cat'", "COPY FROM a server file or program is not supported"},
           {"COPY t FROM", "FROM STDIN is missing"},
           {"COPY (SELECT 1) FROM STDIN", "COPY (query) is TO STDOUT only"},
           {"COPY t FROM STDIN (FORMAT binary)", "binary format is not supported"},
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

using Fields = std::vector<std::optional<std::string>>;

// The rows (line, fields) of `data` fed to a decoder in pieces of `piece` bytes, or the error.
absl::StatusOr<std::vector<std::pair<int64_t, Fields>>> Decode(std::string_view sql,
                                                               std::string_view data,
                                                               size_t piece = 1) {
  CopyInDecoder decoder(Parsed(sql));
  std::vector<std::pair<int64_t, Fields>> rows;
  query::CopyRow row;
  auto drain = [&]() -> absl::Status {
    while (true) {
      absl::StatusOr<bool> got = decoder.Next(&row);
      if (!got.ok()) return got.status();
      if (!*got) return absl::OkStatus();
      rows.emplace_back(row.line, row.fields);
    }
  };
  for (size_t at = 0; at < data.size(); at += piece) {
    decoder.Feed(data.substr(at, piece));
    if (absl::Status s = drain(); !s.ok()) return s;
  }
  decoder.Finish();
  if (absl::Status s = drain(); !s.ok()) return s;
  return rows;
}

TEST(PgCopyTest, ReadsTheTextFormatCutAnywhere) {
  // Escapes (\x41 and \101 are A, \q is q, \\N is the text \N), NULL, an escaped delimiter,
  // empty fields, CRLF, and a last line without its line break.
  const std::string data = R"(a\tb\\c\nd\x41\101\q\\N)"
                           "\t"
                           R"(\N)"
                           "\t"
                           R"(1.5\r)"
                           "\n"
                           R"(x\)"
                           "\t"
                           "y\t\t\r\n"
                           "last";
  for (size_t piece : {1, 2, 3, 7, 1000}) {
    absl::StatusOr<std::vector<std::pair<int64_t, Fields>>> rows =
        Decode("COPY t FROM STDIN", data, piece);
    ASSERT_TRUE(rows.ok()) << rows.status();
    EXPECT_EQ(*rows, (std::vector<std::pair<int64_t, Fields>>{
                         {1, {"a\tb\\c\ndAAq\\N", std::nullopt, "1.5\r"}},
                         {2, {"x\ty", "", ""}},
                         {3, {"last"}}}))
        << piece;
  }
  // A line \. ends the data; a header line is skipped but counted.
  absl::StatusOr<std::vector<std::pair<int64_t, Fields>>> rows =
      Decode("COPY t FROM STDIN (HEADER, DELIMITER '|', NULL '')", "h1|h2\n1||x\n\\.\nignored\n");
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_EQ(*rows, (std::vector<std::pair<int64_t, Fields>>{{2, {"1", std::nullopt, "x"}}}));
}

TEST(PgCopyTest, ReadsCsvWithQuotedLineBreaksCutAnywhere) {
  // A quoted delimiter, a doubled quote, a line break inside a value, an unquoted empty value
  // (NULL) and a quoted one (empty text).
  const std::string data =
      "time,host\n"
      "1,\"a,b\"\n"
      "2,\"say \"\"hi\"\"\nthere\"\r\n"
      "3,\n"
      "4,\"\"\n";
  for (size_t piece : {1, 4, 1000}) {
    absl::StatusOr<std::vector<std::pair<int64_t, Fields>>> rows =
        Decode("COPY t FROM STDIN CSV HEADER", data, piece);
    ASSERT_TRUE(rows.ok()) << rows.status();
    EXPECT_EQ(*rows, (std::vector<std::pair<int64_t, Fields>>{{2, {"1", "a,b"}},
                                                              {3, {"2", "say \"hi\"\nthere"}},
                                                              {5, {"3", std::nullopt}},
                                                              {6, {"4", ""}}}))
        << piece;
  }
  // An ESCAPE other than the quote escapes the quote (and itself) inside quotes.
  absl::StatusOr<std::vector<std::pair<int64_t, Fields>>> rows =
      Decode("COPY t FROM STDIN (FORMAT csv, ESCAPE '\\')", R"("a\"b\\",c)"
                                                            "\n");
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_EQ(*rows, (std::vector<std::pair<int64_t, Fields>>{{1, {"a\"b\\", "c"}}}));
}

TEST(PgCopyTest, RefusesAnOpenQuoteAtTheEndAndOverlongLines) {
  absl::StatusOr<std::vector<std::pair<int64_t, Fields>>> rows =
      Decode("COPY t FROM STDIN CSV", "1,2\n3,\"open\n4,5\n", 1000);
  ASSERT_FALSE(rows.ok());
  EXPECT_THAT(rows.status().message(), HasSubstr("ends inside the quoted CSV value that line 2"));

  CopyInDecoder decoder(Parsed("COPY t FROM STDIN"));
  const std::string piece(1 << 20, 'x');
  query::CopyRow row;
  absl::StatusOr<bool> got = false;
  for (size_t fed = 0; fed <= CopyInDecoder::kMaxLineBytes && got.ok(); fed += piece.size()) {
    decoder.Feed(piece);
    got = decoder.Next(&row);
  }
  ASSERT_FALSE(got.ok());
  EXPECT_THAT(got.status().message(), HasSubstr("line 1 of COPY's data is longer than 16 MiB"));
}

}  // namespace
}  // namespace strata::pg
