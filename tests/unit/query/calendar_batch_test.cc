// The calendar functions' vector forms (eval_batch: the field functions, wall_clock, date_trunc
// with a zone) answer as their row forms do, over timestamps that reach the edges: before
// 1970, leap days, centuries, the range's ends, and the nights a zone changes its offset.
#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "query/base/vector.h"
#include "query/functions/functions.h"

namespace strata::query {
namespace {

constexpr int64_t kSecond = 1'000'000'000;

std::vector<int64_t> Instants() {
  std::vector<int64_t> out = {INT64_MIN + kSecond * 86400 * 2,
                              INT64_MAX - kSecond * 86400 * 2,
                              0,
                              -1,
                              1,
                              -kSecond * 86400,
                              kSecond * 86400 - 1};
  // 2024-02-28 .. 2024-03-02, 2000-02-28 .. 03-01, 1900-02-28 .. 03-01, 1969-12-31: hourly.
  for (int64_t start : {1709078400LL, 951696000LL, -2203977600LL, -86400LL}) {
    for (int64_t h = 0; h < 96; ++h) out.push_back((start + h * 3600 + 17) * kSecond + 123);
  }
  // Berlin's and Santiago's changes of 2024, every 15 minutes around them.
  for (int64_t at : {1711846800LL, 1729990800LL, 1725768000LL}) {
    for (int64_t q = -12; q <= 12; ++q) out.push_back((at + q * 900) * kSecond);
  }
  return out;
}

// f over `args` (vectors of the instants' rows) by eval_batch, and row by row by eval.
void ExpectBatchMatchesRows(const std::string& name, std::vector<Vector> args, DataType type) {
  const ScalarFunction* f = FunctionRegistry::Get().FindScalar(name);
  ASSERT_NE(f, nullptr) << name;
  ASSERT_TRUE(f->eval_batch) << name;
  Vector out(type);
  out.ResetNull(args[0].size());
  ASSERT_TRUE(f->eval_batch(args, &out)) << name;
  EvalContext context;
  for (size_t i = 0; i < args[0].size(); ++i) {
    std::vector<Datum> row;
    for (const Vector& a : args) row.push_back(a.Get(i));
    const Datum want = f->eval(row, context);
    ASSERT_EQ(out.Get(i).ToString(), want.ToString())
        << name << " of " << row[0].ToString() << " (" << row[0].i << ") with "
        << row.back().ToString();
  }
}

Vector Timestamps(const std::vector<int64_t>& instants) {
  Vector v(DataType::kTimestamp);
  v.ResetNull(instants.size());
  for (size_t i = 0; i < instants.size(); ++i) v.Set(i, Datum::Timestamp(instants[i]));
  return v;
}

Vector Texts(const std::string& text, size_t rows) {
  Vector v(DataType::kVarchar);
  v.ResetNull(rows);
  for (size_t i = 0; i < rows; ++i) v.Set(i, Datum::Varchar(text));
  return v;
}

TEST(CalendarBatchTest, FieldsMatchTheRowForm) {
  const std::vector<int64_t> instants = Instants();
  for (const std::string field : {"year", "quarter", "month", "day", "day_of_month", "day_of_week",
                                  "dow", "day_of_year", "doy", "hour", "minute", "second"}) {
    ExpectBatchMatchesRows(field, {Timestamps(instants)}, DataType::kBigint);
  }
}

TEST(CalendarBatchTest, ZonesMatchTheRowForm) {
  std::vector<int64_t> instants;  // the zones' functions need the wall clock in range
  for (int64_t t : Instants()) {
    if (t > INT64_MIN / 2 && t < INT64_MAX / 2) instants.push_back(t);
  }
  for (const std::string zone :
       {"Europe/Berlin", "America/Santiago", "Asia/Kolkata", "+05:45", "UTC", "Europe/Paris"}) {
    ExpectBatchMatchesRows("wall_clock", {Timestamps(instants), Texts(zone, instants.size())},
                           DataType::kTimestamp);
    for (const std::string unit : {"hour", "day", "week", "month", "minute", "year"}) {
      ExpectBatchMatchesRows(
          "date_trunc",
          {Texts(unit, instants.size()), Timestamps(instants), Texts(zone, instants.size())},
          DataType::kTimestamp);
    }
  }
}

}  // namespace
}  // namespace strata::query
