// TakeRows, SelectRows, SliceRows and RowsWithinBytes (query/base/vector.h): the rows asked for, in
// the order asked, with every kind of value and NULL kept, and a column the query does not read
// left empty.
#include <string_view>
#include <vector>

#include "gtest/gtest.h"
#include "query/base/vector.h"

namespace strata::query {
namespace {

Batch Sample() {
  Batch b;
  b.rows = 4;
  Vector ints(DataType::kBigint);
  ints.nulls = {0, 1, 0, 0};
  ints.ints = {10, 0, 30, 40};
  Vector doubles(DataType::kDouble);
  doubles.nulls = {0, 0, 0, 1};
  doubles.doubles = {0.5, 1.5, 2.5, 0};
  Vector strings(DataType::kVarchar);
  strings.nulls = {0, 0, 1, 0};
  strings.strings = {"a", "b", "", "d"};
  b.columns = {ints, doubles, strings, Vector(DataType::kBigint)};  // the last one not read
  return b;
}

std::vector<std::string> Render(const Batch& b) {
  std::vector<std::string> out;
  for (size_t i = 0; i < b.rows; ++i) {
    std::string row;
    for (size_t c = 0; c < 3; ++c) {
      const Vector& v = b.columns[c];
      row += v.null(i) ? "NULL" : v.Get(i).ToString();
      row += ";";
    }
    out.push_back(row);
  }
  return out;
}

TEST(TakeRowsTest, TakesTheRowsAskedForInTheirOrder) {
  const Batch b = Sample();
  const Batch taken = TakeRows(b, {3, 0, 1});
  ASSERT_EQ(taken.rows, 3u);
  EXPECT_EQ(Render(taken), (std::vector<std::string>{"40;NULL;d;", "10;0.5;a;", "NULL;1.5;b;"}));
  EXPECT_EQ(taken.columns[3].size(), 0u);
  EXPECT_EQ(TakeRows(b, {}).rows, 0u);
  const Batch selected = SelectRows(b, {0, 1, 1, 0});
  EXPECT_EQ(Render(selected), (std::vector<std::string>{"NULL;1.5;b;", "30;2.5;NULL;"}));
  EXPECT_EQ(selected.columns[3].size(), 0u);
}

TEST(TakeRowsTest, SliceRowsTakesARangeInOrder) {
  const Batch b = Sample();
  EXPECT_EQ(Render(SliceRows(b, 1, 3)), (std::vector<std::string>{"NULL;1.5;b;", "30;2.5;NULL;"}));
  EXPECT_EQ(SliceRows(b, 2, 2).rows, 0u);
  EXPECT_EQ(SliceRows(b, 0, 4).rows, 4u);
}

// A row holds 9 bytes a value read and its text: 28, 28, 27 (a NULL text) and 28 here.
TEST(TakeRowsTest, RowsWithinBytesCountsTheRowsThatFit) {
  const Batch b = Sample();
  EXPECT_EQ(RowsWithinBytes(b, 0, 4, 1000), 4u);
  EXPECT_EQ(RowsWithinBytes(b, 0, 4, 56), 2u);
  EXPECT_EQ(RowsWithinBytes(b, 0, 4, 55), 1u);
  EXPECT_EQ(RowsWithinBytes(b, 0, 4, 27), 0u);  // not even the first
  EXPECT_EQ(RowsWithinBytes(b, 1, 3, 55), 2u);
  EXPECT_EQ(RowsWithinBytes(b, 1, 2, 1000), 2u);
  EXPECT_EQ(RowsWithinBytes(b, 0, 4, 0), 0u);
}

}  // namespace
}  // namespace strata::query
