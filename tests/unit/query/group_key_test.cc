// Group keys (AppendKey in query/base/datum.h and query/base/vector.h): a Vector's
// cell encodes exactly as its Datum does, since the grouping operator looks
// groups up by the cells of a batch and by the Datums of block headers and
// both must find the same group; values equal by Compare share a key and
// different ones do not.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "query/base/datum.h"
#include "query/base/vector.h"

namespace strata::query {
namespace {

std::string KeyOfDatum(const Datum& d) {
  std::string key;
  AppendKey(d, &key);
  return key;
}

std::string KeyOfCell(const Vector& v, size_t i) {
  std::string key;
  AppendKey(v, i, &key);
  return key;
}

// A one-row vector holding `d`.
Vector OneCell(const Datum& d) {
  Vector v(d.type);
  v.ResetNull(1);
  v.Set(0, d);
  return v;
}

TEST(GroupKeyTest, ACellEncodesAsItsDatum) {
  const std::vector<Datum> values = {
      Datum::Null(DataType::kBigint),
      Datum::Null(DataType::kVarchar),
      Datum::Bigint(0),
      Datum::Bigint(-7),
      Datum::Bigint((int64_t{1} << 53) + 1),  // not exactly a double
      Datum::Bigint(std::numeric_limits<int64_t>::min()),
      Datum::Double(0.0),
      Datum::Double(-0.0),
      Datum::Double(2.5),
      Datum::Double(std::numeric_limits<double>::quiet_NaN()),
      Datum::Double(std::numeric_limits<double>::infinity()),
      Datum::Varchar(""),
      Datum::Varchar("host_1"),
      Datum::Varchar(std::string("a\0b", 3)),
      Datum::Varchar(std::string(300, 'x')),
      Datum::Bool(true),
      Datum::Timestamp(1'700'000'000'000'000'000),
      Datum::Interval(60'000'000'000),
      Datum::Date(19'000),
      Datum::Composite(*ArrayOf(DataType::kBigint), {Datum::Bigint(1), Datum::Bigint(2)}),
  };
  for (const Datum& d : values) {
    SCOPED_TRACE(d.null ? "NULL" : d.ToString());
    EXPECT_EQ(KeyOfCell(OneCell(d), 0), KeyOfDatum(d));
  }
}

TEST(GroupKeyTest, EqualValuesShareAKeyAndOthersDoNot) {
  // Compare's equalities: -0.0 and 0.0, BIGINT 3 and DOUBLE 3.0.
  EXPECT_EQ(KeyOfDatum(Datum::Double(-0.0)), KeyOfDatum(Datum::Double(0.0)));
  EXPECT_EQ(KeyOfDatum(Datum::Bigint(3)), KeyOfDatum(Datum::Double(3.0)));
  EXPECT_NE(KeyOfDatum(Datum::Bigint((int64_t{1} << 53) + 1)),
            KeyOfDatum(Datum::Double(std::ldexp(1.0, 53))));
  EXPECT_NE(KeyOfDatum(Datum::Null(DataType::kVarchar)), KeyOfDatum(Datum::Varchar("")));
  // Two text keys never run into each other: ("ab", "c") against ("a", "bc").
  Vector first(DataType::kVarchar), second(DataType::kVarchar);
  first.ResetNull(2);
  second.ResetNull(2);
  first.Set(0, Datum::Varchar("ab"));
  second.Set(0, Datum::Varchar("c"));
  first.Set(1, Datum::Varchar("a"));
  second.Set(1, Datum::Varchar("bc"));
  EXPECT_NE(KeyOfCell(first, 0) + KeyOfCell(second, 0), KeyOfCell(first, 1) + KeyOfCell(second, 1));
}

}  // namespace
}  // namespace strata::query
