// The PostgreSQL wire protocol against the real stratad (docs/protocols.md),
// driven by real clients: psql (Debian's postgresql-client: \dt, \d, a
// GROUP BY bin query, an error with its position, Ctrl-C), psycopg (with the
// replay of Grafana's statements) and node-postgres; plus the raw protocol
// for what those clients do not exercise (row limits and PortalSuspended,
// a bad startup).
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <thread>

#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "httplib.h"
#include "tests/e2e/http_write.h"
#include "tests/support/pg_raw_client.h"
#include "tests/support/stratad_process.h"
#include "tests/support/subprocess.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_certs.h"
#include "tests/support/write_helpers.h"

namespace strata {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

const std::string kProtocols = std::string(STRATA_SOURCE_DIR) + "/tests/protocols";

// mydb.cpu at 2024-03-01 11:00..11:02 (the server's clock stands at 12:00).
void WriteCpu(testing::StratadProcess& server) {
  testing::CreateAndWriteLines(server, "mydb",
                               "cpu,host=a usage=1.5,procs=3i,up=true 1709290810\n"
                               "cpu,host=b usage=2.5 1709290850\n"
                               "cpu,host=a usage=4.0 1709290890\n");
}

class PgWireE2ETest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(server_.Start({"--testing-fixed-time", "2024-03-01T12:00:00Z"})) << server_.error();
    WriteCpu(server_);
  }

  testing::ProcessResult Psql(const std::vector<std::string>& commands,
                              const std::vector<std::string>& env = {}) {
    std::vector<std::string> argv = {"/usr/bin/psql", "-X", "-h", "127.0.0.1", "-p",
                                     std::to_string(server_.pg_port()), "-U", "grafana", "-d",
                                     "strata"};
    for (const std::string& c : commands) argv.insert(argv.end(), {"-c", c});
    return testing::RunProcess(argv, "", env);
  }

  testing::StratadProcess server_;
};

// What Strata does not run is answered "not supported" (SQLSTATE 0A000),
// with what to do instead; psql goes on with the next command.
TEST_F(PgWireE2ETest, UnsupportedStatementsAnswerFeatureNotSupported) {
  testing::ProcessResult r =
      Psql({"\\set VERBOSITY verbose", "UPDATE mydb.cpu SET usage = 1", "SELECT 41 + 1"});
  EXPECT_THAT(r.err, HasSubstr("ERROR:  0A000: UPDATE is not supported"));
  EXPECT_THAT(r.err, HasSubstr("INSERT"));
  EXPECT_THAT(r.out, HasSubstr("42"));
}

TEST_F(PgWireE2ETest, PsqlListsDescribesQueriesAndShowsErrors) {
  testing::ProcessResult r = Psql({"\\dt", "\\d mydb.cpu"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr(" Schema | Name | Type  | Owner  \n"
                               "--------+------+-------+--------\n"
                               " mydb   | cpu  | table | strata\n"
                               "(1 row)"));
  EXPECT_THAT(r.out, HasSubstr("Table \"mydb.cpu\""));
  EXPECT_THAT(r.out, HasSubstr(" time         | timestamp with time zone |           | not null | "));
  EXPECT_THAT(r.out, HasSubstr(" usage        | double precision         |           |          | "));
  // \dt+ adds the table's size (its storage, as "system"."tables" counts it), as
  // pg_size_pretty writes it.
  r = Psql({"\\pset format unaligned", "\\pset tuples_only on", "\\dt+"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(
      r.out, ::testing::ContainsRegex(
                 "mydb\\|cpu\\|table\\|strata\\|permanent\\|strata\\|[1-9][0-9]* (bytes|kB)\\|\n"));

  r = Psql({"SELECT bin(time, 1m) AS minute, count(*) AS n, avg(usage) AS mean FROM mydb.cpu "
            "GROUP BY 1 ORDER BY 1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "         minute         | n | mean \n"
            "------------------------+---+------\n"
            " 2024-03-01 11:00:00+00 | 2 |    2\n"
            " 2024-03-01 11:01:00+00 | 1 |    4\n"
            "(2 rows)\n\n");

  // Items without an alias are named as PostgreSQL names them (gRPC keeps Presto's _col<i>).
  r =
      Psql({"SELECT count(*), max(usage), usage + 1, CAST(usage AS bigint), CASE WHEN usage > 1 "
            "THEN 1 END, row_number() OVER (ORDER BY usage) FROM mydb.cpu GROUP BY usage ORDER BY "
            "count, usage LIMIT 1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr(" count | max | ?column? | usage | case | row_number \n"));

  r = Psql({"SELECT usage FROM mydb.cpu WHERE hots = 'a'"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "ERROR:  column \"hots\" does not exist; did you mean \"host\"?\n"
            "LINE 1: SELECT usage FROM mydb.cpu WHERE hots = 'a'\n"
            "                                         ^\n");
  // The connection's database, when it names a Strata database, is that of bare table names.
  r = testing::RunProcess({"/usr/bin/psql", "-X", "-A", "-t", "-h", "127.0.0.1", "-p",
                           std::to_string(server_.pg_port()), "-U", "me", "-d", "mydb", "-c",
                           "SELECT count(*) FROM cpu"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "3\n");
  r = Psql({"SELECT version()", "SHOW server_version", "SET application_name = 'x'",
            "BEGIN", "SELECT 1", "COMMIT"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("PostgreSQL 15.0 (Strata"));
  EXPECT_THAT(r.out, HasSubstr("SET\nBEGIN\n"));
  // A quoted setting keeps its case (it was folded: 'America/New_York' came back lower case); a
  // bare one is an identifier, folded.
  r = Psql({"\\pset tuples_only on", "SET application_name = 'MyApp'", "SHOW application_name",
            "SET TIME ZONE 'America/New_York'", "SHOW timezone", "SET search_path = Public",
            "SHOW search_path"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr(" MyApp\n"));
  EXPECT_THAT(r.out, HasSubstr(" America/New_York\n"));
  EXPECT_THAT(r.out, HasSubstr(" public\n"));
  // COMMIT of a block an error failed answers ROLLBACK, as PostgreSQL's.
  r = Psql({"BEGIN", "SELECT 1 / 0", "COMMIT", "BEGIN", "COMMIT"});
  EXPECT_THAT(r.out, HasSubstr("BEGIN\nROLLBACK\nBEGIN\nCOMMIT\n"));
}

// SET TIME ZONE is the session's zone, as PostgreSQL's: timestamps are written in it, text
// without an offset is read in it, and date_trunc, extract, casts to date and current_date use
// its wall clock. PGTZ (libpq's startup "timezone") sets it too; a zone PostgreSQL would refuse
// is refused, and the session keeps the zone it had.
TEST_F(PgWireE2ETest, PsqlSessionTimeZone) {
  testing::ProcessResult r =
      Psql({"\\pset tuples_only on", "\\pset format unaligned", "SET TIME ZONE 'Asia/Kolkata'",
            "SELECT min(time) FROM mydb.cpu",
            "SELECT date_trunc('hour', time) AS h, count(*) FROM mydb.cpu GROUP BY 1",
            "SELECT count(*) FROM mydb.cpu WHERE time >= '2024-03-01 16:30:30'",
            "SELECT extract(hour FROM time), time::date FROM mydb.cpu ORDER BY time LIMIT 1",
            "SELECT current_date, current_time", "SET TIME ZONE 'Mars/Olympus'", "SHOW timezone"});
  EXPECT_THAT(r.out, HasSubstr("2024-03-01 16:30:10+05:30\n"));
  EXPECT_THAT(r.out, HasSubstr("2024-03-01 16:00:00+05:30|3\n"));
  EXPECT_THAT(r.out, HasSubstr("\n2\n"));
  EXPECT_THAT(r.out, HasSubstr("16|2024-03-01\n"));
  EXPECT_THAT(r.out, HasSubstr("2024-03-01|17:30:00\n"));  // the server's clock: 12:00 UTC
  EXPECT_THAT(r.err, HasSubstr("invalid value for parameter \"TimeZone\": \"Mars/Olympus\""));
  EXPECT_THAT(r.out, HasSubstr("\nAsia/Kolkata\n"));

  // UTC+14: the rows of 11:00 UTC are the next day's.
  r = Psql({"\\pset tuples_only on", "\\pset format unaligned",
            "SELECT date_trunc('day', min(time)), min(time)::date, current_date FROM mydb.cpu"},
           {"PGTZ=Pacific/Kiritimati"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("2024-03-02 00:00:00+14|2024-03-02|2024-03-02\n"));
  // COPY FROM reads times without an offset in the zone too: 16:35 in Kolkata is 11:05 UTC.
  const std::string csv = ::testing::TempDir() + "/strata_copy_zone.csv";
  std::ofstream(csv) << "time,host,usage\n2024-03-01 16:35:00,z,1.0\n";
  r = Psql({"\\copy mydb.cpu (time, host, usage) FROM '" + csv + "' CSV HEADER"},
           {"PGTZ=Asia/Kolkata"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = Psql({"\\pset tuples_only on", "SELECT time FROM mydb.cpu WHERE host = 'z'"});
  EXPECT_THAT(r.out, HasSubstr("2024-03-01 11:05:00+00"));
  r = Psql({"SELECT 1"}, {"PGTZ=Nowhere/Land"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.err, HasSubstr("invalid value for parameter \"TimeZone\""));
}

// EXPLAIN ANALYZE runs the query and shows each node's rows, runs and time, then the planning
// and execution times, as psql users read PostgreSQL's; the answer's rows are not sent.
TEST_F(PgWireE2ETest, PsqlExplainAnalyzeShowsWhatEachNodeDid) {
  testing::ProcessResult r =
      Psql({"EXPLAIN ANALYZE SELECT host, count(*) FROM mydb.cpu WHERE "
            "usage > 2 GROUP BY host"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, ::testing::ContainsRegex("^ +QUERY PLAN +\n"));  // PostgreSQL's column
  EXPECT_THAT(r.out, ::testing::ContainsRegex(
                         " HashAggregate keys=\\[host\\] aggregates=\\[count\\(\\*\\)\\] \\(actual "
                         "rows=2 loops=1 time=[0-9]+\\.[0-9]{3} ms\\)"));
  EXPECT_THAT(r.out, ::testing::ContainsRegex(
                         "Filter \\(usage > 2\\) \\(actual rows=2 loops=1 time=[0-9.]+ ms\\)"));
  EXPECT_THAT(r.out, ::testing::ContainsRegex(" Planning time: [0-9]+\\.[0-9]{3} ms"));
  EXPECT_THAT(r.out, ::testing::ContainsRegex(" Execution time: [0-9.]+ ms \\(2 rows\\)"));
  // The scan read the table's two series (hosts a and b), three rows.
  EXPECT_THAT(r.out, ::testing::ContainsRegex(" Scanned: 3 rows, [0-9]+ bytes; series 2 \\(0 "
                                              "pruned\\)"));
  r = Psql({"EXPLAIN (ANALYZE, BUFFERS) SELECT count(*) FROM mydb.cpu"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, ::testing::ContainsRegex(" Execution time: [0-9.]+ ms \\(1 row\\)"));
}

// \du: the session's role (with authentication off, "strata", a superuser); \du+ adds the
// description column (psql reads it by position: without it psql crashes); a pattern that does
// not match lists none.
TEST_F(PgWireE2ETest, PsqlListsTheSessionsRole) {
  testing::ProcessResult r = Psql({"\\du", "\\du+", "\\du x*"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out,
              HasSubstr(" Role name |                  Attributes                   | "
                        "Member of \n"
                        "-----------+-----------------------------------------------+---"
                        "--------\n"
                        " strata    | Superuser, Create role, Create DB, Bypass RLS | {}\n"));
  EXPECT_THAT(r.out, HasSubstr("| Member of | Description \n"));
  EXPECT_THAT(r.out, HasSubstr(" Role name | Attributes | Member of \n"
                               "-----------+------------+-----------\n\n"));
}

// psql's lists of what Strata has none of answer with no rows under the heads psql asked for:
// \dx (extensions), \dT (data types, whose statement reads pg_class in a subquery: it once
// listed the tables as types), \dD (domains); \dp lists the tables under its own heads.
TEST_F(PgWireE2ETest, PsqlListsOfWhatStrataHasNoneOfKeepTheirHeads) {
  testing::ProcessResult r = Psql({"\\dx", "\\dT", "\\dD"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr(" Name | Version | Schema | Description \n"
                               "------+---------+--------+-------------\n"
                               "(0 rows)"));
  EXPECT_THAT(r.out, HasSubstr(" Schema | Name | Description \n"
                               "--------+------+-------------\n"
                               "(0 rows)"));
  EXPECT_THAT(r.out, Not(HasSubstr("cpu")));
  EXPECT_THAT(r.out,
              HasSubstr(" Schema | Name | Type | Collation | Nullable | Default | Check \n"));
  // \dp lists the tables with PostgreSQL's privilege columns, none granted in its terms.
  r = Psql({"\\dp"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr(" Schema | Name | Type  | Access privileges | Column privileges | "
                               "Policies \n"));
  EXPECT_THAT(r.out, HasSubstr(" mydb   | cpu  | table |                   |"));
  // A tool's probe keeps its columns too: Grafana's TimescaleDB check, count(*) as "count".
  r = Psql({"SELECT extversion FROM pg_extension WHERE extname = 'timescaledb'",
            "SELECT DISTINCT a.attname, t.typname AS \"Type\", count(*), 1 + 1 "
            "FROM pg_catalog.pg_attribute a, pg_type t"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr(" extversion \n------------\n(0 rows)"));
  EXPECT_THAT(r.out, HasSubstr(" attname | Type | count | ?column? \n"));
}

// psql exports a query's rows with COPY ... TO STDOUT and its \copy, as CSV or in the text
// format; a server file is refused, saying what to use.
TEST_F(PgWireE2ETest, PsqlCopiesRowsOut) {
  testing::ProcessResult r = Psql(
      {"COPY (SELECT host, usage, procs FROM mydb.cpu ORDER BY time) TO STDOUT WITH (FORMAT csv, "
       "HEADER)",
       "COPY (SELECT host, 'x' || chr(9) || 'y' AS t, procs FROM mydb.cpu ORDER BY time LIMIT 2) "
       "TO STDOUT"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "host,usage,procs\na,1.5,3\nb,2.5,\na,4,\n"
            "a\tx\\ty\t3\nb\tx\\ty\t\\N\n");

  const std::string file = ::testing::TempDir() + "/strata_copy_out.csv";
  r = Psql({"\\copy mydb.cpu (host, usage) TO '" + file + "' CSV HEADER"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "COPY 3\n");
  std::ifstream in(file);
  const std::string written((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // A table's rows come in no particular order (as in PostgreSQL): the lines as a set.
  std::vector<std::string> lines = absl::StrSplit(written, '\n');
  std::sort(lines.begin() + 1, lines.end());
  EXPECT_THAT(lines, ::testing::ElementsAre("host,usage", "", "a,1.5", "a,4", "b,2.5"));

  r = Psql({"COPY mydb.cpu FROM '/tmp/x.csv'", "COPY mydb.cpu TO '/tmp/x.csv'",
            "COPY (SELECT nope FROM mydb.cpu) TO STDOUT", "COPY mydb.cpu (nope) TO STDOUT",
            "SELECT 41 + 1"});
  EXPECT_THAT(r.err, HasSubstr("COPY FROM a server file or program is not supported"));
  EXPECT_THAT(r.err, HasSubstr("COPY TO a server file or program is not supported"));
  EXPECT_THAT(r.err, HasSubstr("column \"nope\" does not exist"));
  EXPECT_THAT(r.err, HasSubstr("LINE 1: COPY (SELECT nope FROM mydb.cpu) TO STDOUT\n"
                               "                     ^"));
  // A table's COPY runs a statement Strata writes: its error says what, with no caret
  // under the COPY the user wrote.
  EXPECT_THAT(r.err, ::testing::EndsWith("ERROR:  column \"nope\" does not exist\n"));
  EXPECT_THAT(r.out, HasSubstr("42"));
}

// psql loads rows with \copy ... FROM a file and COPY ... FROM STDIN (its own input): CSV with
// a header and quoted values, the text format with escapes and NULLs, a new table's columns
// typed by their first values. Bad lines are named and the good ones written; a table's own
// COPY TO output loads back into another table.
TEST_F(PgWireE2ETest, PsqlCopiesRowsIn) {
  const std::string csv = ::testing::TempDir() + "/strata_copy_in.csv";
  std::ofstream(csv) << "time,host,usage,procs,up\n"
                        "2024-03-01 11:10:00,c,7.5,2,true\n"
                        "2024-03-01 11:11:00,\"d,e\",,,f\n";
  testing::ProcessResult r =
      Psql({"\\copy mydb.cpu (time, host, usage, procs, up) FROM '" + csv + "' CSV HEADER",
            "SELECT host, usage, procs, up FROM mydb.cpu WHERE time >= '2024-03-01 11:10:00' "
            "ORDER BY time"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "COPY 2\n"
            " host | usage | procs | up \n"
            "------+-------+-------+----\n"
            " c    |   7.5 |     2 | t\n"
            " d,e  |       |       | f\n"
            "(2 rows)\n\n");

  // A new table: site is text (a dimension), temp a number (a DOUBLE measure), ok a boolean.
  r = testing::RunProcess(
      {"/usr/bin/psql", "-X", "-h", "127.0.0.1", "-p", std::to_string(server_.pg_port()), "-U",
       "grafana", "-d", "strata", "-c", "CREATE TABLE mydb.fresh", "-c",
       "COPY mydb.fresh (time, site, temp, ok) FROM STDIN", "-c",
       "SELECT site, temp, ok FROM mydb.fresh ORDER BY time", "-c", "DESCRIBE mydb.fresh"},
      "2024-03-01 11:20:00\tlab\\t1\t21.5\tt\n"
      "2024-03-01 11:21:00\t\\N\t-3\tf\n"
      "\\.\n");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("COPY 2\n"));
  // (psql shows the tab in "lab<tab>1" as spaces.)
  EXPECT_THAT(r.out, HasSubstr(" lab     1 | 21.5 | t\n"
                               "           |   -3 | f\n"));
  EXPECT_THAT(r.out, HasSubstr(" site         | varchar   | DIMENSION\n"));
  EXPECT_THAT(r.out, HasSubstr(" temp         | double    | MULTI\n"));
  EXPECT_THAT(r.out, HasSubstr(" ok           | boolean   | MULTI\n"));

  // Bad lines are rejected by number, with why; the good ones are written.
  const std::string bad = ::testing::TempDir() + "/strata_copy_bad.csv";
  std::ofstream(bad) << "2024-03-01 11:30:00,f,1\n"
                        "yesterday,g,2\n"
                        "2024-03-01 11:32:00,h,abc\n"
                        "2024-03-01 11:33:00,i\n";
  r = Psql({"\\copy mydb.cpu (time, host, usage) FROM '" + bad + "' CSV",
            "SELECT count(*) FROM mydb.cpu WHERE host IN ('f', 'g', 'h', 'i')",
            "COPY mydb.nosuch FROM STDIN", "COPY (SELECT 1) FROM STDIN"});
  EXPECT_THAT(r.err, HasSubstr("ERROR:  COPY wrote 1 of 4 rows; 3 were rejected; line 2: its time "
                               "'yesterday' is not a timestamp; line 3: column usage: 'abc' is "
                               "not a double; line 4: it has 2 fields for the 3 columns\n"));
  EXPECT_THAT(r.out, HasSubstr("     1\n"));
  EXPECT_THAT(r.err, HasSubstr("ERROR:  table \"nosuch\" does not exist in database \"mydb\"\n"));
  EXPECT_THAT(r.err, HasSubstr("COPY (query) is TO STDOUT only"));

  // A table's rows out in the text format and into another table, column by column.
  const std::string dump = ::testing::TempDir() + "/strata_copy_dump.txt";
  r =
      Psql({"\\copy (SELECT time, host, usage, procs, up FROM mydb.cpu WHERE time < "
            "'2024-03-01 11:10:00') TO '" +
                dump + "'",
            "CREATE TABLE mydb.again",
            "\\copy mydb.again (time, host, usage, procs, up) FROM '" + dump + "'",
            "SELECT host, usage, procs, up FROM mydb.again ORDER BY time"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("COPY 3\nCREATE TABLE\nCOPY 3\n"));
  EXPECT_THAT(r.out, HasSubstr(" a    |   1.5 |     3 | t\n"
                               " b    |   2.5 |       | \n"
                               " a    |     4 |       | \n"));
}

// A statement that only mentions a pg_ name (a value, an alias, a column) is the user's: it
// was answered as a catalog probe, with no rows and no error.
TEST_F(PgWireE2ETest, PgNamesInValuesAndAliasesAreNotCatalogProbes) {
  testing::ProcessResult r =
      testing::RunProcess({"/usr/bin/psql",
                           "-X",
                           "-A",
                           "-t",
                           "-h",
                           "127.0.0.1",
                           "-p",
                           std::to_string(server_.pg_port()),
                           "-U",
                           "me",
                           "-d",
                           "mydb",
                           "-c",
                           "SELECT count(*) FROM cpu WHERE host <> 'pg_primary'",
                           "-c",
                           "SELECT 7 AS pg_count",
                           "-c",
                           "SELECT pg_typeof(1.5)",
                           "-c",
                           "SELECT pg_size_pretty(123456789)",
                           "-c",
                           "SELECT pg_catalog.upper('a'), pg_catalog.version() = version()",
                           "-c",
                           "SELECT pg_catalog.pg_get_userbyid(10)",
                           "-c",
                           "SELECT count(*) FROM pg_catalog.pg_type WHERE typname = 'int8'"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // pg_typeof and pg_size_pretty are the engine's, and so is a function of the engine by its
  // pg_catalog name (such a statement was answered with no rows), and pg_type; a catalog
  // function the engine does not have answers no row.
  EXPECT_EQ(r.out, "3\n7\ndouble precision\n118 MB\nA|t\n1\n");
  // A pg_ function the engine refuses says what to write instead (it was answered with no rows).
  testing::ProcessResult refused = Psql({"SELECT pg_total_relation_size('mydb.cpu')"});
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_THAT(refused.err, HasSubstr("a table's storage is in \"system\".\"tables\""));
}

// psql's user makes databases and tables in SQL; each answers PostgreSQL's command tag.
TEST_F(PgWireE2ETest, PsqlCreatesAltersAndDropsDatabasesAndTables) {
  testing::ProcessResult r = Psql(
      {"CREATE DATABASE sensors", "CREATE TABLE sensors.readings WITH (partition_key = 'room')",
       "ALTER TABLE sensors.readings SET (memory_store_retention_hours = 12)", "\\dt sensors.*",
       "SELECT memory_store_retention_hours, partition_key FROM system.tables "
       "WHERE database = 'sensors'",
       "INSERT INTO sensors.readings (time, room, celsius) VALUES "
       "('2024-03-01 11:00:00', 'hall', 19.5), ('2024-03-01 11:01:00', 'attic', 12)",
       "SELECT room, celsius FROM sensors.readings ORDER BY time", "DROP DATABASE sensors",
       "DROP TABLE sensors.readings", "DROP SCHEMA sensors"});
  EXPECT_THAT(r.out, HasSubstr("CREATE DATABASE\nCREATE TABLE\nALTER TABLE\n"));
  EXPECT_THAT(r.out, HasSubstr(" sensors | readings | table | strata\n"));
  EXPECT_THAT(r.out, HasSubstr("                           12 | dimension room (optional)\n"));
  EXPECT_THAT(r.out, HasSubstr("INSERT 0 2\n"));
  EXPECT_THAT(r.out, HasSubstr(" hall  |    19.5\n attic |      12\n"));
  EXPECT_THAT(r.out, HasSubstr("DROP TABLE\nDROP SCHEMA\n"));
  EXPECT_THAT(r.err, HasSubstr("ERROR:  database \"sensors\" still has 1 table"));
  r = Psql({"SELECT count(*) FROM information_schema.schemata WHERE schema_name = 'sensors'"});
  EXPECT_THAT(r.out, HasSubstr("     0\n"));
}

// A session's read choice (docs/cluster.md, "Read choices") is set as strata.<option>; a
// value the option cannot take fails the session's next query, saying what it takes.
TEST_F(PgWireE2ETest, ReadChoiceSettingsAreCheckedAtTheNextQuery) {
  testing::ProcessResult r =
      Psql({"SET strata.read_consistency = 'eventual'", "SELECT 1",
            "SET strata.read_consistency = 'follower'", "SET strata.max_staleness_ms = '0'",
            "SELECT 2", "SET strata.max_staleness_ms = 250", "SELECT 41 + 1"});
  EXPECT_THAT(r.err, HasSubstr("SET strata.read_consistency: unknown read consistency "
                               "\"eventual\"; use leader, strong or follower"));
  EXPECT_THAT(r.err, HasSubstr("SET strata.max_staleness_ms: max_staleness_ms is a whole "
                               "number from 1 to 3600000, not \"0\""));
  EXPECT_THAT(r.out, HasSubstr("42"));
}

TEST_F(PgWireE2ETest, Psycopg) {
  testing::ProcessResult r = testing::RunProcess(
      {"/usr/bin/python3", kProtocols + "/psycopg_client.py", std::to_string(server_.pg_port())});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("ok grafana time series panel"));
  EXPECT_THAT(r.out, HasSubstr("all checks passed"));
}

// SQLAlchemy's reflection reads pg_catalog (query/exec/pg_catalog.h); pandas reads through it.
TEST_F(PgWireE2ETest, SqlAlchemyAndPandas) {
  testing::ProcessResult r =
      testing::RunProcess({"/usr/bin/python3", kProtocols + "/sqlalchemy_client.py",
                           std::to_string(server_.pg_port())});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("ok has_table"));
  EXPECT_THAT(r.out, HasSubstr("all checks passed"));
}

TEST_F(PgWireE2ETest, NodePostgres) {
  const std::string node = testing::FindOnPath("node");
  ASSERT_FALSE(node.empty()) << "node is not installed (scripts/deps.sh installs it)";
  ASSERT_TRUE(std::filesystem::exists(kProtocols + "/node/node_modules/pg"))
      << "run `npm ci` in tests/protocols/node (scripts/test.sh does)";
  testing::ProcessResult r =
      testing::RunProcess({node, kProtocols + "/node/pg_client.mjs", std::to_string(server_.pg_port())});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("all checks passed"));
}

// ------------------------------------------------------------ raw protocol

// A minimal frontend for what the clients above do not send.
using RawClient = testing::PgRawClient;

// COPY through the extended protocol, as a driver that prepares every statement sends it: its
// Describe answers NoData (its rows travel in CopyData, not DataRow), then Execute takes the
// rows (CopyInResponse, the client's CopyData and CopyDone, CommandComplete `COPY 2`).
TEST_F(PgWireE2ETest, CopyThroughTheExtendedProtocolIsDescribedAsNoRows) {
  RawClient c(server_.pg_port());
  ASSERT_TRUE(c.connected());
  EXPECT_THAT(c.Start(), ::testing::StartsWith("RSSSSSSSSSSKZ"));
  const std::string copy_in = "COPY mydb.cpu (time, host, usage) FROM STDIN";
  c.Send('P', RawClient::Str("c1") + RawClient::Str(copy_in) + RawClient::Int16(0));
  c.Send('D', "S" + RawClient::Str("c1"));
  c.Send('B', RawClient::Str("") + RawClient::Str("c1") + RawClient::Int16(0) +
                  RawClient::Int16(0) + RawClient::Int16(0));
  c.Send('D', "P" + RawClient::Str(""));
  c.Send('E', RawClient::Str("") + RawClient::Int32(0));
  c.Send('d', "2024-03-01 12:00:00\textended\t1.5\n2024-03-01 12:01:00\textended\t2.5\n");
  c.Send('c', "");
  c.Send('S', "");
  // ParseComplete, ParameterDescription, NoData, BindComplete, NoData, CopyInResponse,
  // CommandComplete.
  EXPECT_EQ(c.ReadUntilReady(), "1tn2nGCZ");
  c.Send('Q', RawClient::Str("SELECT count(*) FROM mydb.cpu WHERE host = 'extended'"));
  EXPECT_EQ(c.ReadUntilReady(), "TD(2)CZ");
  const std::string copy_out = "COPY (SELECT 1) TO STDOUT";
  c.Send('P', RawClient::Str("") + RawClient::Str(copy_out) + RawClient::Int16(0));
  c.Send('D', "S" + RawClient::Str(""));
  c.Send('S', "");
  EXPECT_EQ(c.ReadUntilReady(), "1tnZ");
}

TEST_F(PgWireE2ETest, ExecuteWithARowLimitSuspendsThePortal) {
  RawClient c(server_.pg_port());
  ASSERT_TRUE(c.connected());
  EXPECT_THAT(c.Start(), ::testing::StartsWith("RSSSSSSSSSSKZ"));
  // A portal outlives Sync only inside a transaction block, as in PostgreSQL.
  c.Send('Q', RawClient::Str("BEGIN"));
  EXPECT_EQ(c.ReadUntilReady(), "CZ");
  const std::string sql = "SELECT host FROM mydb.cpu WHERE usage > $1 ORDER BY time";
  c.Send('P', RawClient::Str("s1") + RawClient::Str(sql) + RawClient::Int16(0));
  c.Send('B', RawClient::Str("p1") + RawClient::Str("s1") + RawClient::Int16(0) +
                  RawClient::Int16(1) + RawClient::Int32(1) + "0" + RawClient::Int16(0));
  c.Send('D', "P" + RawClient::Str("p1"));
  c.Send('E', RawClient::Str("p1") + RawClient::Int32(2));
  c.Send('S', "");
  // ParseComplete, BindComplete, RowDescription, 2 rows, PortalSuspended.
  EXPECT_EQ(c.ReadUntilReady(), "12TD(a)D(b)sZ");
  c.Send('E', RawClient::Str("p1") + RawClient::Int32(2));
  c.Send('S', "");
  EXPECT_EQ(c.ReadUntilReady(), "D(a)CZ");
  c.Send('Q', RawClient::Str("COMMIT"));
  EXPECT_EQ(c.ReadUntilReady(), "CZ");
  c.Send('E', RawClient::Str("p1") + RawClient::Int32(2));
  c.Send('S', "");
  EXPECT_EQ(c.ReadUntilReady(), "E(portal \"p1\" does not exist)Z");
  // An error skips the rest of the batch up to Sync.
  c.Send('P', RawClient::Str("") + RawClient::Str("SELECT nope FROM mydb.cpu") + RawClient::Int16(0));
  c.Send('B', RawClient::Str("") + RawClient::Str("") + RawClient::Int16(0) + RawClient::Int16(0) +
                  RawClient::Int16(0));
  c.Send('D', "P" + RawClient::Str(""));
  c.Send('E', RawClient::Str("") + RawClient::Int32(0));
  c.Send('S', "");
  EXPECT_EQ(c.ReadUntilReady(), "12E(column \"nope\" does not exist)Z");
  c.Send('X', "");
}

// The query memory the server holds now, from its /metrics.
int64_t QueryMemoryUsed(testing::StratadProcess& server) {
  httplib::Client http("127.0.0.1", server.http_port());
  auto res = http.Get("/metrics");
  if (!res || res->status != 200) return -1;
  const std::string name = "\nstrata_query_memory_used_bytes ";
  const size_t at = res->body.find(name);
  return at == std::string::npos ? -1 : std::stoll(res->body.substr(at + name.size()));
}

// A result fetched with a row limit is kept in memory: from the server's
// query memory budget, at most a quarter of it per session, and given back
// when the portal ends (at Sync or a simple query outside a transaction
// block, at COMMIT or ROLLBACK inside one, when the client leaves). Before,
// each of 64 portals a session could open kept up to 256 MB, counted nowhere.
TEST(PgWirePortalMemoryE2ETest, KeptResultsAreBoundedPerSessionAndByTheServersBudget) {
  testing::StratadProcess server;
  // A 4 MiB budget: 1 MiB per session. A portal of 10,000 one-column rows
  // keeps ~0.7 MB (72 bytes a value), so one fits a session and two do not;
  // six sessions' one each do not fit the server (the running query's own
  // memory comes from the budget too: not every fifth one fits).
  ASSERT_TRUE(server.Start({"--query-memory-total-mb", "4"})) << server.error();
  const std::string rows10k = "SELECT x FROM UNNEST(sequence(1, 10000)) AS t(x)";
  // Binds `portal` to the 10,000 rows and fetches one of them.
  auto keep = [&](RawClient& c, const std::string& portal) {
    c.Send('P', RawClient::Str("") + RawClient::Str(rows10k) + RawClient::Int16(0));
    c.Send('B', RawClient::Str(portal) + RawClient::Str("") + RawClient::Int16(0) +
                    RawClient::Int16(0) + RawClient::Int16(0));
    c.Send('E', RawClient::Str(portal) + RawClient::Int32(1));
    c.Send('S', "");
    return c.ReadUntilReady();
  };
  {
    RawClient c(server.pg_port());
    c.Start();
    // Outside a transaction block the portal ends at Sync, and its memory with it.
    EXPECT_EQ(keep(c, "p1"), "12D(1)sZ");
    EXPECT_EQ(QueryMemoryUsed(server), 0);
    c.Send('E', RawClient::Str("p1") + RawClient::Int32(1));
    c.Send('S', "");
    EXPECT_EQ(c.ReadUntilReady(), "E(portal \"p1\" does not exist)Z");
    // Inside one it stays, and counts, until the block ends.
    c.Send('Q', RawClient::Str("BEGIN"));
    EXPECT_EQ(c.ReadUntilReady(), "CZ");
    EXPECT_EQ(keep(c, "p1"), "12D(1)sZ");
    const int64_t one = QueryMemoryUsed(server);
    EXPECT_GE(one, 10000 * 48);
    const std::string refused = keep(c, "p2");
    EXPECT_THAT(refused, ::testing::StartsWith("12E(results fetched with a row limit are kept "
                                               "in memory, at most 1 MiB per session"));
    EXPECT_THAT(refused, HasSubstr("close this session's other portals first)Z"));
    EXPECT_EQ(QueryMemoryUsed(server), one);
    c.Send('Q', RawClient::Str("ROLLBACK"));
    EXPECT_EQ(c.ReadUntilReady(), "CZ");
    EXPECT_EQ(QueryMemoryUsed(server), 0);
    // A portal handed out to its end gives its memory back at once.
    c.Send('Q', RawClient::Str("BEGIN"));
    c.ReadUntilReady();
    EXPECT_EQ(keep(c, "p3"), "12D(1)sZ");
    c.Send('E', RawClient::Str("p3") + RawClient::Int32(0));
    c.Send('S', "");
    EXPECT_THAT(c.ReadUntilReady(), ::testing::EndsWith("D(10000)CZ"));
    EXPECT_EQ(QueryMemoryUsed(server), 0);
    c.Send('X', "");
  }
  // Sessions together: past the server's budget a portal is refused, saying so.
  std::vector<std::unique_ptr<RawClient>> sessions;
  int kept = 0;
  std::string refusal;
  for (int i = 0; i < 6; ++i) {
    sessions.push_back(std::make_unique<RawClient>(server.pg_port()));
    RawClient& c = *sessions.back();
    c.Start();
    c.Send('Q', RawClient::Str("BEGIN"));
    c.ReadUntilReady();
    const std::string seen = keep(c, "p");
    if (seen == "12D(1)sZ") {
      ++kept;
    } else {
      refusal = seen;
    }
  }
  EXPECT_GE(kept, 2);
  EXPECT_LT(kept, 6);
  EXPECT_THAT(refusal, HasSubstr("query memory budget"));
  EXPECT_THAT(refusal, HasSubstr("--query-memory-total-mb"));
  EXPECT_GT(QueryMemoryUsed(server), 0);
  // Clients that leave give theirs back.
  sessions.clear();
  for (int i = 0; i < 100 && QueryMemoryUsed(server) != 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(QueryMemoryUsed(server), 0);
}

TEST_F(PgWireE2ETest, ASessionHoldsABoundedNumberOfPortals) {
  RawClient c(server_.pg_port());
  c.Start();
  c.Send('P', RawClient::Str("s") + RawClient::Str("SELECT 1") + RawClient::Int16(0));
  for (int i = 0; i < 65; ++i) {
    c.Send('B', RawClient::Str("p" + std::to_string(i)) + RawClient::Str("s") + RawClient::Int16(0) +
                    RawClient::Int16(0) + RawClient::Int16(0));
  }
  c.Send('S', "");
  const std::string seen = c.ReadUntilReady();
  EXPECT_EQ(seen, "1" + std::string(64, '2') + "E(this session holds 64 open portals; Close some first)Z");
}

// Prepared statements are kept until Close: 1,000 of up to 256 KiB each kept
// 512 MB per session (with the rewritten copy), 51 GB at 100 sessions. Their
// bytes together are bounded; a replaced or closed statement's are freed.
TEST_F(PgWireE2ETest, ASessionHoldsABoundedAmountOfPreparedStatements) {
  RawClient c(server_.pg_port());
  c.Start();
  // ~400 KiB kept each (the text and its rewritten copy): 40 fit in 16 MiB, 41 do not.
  const std::string sql = "SELECT 1 -- " + std::string(200 << 10, 'x');
  auto parse = [&](const std::string& name) {
    c.Send('P', RawClient::Str(name) + RawClient::Str(sql) + RawClient::Int16(0));
    c.Send('S', "");
    return c.ReadUntilReady();
  };
  for (int i = 0; i < 40; ++i) ASSERT_EQ(parse("s" + std::to_string(i)), "1Z") << i;
  EXPECT_EQ(parse("s0"), "1Z");  // replacing one keeps the same
  const std::string refused = parse("s40");
  EXPECT_THAT(refused, ::testing::StartsWith("E(this session's prepared statements would keep "));
  EXPECT_THAT(refused,
              HasSubstr("the limit is 16 MiB per session; Close or DEALLOCATE some first)Z"));
  c.Send('C', "S" + RawClient::Str("s3"));
  c.Send('S', "");
  EXPECT_EQ(c.ReadUntilReady(), "3Z");
  EXPECT_EQ(parse("s40"), "1Z");
  c.Send('Q', RawClient::Str("DEALLOCATE ALL"));
  EXPECT_EQ(c.ReadUntilReady(), "CZ");
  for (int i = 41; i < 80; ++i) ASSERT_EQ(parse("s" + std::to_string(i)), "1Z") << i;
  c.Send('X', "");
}

// SET accepts any name (drivers set parameters Strata does not use), so a
// session's settings are bounded in number and size; RESET of one without a
// default frees it.
TEST_F(PgWireE2ETest, ASessionKeepsABoundedNumberOfSettings) {
  RawClient c(server_.pg_port());
  c.Start();
  auto query = [&](const std::string& sql) {
    c.Send('Q', RawClient::Str(sql));
    return c.ReadUntilReady();
  };
  EXPECT_EQ(query("SET my.big = '" + std::string(9000, 'v') + "'"),
            "E(the value for \"my.big\" is 9000 bytes; the limit is 8192 bytes)Z");
  int accepted = 0;
  std::string refused;
  for (int i = 0; i < 300 && refused.empty(); ++i) {
    const std::string seen = query("SET my.s" + std::to_string(i) + " = 'x'");
    if (seen == "CZ") {
      ++accepted;
    } else {
      refused = seen;
    }
  }
  EXPECT_GT(accepted, 200);
  EXPECT_LT(accepted, 256);  // the defaults count too
  EXPECT_EQ(refused, "E(this session has 256 settings, the most it may keep; RESET one first)Z");
  EXPECT_EQ(query("SET my.s0 = 'y'"), "CZ");  // one it has may change
  EXPECT_EQ(query("RESET my.s0"), "CZ");
  EXPECT_EQ(query("SHOW my.s0"), "E(unrecognized configuration parameter \"my.s0\")Z");
  EXPECT_EQ(query("SET my.other = 'x'"), "CZ");
  EXPECT_EQ(query("SHOW my.other"), "TD(x)CZ");
  // Strata's own SHOW is not a setting (it was answered "unrecognized
  // configuration parameter \"databases\"").
  EXPECT_EQ(query("SHOW DATABASES"), "TD(mydb)CZ");
  c.Send('X', "");
}

TEST_F(PgWireE2ETest, BadStartupsAreRefusedAndTheServerCarriesOn) {
  {
    RawClient c(server_.pg_port());
    c.Send(0, RawClient::Int32(2 << 16) + std::string(1, '\0'));  // protocol 2.0
    EXPECT_EQ(c.ReadUntilReady(), "E(unsupported frontend protocol 2.0: Strata speaks 3.0)<eof>");
  }
  {
    RawClient c(server_.pg_port());
    c.Send(0, std::string(3, 'x'));  // a length that counts less than itself
    EXPECT_EQ(c.ReadUntilReady(), "<eof>");
  }
  {
    RawClient c(server_.pg_port());
    c.Start("x");
    c.Send('Q', RawClient::Str(""));  // an empty query
    EXPECT_EQ(c.ReadUntilReady(), "IZ");
  }
  testing::ProcessResult r = Psql({"SELECT count(*) FROM mydb.cpu"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

// A simple query's statements are split at top-level semicolons (not those
// in strings or comments) and run in turn; text the lexer refuses anywhere
// runs none of them; and a message of 15 MB of `;`s is split holding one
// statement at a time (a vector of every token and piece took ~1.3 GB).
TEST_F(PgWireE2ETest, ASimpleQueryIsSplitOneStatementAtATime) {
  RawClient c(server_.pg_port());
  ASSERT_TRUE(c.connected());
  c.Start();
  c.Send('Q', RawClient::Str("SELECT 1; SELECT 'a;b' -- c;\n; /* ; */ SELECT 2;"));
  EXPECT_EQ(c.ReadUntilReady(), "TD(1)CTD(a;b)CTD(2)CZ");
  c.Send('Q', RawClient::Str("SELECT 1; SELECT 'x"));
  const std::string refused = c.ReadUntilReady();
  EXPECT_THAT(refused, HasSubstr("unterminated string"));
  EXPECT_THAT(refused, ::testing::StartsWith("E("));
  c.Send('Q', RawClient::Str(std::string(15 << 20, ';')));
  EXPECT_EQ(c.ReadUntilReady(), "IZ");  // one empty query
  EXPECT_LT(server_.PeakRssBytes(), int64_t{400} << 20);
  c.Send('Q', RawClient::Str("SELECT 3"));
  EXPECT_EQ(c.ReadUntilReady(), "TD(3)CZ");
  // A prepared statement is kept until Close: one longer than a query may be
  // is refused, not held.
  c.Send('P', RawClient::Str("big") + RawClient::Str("SELECT " + std::string(300 << 10, '1')) +
                  RawClient::Int16(0));
  c.Send('S', "");
  EXPECT_EQ(c.ReadUntilReady(),
            "E(the statement is 307207 bytes; the limit is 262144 (256 KiB))Z");
  c.Send('X', "");
}

// Random messages after a good startup (known and unknown types, bodies of
// random bytes, now and then a length that lies): each connection gets an
// error or is closed, and the server serves the next client.
TEST_F(PgWireE2ETest, RandomMessagesNeverStopTheServer) {
  std::mt19937 random(20261123);
  const std::string types = "QPBDECSHXdcfpz\x01";
  for (int connection = 0; connection < 200; ++connection) {
    RawClient c(server_.pg_port());
    ASSERT_TRUE(c.connected()) << "connection " << connection << "\n" << server_.log();
    c.Send(0, RawClient::Int32(196608) + RawClient::Str("user") + RawClient::Str("fuzz") +
                  std::string(1, '\0'));
    for (int m = 0; m < 8; ++m) {
      std::string body(random() % 48, '\0');
      for (char& ch : body) ch = static_cast<char>(random() % 4 == 0 ? 0 : random() % 256);
      const char type = types[random() % types.size()];
      if (random() % 16 == 0) {  // a length that does not match what follows
        std::string lie(1, type);
        lie += RawClient::Int32(static_cast<int32_t>(random() % 100));
        (void)c.socket().Send(lie);
        break;
      }
      c.Send(type, body);
    }
  }
  testing::ProcessResult r = Psql({"SELECT count(*) FROM mydb.cpu"});
  EXPECT_EQ(r.exit_code, 0) << r.err << server_.log();
  EXPECT_THAT(r.out, HasSubstr(" 3\n"));
}

TEST(PgWireCancelE2ETest, CtrlCInPsqlCancelsTheRunningQuery) {
  testing::StratadProcess server;
  ASSERT_TRUE(server.Start({"--testing-query-delay-ms", "30000"})) << server.error();
  testing::PtyProcess psql({"/usr/bin/psql", "-X", "-h", "127.0.0.1", "-p",
                            std::to_string(server.pg_port()), "-U", "me", "-d", "strata"});
  ASSERT_TRUE(psql.WaitFor("strata=>")) << psql.output();
  psql.Type("SELECT 42;\r");
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  psql.Type("\x03");
  ASSERT_TRUE(psql.WaitFor("ERROR:  the query was cancelled", std::chrono::seconds(10)))
      << psql.output();
  EXPECT_THAT(psql.output(), Not(HasSubstr("42\r\n(1 row)")));
  psql.Type("\\q\r");
  EXPECT_EQ(psql.Wait(), 0);
}

// A client that closes its connection while its statement runs has the statement cancelled
// (as PostgreSQL's client_connection_check_interval does), not left running to its timeout for
// no one: an endless recursive query leaves SHOW QUERIES soon after its client is gone.
TEST(PgWireClientWatchE2ETest, AClientThatLeavesHasItsStatementCancelled) {
  testing::StratadProcess server;
  ASSERT_TRUE(server.Start()) << server.error();
  const std::string endless =
      "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n FROM t) SELECT count(*) FROM t";
  auto running = [&] {
    testing::ProcessResult shown = testing::RunProcess(
        {"/usr/bin/psql", "-X", "-At", "-h", "127.0.0.1", "-p", std::to_string(server.pg_port()),
         "-U", "me", "-d", "strata", "-c", "SHOW QUERIES"});
    EXPECT_EQ(shown.exit_code, 0) << shown.err;
    return shown.out.find("WITH RECURSIVE") != std::string::npos;
  };
  auto waited = [&](bool want) {
    for (auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
         std::chrono::steady_clock::now() < give_up;) {
      if (running() == want) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
  };
  {
    testing::PgRawClient client(server.pg_port());
    ASSERT_TRUE(client.connected());
    client.Start();
    client.Send('Q', testing::PgRawClient::Str(endless));
    ASSERT_TRUE(waited(true)) << "the endless query never showed\n" << server.log();
  }  // the client closes its connection
  EXPECT_TRUE(waited(false)) << "the query of a client that left still runs\n" << server.log();
  EXPECT_THAT(server.log(), HasSubstr("closed its connection while its statement ran"));
  // A client that stays is not cancelled: its statement ends with its answer.
  testing::ProcessResult stays = testing::RunProcess(
      {"/usr/bin/psql", "-X", "-At", "-h", "127.0.0.1", "-p", std::to_string(server.pg_port()),
       "-U", "me", "-d", "strata", "-c",
       "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 300000) "
       "SELECT count(*) FROM t"});
  EXPECT_EQ(stays.exit_code, 0) << stays.err;
  EXPECT_EQ(stays.out, "300000\n");
}

TEST(PgWireSecurityE2ETest, TlsAndATokenAsThePassword) {
  testing::TestCerts certs;
  ASSERT_TRUE(certs.ok()) << certs.error();
  testing::StratadProcess server;
  ASSERT_TRUE(server.StartWithTls(certs, {"--auth-failure-limit", "0"})) << server.error();
  const std::string admin = server.AdminToken();
  auto psql = [&](const std::string& sslmode, const std::string& password) {
    return testing::RunProcess(
        {"/usr/bin/psql", "-X", "-A", "-t", "-c", "SELECT 40 + 2, current_user",
         "host=localhost port=" + std::to_string(server.pg_port()) +
             " user=me dbname=strata "
             "sslmode=" +
             sslmode + " sslrootcert=" + certs.ca_cert()},
        "", {"PGPASSWORD=" + password, "PGCONNECT_TIMEOUT=10"});
  };
  testing::ProcessResult ok = psql("verify-full", admin);
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_EQ(ok.out, "42|admin\n");  // current_user is the token's name
  // \du lists the session's role: the token's name, an admin a superuser.
  testing::ProcessResult roles = testing::RunProcess(
      {"/usr/bin/psql", "-X", "-A", "-t", "-c", "\\du",
       "host=localhost port=" + std::to_string(server.pg_port()) +
           " user=me dbname=strata sslmode=verify-full sslrootcert=" + certs.ca_cert()},
      "", {"PGPASSWORD=" + admin, "PGCONNECT_TIMEOUT=10"});
  EXPECT_EQ(roles.exit_code, 0) << roles.err;
  EXPECT_EQ(roles.out, "admin|Superuser, Create role, Create DB, Bypass RLS|{}\n");
  testing::ProcessResult plain = psql("disable", admin);
  EXPECT_NE(plain.exit_code, 0);
  EXPECT_THAT(plain.err, HasSubstr("this server requires SSL"));
  testing::ProcessResult wrong = psql("require", "strata_0000000000000000_" + std::string(64, '0'));
  EXPECT_NE(wrong.exit_code, 0);
  EXPECT_THAT(wrong.err, HasSubstr("password authentication failed"));
  // psycopg over TLS with the token.
  testing::ProcessResult py = testing::RunProcess(
      {"/usr/bin/python3", "-c",
       "import psycopg,sys; c=psycopg.connect(sys.argv[1]); print(c.execute('SELECT 1 + 1').fetchone()[0])",
       "host=localhost port=" + std::to_string(server.pg_port()) + " user=me dbname=strata "
       "sslmode=verify-full sslrootcert=" + certs.ca_cert() + " password=" + admin});
  EXPECT_EQ(py.exit_code, 0) << py.err;
  EXPECT_EQ(py.out, "2\n");
}

}  // namespace
}  // namespace strata
