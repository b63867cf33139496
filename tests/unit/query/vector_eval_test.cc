// Expressions over a batch (query/expr/vector_eval.h): a call of constants only is made once and
// its value shared by every row; a volatile one is made for each row.
#include "query/expr/vector_eval.h"

#include <memory>
#include <set>
#include <string>

#include "gtest/gtest.h"
#include "query/functions/functions.h"

namespace strata::query {
namespace {

ExprPtr LiteralOf(Datum value) {
  auto e = std::make_unique<Expr>();
  e->kind = ExprKind::kLiteral;
  e->bound.type = value.type;
  e->literal = std::move(value);
  return e;
}

ExprPtr CallOf(const std::string& name, DataType type, std::vector<ExprPtr> args) {
  auto e = std::make_unique<Expr>();
  e->kind = ExprKind::kCall;
  e->name = name;
  e->bound.function = FunctionRegistry::Get().FindScalar(name);
  e->bound.type = type;
  e->args = std::move(args);
  return e;
}

Batch BatchOfRows(size_t rows) {
  Batch batch;
  batch.rows = rows;
  return batch;
}

// lpad('x', 1 MiB, 'y') over 1,000 rows: one text of 1 MiB, viewed by every row and counted once
// as in flight. Made for each row, it was 1,000 copies and 1,000 MiB counted, past the limit.
TEST(VectorEvalTest, ACallOfConstantsIsMadeOnceForTheBatch) {
  std::vector<ExprPtr> args;
  args.push_back(LiteralOf(Datum::Varchar("x")));
  args.push_back(LiteralOf(Datum::Bigint(1 << 20)));
  args.push_back(LiteralOf(Datum::Varchar("y")));
  const ExprPtr lpad = CallOf("lpad", DataType::kVarchar, std::move(args));
  ASSERT_NE(lpad->bound.function, nullptr);
  EvalContext context;
  context.max_value_bytes = 16 << 20;
  ValuesInFlight in_flight(context);
  const Vector v = EvalBatch(*lpad, BatchOfRows(1000), context);
  EXPECT_TRUE(context.error.empty()) << context.error;
  EXPECT_EQ(context.value_bytes_in_flight, 1 << 20);
  ASSERT_EQ(v.size(), 1000u);
  for (size_t i = 0; i < v.size(); ++i) {
    ASSERT_FALSE(v.nulls[i]);
    ASSERT_EQ(v.strings[i].size(), 1u << 20);
    ASSERT_EQ(v.strings[i].data(), v.strings[0].data()) << i;
  }
  EXPECT_EQ(v.strings[0].substr(0, 2), "yy");
  EXPECT_EQ(v.strings[0].back(), 'x');
}

// A call of constants that fails fails the query, and its vector is still the batch's size:
// the expression around it may read every row before the error is seen.
TEST(VectorEvalTest, AFailingCallOfConstantsKeepsTheBatchsSize) {
  std::vector<ExprPtr> args;
  args.push_back(LiteralOf(Datum::Bigint(1)));
  args.push_back(LiteralOf(Datum::Bigint(100000)));
  const ExprPtr sequence = CallOf("sequence", *ArrayOf(DataType::kBigint), std::move(args));
  ASSERT_NE(sequence->bound.function, nullptr);
  EvalContext context;
  const Vector v = EvalBatch(*sequence, BatchOfRows(100), context);
  EXPECT_NE(context.error.find("more than 10,000"), std::string::npos) << context.error;
  ASSERT_EQ(v.size(), 100u);
  for (size_t i = 0; i < v.size(); ++i) EXPECT_TRUE(v.nulls[i]) << i;
}

// A literal over a batch is its value on every row, of each type (a JSON parameter was
// broadcast as an integer: every row an empty text, psycopg's Json through a batch sink).
TEST(VectorEvalTest, ALiteralIsItsValueOnEveryRow) {
  for (const Datum& value :
       {Datum::Varchar("text"), Datum::Json(R"({"k": [1, 2]})"), Datum::Double(1.5),
        Datum::Bigint(7), Datum::Bool(true), Datum::Timestamp(42), Datum::Null(DataType::kJson)}) {
    SCOPED_TRACE(value.ToString());
    EvalContext context;
    const Vector v = EvalBatch(*LiteralOf(value), BatchOfRows(3), context);
    ASSERT_EQ(v.size(), 3u);
    EXPECT_EQ(v.type, value.type);
    for (size_t i = 0; i < v.size(); ++i) EXPECT_EQ(Compare(v.Get(i), value), 0) << i;
  }
}

TEST(VectorEvalTest, AVolatileCallIsMadeForEachRow) {
  const ExprPtr random = CallOf("random", DataType::kDouble, {});
  ASSERT_NE(random->bound.function, nullptr);
  EvalContext context;
  const Vector v = EvalBatch(*random, BatchOfRows(100), context);
  ASSERT_EQ(v.size(), 100u);
  const std::set<double> values(v.doubles.begin(), v.doubles.end());
  EXPECT_GT(values.size(), 90u);
}

}  // namespace
}  // namespace strata::query
