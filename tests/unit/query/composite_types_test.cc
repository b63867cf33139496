// Composite types: interned shapes (equal shapes, equal codes), their SQL
// names, the nesting bound; and their values' order, keys and text.
#include <string>

#include "gtest/gtest.h"
#include "query/base/datum.h"

namespace strata::query {
namespace {

TEST(CompositeTypesTest, EqualShapesGetEqualCodesAndNames) {
  const DataType a = *ArrayOf(DataType::kBigint);
  EXPECT_EQ(*ArrayOf(DataType::kBigint), a);
  EXPECT_NE(*ArrayOf(DataType::kDouble), a);
  EXPECT_TRUE(IsComposite(a));
  EXPECT_FALSE(IsComposite(DataType::kVarchar));
  EXPECT_EQ(KindOf(a), TypeKind::kArray);
  EXPECT_EQ(ElementType(a), DataType::kBigint);
  EXPECT_EQ(TypeName(a), "array(bigint)");

  const DataType r = *RowOf({{.name = "x", .type = DataType::kBigint},
                             {.name = "y", .type = a}});
  EXPECT_EQ(*RowOf({{.name = "x", .type = DataType::kBigint}, {.name = "y", .type = a}}), r);
  EXPECT_NE(*RowOf({{.name = "z", .type = DataType::kBigint}, {.name = "y", .type = a}}), r);
  EXPECT_EQ(TypeName(r), "row(x bigint, y array(bigint))");
  ASSERT_EQ(RowFields(r).size(), 2u);
  EXPECT_EQ(RowFields(r)[1].type, a);

  const DataType t = *TimeseriesOf(DataType::kDouble);
  EXPECT_EQ(KindOf(t), TypeKind::kTimeseries);
  EXPECT_EQ(TypeName(t), "timeseries(double)");
}

TEST(CompositeTypesTest, NestingStopsAtTheBound) {
  DataType type = DataType::kBigint;
  for (int depth = 1; depth <= kMaxTypeNesting; ++depth) {
    std::optional<DataType> next = ArrayOf(type);
    ASSERT_TRUE(next.has_value()) << depth;
    type = *next;
  }
  EXPECT_FALSE(ArrayOf(type).has_value());
  EXPECT_FALSE(RowOf({{.name = "deep", .type = type}}).has_value());
}

TEST(CompositeTypesTest, ValuesCompareKeyAndPrintElementByElement) {
  const DataType a = *ArrayOf(DataType::kBigint);
  const Datum one_two = Datum::Composite(a, {Datum::Bigint(1), Datum::Bigint(2)});
  const Datum one_three = Datum::Composite(a, {Datum::Bigint(1), Datum::Bigint(3)});
  const Datum one = Datum::Composite(a, {Datum::Bigint(1)});
  EXPECT_LT(Compare(one_two, one_three), 0);
  EXPECT_LT(Compare(one, one_two), 0);
  EXPECT_EQ(Compare(one_two, Datum::Composite(a, {Datum::Bigint(1), Datum::Bigint(2)})), 0);
  std::string k1, k2, k3;
  AppendKey(one_two, &k1);
  AppendKey(Datum::Composite(a, {Datum::Bigint(1), Datum::Bigint(2)}), &k2);
  AppendKey(one_three, &k3);
  EXPECT_EQ(k1, k2);
  EXPECT_NE(k1, k3);
  EXPECT_EQ(one_two.ToString(), "[1, 2]");

  const DataType t = *TimeseriesOf(DataType::kDouble);
  const Datum series = Datum::Composite(t, {Datum::Double(1.5)}, {0});
  EXPECT_EQ(series.ToString(), "[{time=1970-01-01 00:00:00.000000000, value=1.5}]");
  const Datum later = Datum::Composite(t, {Datum::Double(1.5)}, {1});
  EXPECT_LT(Compare(series, later), 0);  // times first
  EXPECT_GT(series.HeapBytes(), 0);
}

}  // namespace
}  // namespace strata::query
