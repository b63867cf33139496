#include "query/expr/sql_text.h"

#include <cmath>

#include "gtest/gtest.h"
#include "query/parse/parser.h"

namespace strata::query {
namespace {

const Schema kSchema = {{"host", DataType::kVarchar, "t"},
                        {"time", DataType::kTimestamp, "t"},
                        {"measure_value::double", DataType::kDouble, "t"},
                        {"we\"ird", DataType::kVarchar, "t"}};

ExprPtr Column(int index) {
  auto e = std::make_unique<Expr>();
  e->kind = ExprKind::kColumn;
  e->name = kSchema[index].name;
  e->bound.column = index;
  return e;
}

ExprPtr Literal(Datum d) {
  auto e = std::make_unique<Expr>();
  e->kind = ExprKind::kLiteral;
  e->literal = std::move(d);
  return e;
}

ExprPtr Node(ExprKind kind, std::string name, std::vector<ExprPtr> args, bool negated = false) {
  auto e = std::make_unique<Expr>();
  e->kind = kind;
  e->name = std::move(name);
  e->negated = negated;
  e->args = std::move(args);
  return e;
}

template <typename... T>
std::vector<ExprPtr> Args(T... args) {
  std::vector<ExprPtr> out;
  (out.push_back(std::move(args)), ...);
  return out;
}

// `column IN (the elements of an array literal)`, as the parser makes of = ANY(list).
ExprPtr InArray(ExprPtr column, std::vector<Datum> values) {
  const DataType element = values.front().type;
  ExprPtr in = Node(
      ExprKind::kIn, "",
      Args(std::move(column), Literal(Datum::Composite(*ArrayOf(element), std::move(values)))));
  in->in_array = true;
  return in;
}

TEST(SqlTextTest, WritesWhatReadsAlikeOnEveryNode) {
  struct Case {
    ExprPtr expr;
    std::string text;
  };
  Case cases[] = {
      {Node(ExprKind::kBinary, "=", Args(Column(0), Literal(Datum::Varchar("it's")))),
       "(\"host\" = 'it''s')"},
      {Node(ExprKind::kBinary, "<>", Args(Column(3), Literal(Datum::Varchar("x")))),
       "(\"we\"\"ird\" <> 'x')"},
      {Node(ExprKind::kBinary, ">=", Args(Column(2), Literal(Datum::Double(0.1)))),
       "(\"measure_value::double\" >= (0.1))"},
      // A whole double keeps its type: 3 alone would be a BIGINT.
      {Node(ExprKind::kBinary, "<", Args(Column(2), Literal(Datum::Double(3)))),
       "(\"measure_value::double\" < (3e0))"},
      {Node(ExprKind::kBinary, ">", Args(Column(2), Literal(Datum::Bigint(-5)))),
       "(\"measure_value::double\" > -5)"},
      {Node(ExprKind::kBinary, "<",
            Args(Column(1), Literal(Datum::Timestamp(1700000000123456789)))),
       "(\"time\" < from_nanoseconds(1700000000123456789))"},
      {Node(ExprKind::kIn, "",
            Args(Column(0), Literal(Datum::Varchar("a")), Literal(Datum::Varchar("b"))),
            /*negated=*/true),
       "(\"host\" NOT IN ('a', 'b'))"},
      // x = ANY of a list parameter: its array's elements, spelled out as a list.
      {InArray(Column(1), {Datum::Timestamp(5), Datum::Null(DataType::kTimestamp)}),
       "(\"time\" IN (from_nanoseconds(5), NULL))"},
      {Node(ExprKind::kBetween, "",
            Args(Column(2), Literal(Datum::Bigint(1)), Literal(Datum::Bigint(2)))),
       "(\"measure_value::double\" BETWEEN 1 AND 2)"},
      {Node(ExprKind::kCall, "time_bucket", Args(Literal(Datum::Varchar("5 minutes")), Column(1))),
       "time_bucket('5 minutes', \"time\")"},
      {Node(ExprKind::kLike, "", Args(Column(0), Literal(Datum::Varchar("web-%")))),
       "(\"host\" LIKE 'web-%')"},
      {Node(ExprKind::kLike, "",
            Args(Column(0), Literal(Datum::Varchar("web!_%")), Literal(Datum::Varchar("!")))),
       "(\"host\" LIKE 'web!_%' ESCAPE '!')"},
      {Node(ExprKind::kIsNull, "", Args(Column(3)), /*negated=*/true),
       "(\"we\"\"ird\" IS NOT NULL)"},
      {Node(ExprKind::kBinary, "OR",
            Args(Node(ExprKind::kUnary, "NOT", Args(Node(ExprKind::kIsNull, "", Args(Column(0))))),
                 Literal(Datum::Bool(false)))),
       "((NOT (\"host\" IS NULL)) OR FALSE)"},
      // A GROUP BY key of a partial aggregate: a time bucket, arithmetic, a cast.
      {Node(ExprKind::kCall, "bin", Args(Column(1), Literal(Datum::Interval(60'000'000'000)))),
       "bin(\"time\", 1m)"},
      {Node(ExprKind::kCall, "date_trunc", Args(Literal(Datum::Varchar("hour")), Column(1))),
       "date_trunc('hour', \"time\")"},
      // A PostgreSQL session's zone, written into the statement (query/parse/session_zone.h):
      // fragments carry it to every node.
      {Node(ExprKind::kCall, "date_trunc",
            Args(Literal(Datum::Varchar("day")), Column(1),
                 Literal(Datum::Varchar("Europe/Berlin")))),
       "date_trunc('day', \"time\", 'Europe/Berlin')"},
      {Node(ExprKind::kCall, "hour",
            Args(Node(ExprKind::kCall, "wall_clock",
                      Args(Column(1), Literal(Datum::Varchar("Europe/Berlin")))))),
       "hour(wall_clock(\"time\", 'Europe/Berlin'))"},
      {Node(ExprKind::kBinary, "*",
            Args(Node(ExprKind::kUnary, "-", Args(Column(2))), Literal(Datum::Bigint(2)))),
       "((-\"measure_value::double\") * 2)"},
      // An aggregate's argument: CASE searched and simple (and so if()), a pure function.
      {Node(ExprKind::kCase, "",
            Args(Node(ExprKind::kBinary, ">", Args(Column(2), Literal(Datum::Bigint(90)))),
                 Literal(Datum::Varchar("high")), Literal(Datum::Varchar("low")))),
       "(CASE WHEN (\"measure_value::double\" > 90) THEN 'high' ELSE 'low' END)"},
      {Node(ExprKind::kCase, "",
            Args(Column(0), Literal(Datum::Varchar("a")), Literal(Datum::Bigint(1)),
                 Literal(Datum::Varchar("b")), Literal(Datum::Null(DataType::kBigint)))),
       "(CASE \"host\" WHEN 'a' THEN 1 WHEN 'b' THEN NULL END)"},
      {Node(ExprKind::kCall, "greatest", Args(Column(2), Literal(Datum::Bigint(0)))),
       "greatest(\"measure_value::double\", 0)"},
      {Node(ExprKind::kCast, "CAST", Args(Column(2))), "CAST(\"measure_value::double\" AS bigint)"},
  };
  cases[std::size(cases) - 4].expr->has_else = true;
  cases[std::size(cases) - 3].expr->has_operand = true;
  cases[std::size(cases) - 1].expr->cast_type = DataType::kBigint;
  for (const Case& c : cases) {
    std::string text = "keep ";
    ASSERT_TRUE(AppendPortableSql(*c.expr, kSchema, &text)) << c.text;
    EXPECT_EQ(text, "keep " + c.text);
    // And it parses back.
    EXPECT_TRUE(Parse("SELECT * FROM d.t WHERE " + c.text).ok()) << c.text;
    EXPECT_TRUE(Parse("SELECT " + c.text + " FROM d.t GROUP BY 1").ok()) << c.text;
  }
}

// now() and ago() read the query's clock, given: the same time on every node.
TEST(SqlTextTest, WritesTheQuerysOwnTimeForItsClock) {
  const int64_t now = 1700000000123456789;
  ExprPtr recent = Node(ExprKind::kBinary, ">",
                        Args(Column(1), Node(ExprKind::kCall, "ago",
                                             Args(Literal(Datum::Interval(3'600'000'000'000))))));
  std::string text;
  ASSERT_TRUE(AppendPortableSql(*recent, kSchema, &text, nullptr, now));
  EXPECT_EQ(text, "(\"time\" > (from_nanoseconds(1700000000123456789) - 1h))");
  EXPECT_TRUE(Parse("SELECT * FROM d.t WHERE " + text).ok()) << text;
  text.clear();
  ASSERT_TRUE(AppendPortableSql(*Node(ExprKind::kCall, "now", {}), kSchema, &text, nullptr, now));
  EXPECT_EQ(text, "from_nanoseconds(1700000000123456789)");
  // Without it they are refused (RefusesWhatCouldReadOtherwiseElsewhere).
}

TEST(SqlTextTest, RefusesWhatCouldReadOtherwiseElsewhere) {
  std::vector<ExprPtr> refused;
  // A function call (now(), ago() read each node's clock).
  refused.push_back(
      Node(ExprKind::kBinary, ">", Args(Column(1), Node(ExprKind::kCall, "now", {}))));
  // A NaN has no literal.
  refused.push_back(
      Node(ExprKind::kBinary, "=", Args(Column(2), Literal(Datum::Double(std::nan(""))))));
  refused.push_back(Node(ExprKind::kCall, "ago", Args(Literal(Datum::Interval(1)))));
  refused.push_back(Node(ExprKind::kCall, "random", {}));
  // An aggregate, a CASE reading the clock, an unbound column, a cast to a type without a
  // plain name.
  ExprPtr aggregate = Node(ExprKind::kCall, "abs", Args(Column(2)));
  aggregate->bound.aggregate = 0;
  refused.push_back(std::move(aggregate));
  refused.push_back(
      Node(ExprKind::kCase, "",
           Args(Node(ExprKind::kBinary, ">", Args(Column(1), Node(ExprKind::kCall, "now", {}))),
                Literal(Datum::Bigint(1)))));
  ExprPtr cast = Node(ExprKind::kCast, "CAST", Args(Column(2)));
  cast->cast_type = DataType::kInterval;
  refused.push_back(std::move(cast));
  ExprPtr unbound = Column(0);
  unbound->bound.column = -1;
  refused.push_back(Node(ExprKind::kIsNull, "", Args(std::move(unbound))));
  // An IN over a subquery.
  ExprPtr in = Node(ExprKind::kIn, "", Args(Column(0), Literal(Datum::Varchar("a"))));
  in->subquery = std::make_shared<SelectStmt>();
  refused.push_back(std::move(in));
  for (const ExprPtr& e : refused) {
    std::string text = "as it was";
    EXPECT_FALSE(AppendPortableSql(*e, kSchema, &text)) << e->ToString();
    EXPECT_EQ(text, "as it was");
  }
}

}  // namespace
}  // namespace strata::query

namespace strata::query {
namespace {

// A long IN list of a statement for other nodes is named (`@list_1`) and sent beside it: the
// same array under one name however often it is written, NOT IN as <> ALL, a short list
// written out, and lists past ListParameters::kMaxBytes left out (false: the coordinator
// applies that condition itself).
TEST(SqlTextTest, NamesLongInListsAndSendsTheirValuesBeside) {
  std::vector<Datum> hosts;
  for (int i = 0; i < 1000; ++i) hosts.push_back(Datum::Varchar("h" + std::to_string(i)));
  ListParameters lists;
  const ExprPtr in = InArray(Column(0), hosts);
  std::string text;
  ASSERT_TRUE(AppendPortableSql(*in, kSchema, &text, nullptr, std::nullopt, &lists));
  EXPECT_EQ(text, "(\"host\" = ANY(@list_1))");
  const ExprPtr again = in->Clone();  // a clone shares the array: the same name
  again->negated = true;
  text.clear();
  ASSERT_TRUE(AppendPortableSql(*again, kSchema, &text, nullptr, std::nullopt, &lists));
  EXPECT_EQ(text, "(\"host\" <> ALL(@list_1))");
  ASSERT_EQ(lists.values().size(), 1u);
  EXPECT_EQ(lists.values().at("list_1").items().size(), 1000u);

  text.clear();
  ASSERT_TRUE(AppendPortableSql(*InArray(Column(2), {Datum::Double(1.5), Datum::Double(2)}),
                                kSchema, &text, nullptr, std::nullopt, &lists));
  EXPECT_EQ(text, "(\"measure_value::double\" IN ((1.5), (2e0)))");

  // Near 4 MiB of values (39,000 of 105 bytes as sent, beside list_1's 8 KB), then one more.
  std::vector<Datum> wide(39'000, Datum::Varchar(std::string(100, 'x')));
  text.clear();
  ASSERT_TRUE(
      AppendPortableSql(*InArray(Column(3), wide), kSchema, &text, nullptr, std::nullopt, &lists));
  EXPECT_EQ(text, "(\"we\"\"ird\" = ANY(@list_2))");
  wide.push_back(Datum::Varchar("y"));
  text = "kept";
  EXPECT_FALSE(
      AppendPortableSql(*InArray(Column(3), wide), kSchema, &text, nullptr, std::nullopt, &lists));
  EXPECT_EQ(text, "kept");
  EXPECT_EQ(lists.values().size(), 2u);
}

}  // namespace
}  // namespace strata::query
