// A read statement's shape (query/parse/statement_shape.h): literals masked, writes and other
// statements none.
#include "query/parse/statement_shape.h"

#include <optional>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace strata::query {
namespace {

TEST(StatementShapeTest, ReadsWithOtherLiteralsShareAShape) {
  struct Case {
    std::string a, b;
    bool same;
  };
  const std::vector<Case> cases = {
      {"SELECT max(v) FROM db.cpu WHERE host = 'host_1' AND time >= ago(1h)",
       "SELECT max(v) FROM db.cpu WHERE host = 'host_77' AND time >= ago(15m)", true},
      {"SELECT * FROM t LIMIT 10", "select * from t limit 2000", false},  // keywords as written
      {"SELECT * FROM t LIMIT 10", "SELECT * FROM t LIMIT 2000", true},
      {"SELECT 1.5, 'x', 42", "SELECT 2.25, 'a b c', -1", false},  // -1 is a sign and a number
      {"SELECT 1.5, 'x', 42", "SELECT 2.25, 'a b c', 7", true},
      {"SELECT a FROM t WHERE h IN ('a', 'b')", "SELECT a FROM t WHERE h IN ('a')", false},
      {"SELECT a FROM t", "SELECT b FROM t", false},
      {"SELECT a FROM t", "SELECT a FROM u", false},
      {"SELECT \"a\" FROM t", "SELECT a FROM t", false},
      {"SELECT a FROM t WHERE x = ?", "SELECT a FROM t WHERE x = 5", true},  // a placeholder too
      {"WITH q AS (SELECT 1) SELECT * FROM q", "WITH q AS (SELECT 2) SELECT * FROM q", true},
      {"SELECT a  FROM\n t -- note", "SELECT a FROM t", true},  // spacing and comments aside
  };
  for (const Case& c : cases) {
    const std::optional<std::string> a = ReadStatementShape(c.a), b = ReadStatementShape(c.b);
    ASSERT_TRUE(a.has_value()) << c.a;
    ASSERT_TRUE(b.has_value()) << c.b;
    EXPECT_EQ(*a == *b, c.same) << c.a << " | " << c.b << "\n" << *a << "\n" << *b;
  }
}

TEST(StatementShapeTest, OtherStatementsHaveNone) {
  for (const std::string sql :
       {"DELETE FROM t WHERE time < ago(1d)", "EXPLAIN SELECT 1", "SHOW TABLES", "", "   ",
        "-- only a comment", "SELECT 'unterminated", "CREATE TABLE x (a BIGINT)",
        "KILL QUERY '12'"}) {
    EXPECT_FALSE(ReadStatementShape(sql).has_value()) << sql;
  }
  EXPECT_TRUE(ReadStatementShape("select 1").has_value());
  EXPECT_TRUE(ReadStatementShape("With q AS (SELECT 1) SELECT * FROM q").has_value());
}

// An INSERT, whatever its case, comments or query, is one (it is never run again on a cluster);
// nothing else is.
TEST(StatementShapeTest, AnInsertIsKnownByItsFirstWord) {
  for (const std::string sql :
       {"INSERT INTO t (time, v) VALUES (now(), 1)", "-- a note\n insert into t SELECT * FROM u"}) {
    EXPECT_TRUE(IsInsertStatement(sql)) << sql;
  }
  for (const std::string sql : {"SELECT 'INSERT'", "DELETE FROM t", "", "'unterminated",
                                "WITH q AS (SELECT 1) SELECT * FROM q"}) {
    EXPECT_FALSE(IsInsertStatement(sql)) << sql;
  }
}

// An EXPLAIN of a read has the read's shape (a cluster node plans it as the read would run);
// an EXPLAIN of anything else, and any other statement, none. EXPLAIN ANALYZE runs the read:
// none either, so it is read as queries are (not planned only).
TEST(StatementShapeTest, AnExplainedReadHasTheReadsShape) {
  EXPECT_EQ(ExplainedStatementShape("EXPLAIN SELECT max(v) FROM t WHERE host = 'h1'"),
            ReadStatementShape("SELECT max(v) FROM t WHERE host = 'h2'"));
  EXPECT_EQ(ExplainedStatementShape("explain\n WITH q AS (SELECT 1) SELECT * FROM q"),
            ReadStatementShape("WITH q AS (SELECT 7) SELECT * FROM q"));
  EXPECT_TRUE(ExplainedStatementShape("EXPLAIN SELECT 1").has_value());
  for (const std::string sql : {"SELECT 1", "EXPLAIN", "EXPLAIN DELETE FROM t WHERE time < ago(1d)",
                                "EXPLAIN EXPLAIN SELECT 1", "EXPLAIN SHOW TABLES",
                                "explained SELECT 1", "EXPLAIN SELECT 'unterminated", "",
                                "EXPLAIN ANALYZE SELECT 1", "EXPLAIN (ANALYZE) SELECT 1"}) {
    EXPECT_FALSE(ExplainedStatementShape(sql).has_value()) << sql;
  }
}

TEST(StatementShapeTest, AShapeTooLongIsNone) {
  std::string sql = "SELECT a";
  while (sql.size() < 2 * kMaxStatementShape) sql += ", a";
  EXPECT_FALSE(ReadStatementShape(sql).has_value());
  // Long literals cost one byte each.
  EXPECT_TRUE(
      ReadStatementShape("SELECT '" + std::string(3 * kMaxStatementShape, 'x') + "'").has_value());
}

}  // namespace
}  // namespace strata::query
