// CompactColumn gives back exactly the Datums appended: every scalar type,
// NULLs with their types, text past the small-string size, nested values,
// and values whose type differs from their neighbours'.
#include "query/base/compact_column.h"

#include <cmath>

#include <gtest/gtest.h>

namespace strata::query {
namespace {

TEST(CompactColumnTest, GivesBackWhatWasAppended) {
  const DataType array = *ArrayOf(DataType::kBigint);
  const std::vector<Datum> values = {
      Datum::Bigint(-7),
      Datum::Double(-2.5),
      Datum::Double(std::nan("")),
      Datum::Varchar("x"),
      Datum::Varchar(std::string(100, 'y')),
      Datum::Bool(true),
      Datum::Timestamp(1'700'000'000'000'000'000),
      Datum::Interval(-5),
      Datum::Date(19797),
      Datum::Time(3'600'000'000'000),
      Datum::Months(14),
      Datum::Null(DataType::kDouble),
      Datum::Null(),
      Datum::Null(array),
      Datum::Composite(array, {Datum::Bigint(1), Datum::Null(DataType::kBigint)}),
  };
  CompactColumn column;
  int64_t bytes = 0;
  for (const Datum& v : values) {
    column.Append(v);
    bytes += CompactColumn::BytesOf(v);
  }
  ASSERT_EQ(column.size(), values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    const Datum got = column.Get(i);
    SCOPED_TRACE(values[i].ToString());
    EXPECT_EQ(got.type, values[i].type);
    EXPECT_EQ(got.null, values[i].null);
    EXPECT_EQ(got.ToString(), values[i].ToString());
    EXPECT_EQ(Compare(got, values[i]), 0);
  }
  // 12 bytes a value, the long text's bytes and the array's values besides.
  EXPECT_GT(bytes, static_cast<int64_t>(12 * values.size() + 100));
  EXPECT_LT(bytes, static_cast<int64_t>(sizeof(Datum) * values.size()));
}

}  // namespace
}  // namespace strata::query
