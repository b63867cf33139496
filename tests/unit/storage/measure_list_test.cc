#include "storage/rows/measure_list.h"

#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "storage/rows/head_rows.h"
#include "storage/rows/row_codec.h"

namespace strata {
namespace {

const std::vector<Measure> kEveryType = {
    {"d", Value::Double(-0.25)},
    {"b", Value::Bigint(std::numeric_limits<int64_t>::min())},
    {std::string(200, 'n'), Value::Varchar(std::string(300, 'v'))},
    {"t", Value::Boolean(true)},
    {"f", Value::Boolean(false)},
    {"ts", Value::Timestamp(1'700'000'000'000'000'000)}};

TEST(MeasureListTest, GivesBackEveryMeasureItWasMadeOf) {
  const MeasureList list = MeasureList::Of(kEveryType);
  ASSERT_EQ(list.size(), kEveryType.size());
  for (size_t i = 0; i < kEveryType.size(); ++i) {
    EXPECT_EQ(list.name(i), kEveryType[i].name);
    EXPECT_EQ(list.type(i), kEveryType[i].value.type);
  }
  EXPECT_EQ(list.ToVector(), kEveryType);
  EXPECT_EQ(MeasureList().size(), 0u);
  EXPECT_TRUE(MeasureList().ToVector().empty());
}

// The writer stores a record's measures as they are: its shape's signature
// and its values behind the version must be the row EncodeRow writes.
TEST(MeasureListTest, ItsShapeAndValuesAreTheEncodedRowsParts) {
  const MeasureList list = MeasureList::Of(kEveryType);
  const StoredRow row{.version = 300, .measures = kEveryType};
  std::string signature, compact, whole;
  EncodeRowSignature(kEveryType, &signature);
  EncodeCompactRow(row, &compact);
  EncodeRow(row, &whole);
  EXPECT_EQ(list.shape()->signature(), signature);
  std::string from_list;
  AppendCompactRow(row.version, list.values(), &from_list);
  EXPECT_EQ(from_list, compact);
  std::string rebuilt;
  list.shape()->AppendEncodedRow(from_list, &rebuilt);
  EXPECT_EQ(rebuilt, whole);
}

TEST(MeasureListTest, EqualityComparesNamesTypesAndValues) {
  const MeasureList a = MeasureList::Of({{"x", Value::Double(1)}, {"y", Value::Bigint(2)}});
  EXPECT_EQ(a, MeasureList::Of({{"x", Value::Double(1)}, {"y", Value::Bigint(2)}}));
  EXPECT_TRUE(a.SameShape(MeasureList::Of({{"x", Value::Double(5)}, {"y", Value::Bigint(6)}})));
  EXPECT_NE(a, MeasureList::Of({{"x", Value::Double(5)}, {"y", Value::Bigint(6)}}));
  // Another name, another type, another order, one fewer: another shape.
  for (const MeasureList& other :
       {MeasureList::Of({{"x", Value::Double(1)}, {"z", Value::Bigint(2)}}),
        MeasureList::Of({{"x", Value::Double(1)}, {"y", Value::Timestamp(2)}}),
        MeasureList::Of({{"y", Value::Bigint(2)}, {"x", Value::Double(1)}}),
        MeasureList::Of({{"x", Value::Double(1)}})}) {
    EXPECT_FALSE(a.SameShape(other));
    EXPECT_NE(a, other);
  }
}

TEST(MeasureListTest, MakeRowShapeNamesEachMeasureWithItsType) {
  const std::vector<std::string_view> names = {"usage_user", "state"};
  const std::vector<ValueType> types = {ValueType::kDouble, ValueType::kVarchar};
  const std::shared_ptr<const RowShape> shape = MakeRowShape(names, types);
  ASSERT_NE(shape, nullptr);
  ASSERT_EQ(shape->size(), 2u);
  EXPECT_EQ(shape->name(0), "usage_user");
  EXPECT_EQ(shape->type(1), ValueType::kVarchar);
  EXPECT_EQ(MakeRowShape({}, {}), nullptr);  // a row has at least one measure
}

}  // namespace
}  // namespace strata
