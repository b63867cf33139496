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

ValueBound Bound(DataType type, BoundOp op, Datum value) {
  return {.column = 3, .type = type, .op = op, .value = std::move(value)};
}

constexpr BoundOp kLt = BoundOp::kLess, kLe = BoundOp::kLessOrEqual, kGt = BoundOp::kGreater,
                  kGe = BoundOp::kGreaterOrEqual, kEq = BoundOp::kEqual;

TEST(BlockBoundsTest, RulesOutOnlyBlocksNoValueOfWhichCanPass) {
  struct Case {
    ValueBound bound;
    format::ColumnSummary column;
    bool ruled_out;
  };
  const auto d = [](BoundOp op, double v) {
    return Bound(DataType::kDouble, op, Datum::Double(v));
  };
  const Case cases[] = {
      // DOUBLE column [10, 20]: each operator at and around its edge.
      {d(kGt, 20), DoubleColumn(10, 20), true},
      {d(kGt, 19.5), DoubleColumn(10, 20), false},
      {d(kGe, 20), DoubleColumn(10, 20), false},
      {d(kGe, 20.5), DoubleColumn(10, 20), true},
      {d(kLt, 10), DoubleColumn(10, 20), true},
      {d(kLt, 10.5), DoubleColumn(10, 20), false},
      {d(kLe, 10), DoubleColumn(10, 20), false},
      {d(kLe, 9.5), DoubleColumn(10, 20), true},
      {d(kEq, 15), DoubleColumn(10, 20), false},
      {d(kEq, 21), DoubleColumn(10, 20), true},
      {d(kEq, 9), DoubleColumn(10, 20), true},
      // An integer constant against a DOUBLE column compares as a double.
      {Bound(DataType::kDouble, kGt, Datum::Bigint(20)), DoubleColumn(10, 20), true},
      // BIGINT and TIMESTAMP use the exact integer range.
      {Bound(DataType::kBigint, kGt, Datum::Bigint(9'007'199'254'740'992)),
       IntColumn(ValueType::kBigint, 0, 9'007'199'254'740'993), false},
      {Bound(DataType::kBigint, kGe, Datum::Bigint(6)), IntColumn(ValueType::kBigint, 1, 5), true},
      {Bound(DataType::kTimestamp, kLt, Datum::Timestamp(100)),
       IntColumn(ValueType::kTimestamp, 100, 200), true},
      {Bound(DataType::kTimestamp, kLe, Datum::Timestamp(100)),
       IntColumn(ValueType::kTimestamp, 100, 200), false},
      // Every value NULL: nothing passes.
      {d(kGt, 0), DoubleColumn(10, 20, /*nulls=*/8), true},
      // A column of another type under the same name: undecided, kept.
      {d(kGt, 1000), IntColumn(ValueType::kBigint, 1, 5), false},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(RulesOut(c.bound, &c.column, 8), c.ruled_out)
        << BoundOpName(c.bound.op) << " " << c.bound.value.ToString() << " over [" << c.column.min
        << ", " << c.column.max << "] / [" << c.column.int_min << ", " << c.column.int_max << "]";
  }
}

TEST(BlockBoundsTest, ABlockWithoutTheColumnHoldsOnlyNulls) {
  EXPECT_TRUE(RulesOut(Bound(DataType::kDouble, kLt, Datum::Double(1e300)), nullptr, 8));
}

TEST(BlockBoundsTest, NoStatisticsKeepsTheBlock) {
  format::ColumnSummary column = DoubleColumn(0, 0);
  column.has_stats = false;
  EXPECT_FALSE(RulesOut(Bound(DataType::kDouble, kGt, Datum::Double(5)), &column, 8));
}

TEST(BlockBoundsTest, PointsAreJudgedOneByOne) {
  // Points 0-3: 1, absent, 5, 9 (the values are the present points', in order).
  format::ColumnValues reals{
      .type = ValueType::kDouble, .present = {true, false, true, true}, .reals = {1, 5, 9}};
  format::ColumnValues ints{
      .type = ValueType::kBigint, .present = {true, true, false}, .numbers = {-3, 7}};
  const struct {
    ValueBound bound;
    const format::ColumnValues* values;
    std::vector<uint8_t> keep;
  } cases[] = {
      {Bound(DataType::kDouble, kGt, Datum::Double(5)), &reals, {0, 0, 0, 1}},
      {Bound(DataType::kDouble, kGe, Datum::Double(5)), &reals, {0, 0, 1, 1}},
      {Bound(DataType::kDouble, kEq, Datum::Double(5)), &reals, {0, 0, 1, 0}},
      {Bound(DataType::kDouble, kLe, Datum::Double(5)), &reals, {1, 0, 1, 0}},
      // An integer constant against a DOUBLE column compares as a double.
      {Bound(DataType::kDouble, kLt, Datum::Bigint(5)), &reals, {1, 0, 0, 0}},
      {Bound(DataType::kBigint, kLe, Datum::Bigint(-3)), &ints, {1, 0, 0}},
      {Bound(DataType::kBigint, kGt, Datum::Bigint(-3)), &ints, {0, 1, 0}},
      // A column of another type than the bound's: its values are not judged, an absent
      // point is still NULL.
      {Bound(DataType::kDouble, kGt, Datum::Double(100)), &ints, {1, 1, 0}},
      {Bound(DataType::kBigint, kGt, Datum::Bigint(100)), &reals, {1, 0, 1, 1}},
  };
  for (const auto& c : cases) {
    std::vector<uint8_t> keep(c.keep.size(), 1);
    ClearPointsThatFail(c.bound, *c.values, &keep);
    EXPECT_EQ(keep, c.keep) << BoundOpName(c.bound.op) << " " << c.bound.value.ToString();
  }
  // A point another bound already cleared stays cleared.
  std::vector<uint8_t> keep = {1, 1, 0, 1};
  ClearPointsThatFail(Bound(DataType::kDouble, kGt, Datum::Double(0)), reals, &keep);
  EXPECT_EQ(keep, (std::vector<uint8_t>{1, 0, 0, 1}));
}

}  // namespace
}  // namespace strata::query
