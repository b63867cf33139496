#include "query/expr/block_bounds.h"

#include "gtest/gtest.h"

namespace strata::query {
namespace {

format::ColumnSummary DoubleColumn(double min, double max, uint32_t nulls = 0) {
  return {.name = "x", .type = ValueType::kDouble, .null_count = nulls, .has_stats = true,
          .min = min, .max = max};
}

format::ColumnSummary IntColumn(ValueType type, int64_t min, int64_t max) {
  return {.name = "x", .type = type, .has_stats = true, .int_min = min, .int_max = max};
}

ValueBound Bound(DataType type, std::string op, Datum value) {
  return {.column = 3, .type = type, .op = std::move(op), .value = std::move(value)};
}

TEST(BlockBoundsTest, RulesOutOnlyBlocksNoValueOfWhichCanPass) {
  struct Case {
    ValueBound bound;
    format::ColumnSummary column;
    bool ruled_out;
  };
  const auto d = [](std::string op, double v) { return Bound(DataType::kDouble, op, Datum::Double(v)); };
  const Case cases[] = {
      // DOUBLE column [10, 20]: each operator at and around its edge.
      {d(">", 20), DoubleColumn(10, 20), true},
      {d(">", 19.5), DoubleColumn(10, 20), false},
      {d(">=", 20), DoubleColumn(10, 20), false},
      {d(">=", 20.5), DoubleColumn(10, 20), true},
      {d("<", 10), DoubleColumn(10, 20), true},
      {d("<", 10.5), DoubleColumn(10, 20), false},
      {d("<=", 10), DoubleColumn(10, 20), false},
      {d("<=", 9.5), DoubleColumn(10, 20), true},
      {d("=", 15), DoubleColumn(10, 20), false},
      {d("=", 21), DoubleColumn(10, 20), true},
      {d("=", 9), DoubleColumn(10, 20), true},
      // An integer constant against a DOUBLE column compares as a double.
      {Bound(DataType::kDouble, ">", Datum::Bigint(20)), DoubleColumn(10, 20), true},
      // BIGINT and TIMESTAMP use the exact integer range.
      {Bound(DataType::kBigint, ">", Datum::Bigint(9'007'199'254'740'992)),
       IntColumn(ValueType::kBigint, 0, 9'007'199'254'740'993), false},
      {Bound(DataType::kBigint, ">=", Datum::Bigint(6)), IntColumn(ValueType::kBigint, 1, 5), true},
      {Bound(DataType::kTimestamp, "<", Datum::Timestamp(100)),
       IntColumn(ValueType::kTimestamp, 100, 200), true},
      {Bound(DataType::kTimestamp, "<=", Datum::Timestamp(100)),
       IntColumn(ValueType::kTimestamp, 100, 200), false},
      // Every value NULL: nothing passes.
      {d(">", 0), DoubleColumn(10, 20, /*nulls=*/8), true},
      // A column of another type under the same name: undecided, kept.
      {d(">", 1000), IntColumn(ValueType::kBigint, 1, 5), false},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(RulesOut(c.bound, &c.column, 8), c.ruled_out)
        << c.bound.op << " " << c.bound.value.ToString() << " over [" << c.column.min << ", "
        << c.column.max << "] / [" << c.column.int_min << ", " << c.column.int_max << "]";
  }
}

TEST(BlockBoundsTest, ABlockWithoutTheColumnHoldsOnlyNulls) {
  EXPECT_TRUE(RulesOut(Bound(DataType::kDouble, "<", Datum::Double(1e300)), nullptr, 8));
}

TEST(BlockBoundsTest, NoStatisticsKeepsTheBlock) {
  format::ColumnSummary column = DoubleColumn(0, 0);
  column.has_stats = false;
  EXPECT_FALSE(RulesOut(Bound(DataType::kDouble, ">", Datum::Double(5)), &column, 8));
}

TEST(BlockBoundsTest, PointsAreJudgedOneByOne) {
  format::ColumnValues reals{.type = ValueType::kDouble, .present = {true, true, true},
                             .reals = {1, 5, 9}};
  format::ColumnValues ints{.type = ValueType::kBigint, .present = {true, true},
                            .numbers = {-3, 7}};
  const struct {
    ValueBound bound;
    const format::ColumnValues* values;
    std::vector<bool> pass;
  } cases[] = {
      {Bound(DataType::kDouble, ">", Datum::Double(5)), &reals, {false, false, true}},
      {Bound(DataType::kDouble, ">=", Datum::Double(5)), &reals, {false, true, true}},
      {Bound(DataType::kDouble, "=", Datum::Double(5)), &reals, {false, true, false}},
      {Bound(DataType::kDouble, "<", Datum::Bigint(5)), &reals, {true, false, false}},
      {Bound(DataType::kBigint, "<=", Datum::Bigint(-3)), &ints, {true, false}},
      // A column of another type than the bound's: not judged.
      {Bound(DataType::kDouble, ">", Datum::Double(100)), &ints, {true, true}},
  };
  for (const auto& c : cases) {
    for (size_t k = 0; k < c.pass.size(); ++k) {
      EXPECT_EQ(PointMayPass(c.bound, *c.values, k), c.pass[k]) << c.bound.op << " point " << k;
    }
  }
}

}  // namespace
}  // namespace strata::query
