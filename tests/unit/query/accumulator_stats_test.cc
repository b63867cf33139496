// Every aggregate that declares a `stats_use` gives the same answer from a
// block's statistics (Accumulator::AddStats) as from the block's values
// (AddRun): the contract aggregates from block headers rely on.
#include <optional>
#include <vector>

#include "gtest/gtest.h"
#include "query/base/vector.h"
#include "query/functions/functions.h"

namespace strata::query {
namespace {

// One block's values of a column; nullopt is NULL.
struct Case {
  DataType type;
  std::vector<std::optional<double>> values;
};

Vector ToVector(const Case& c) {
  Vector v(c.type);
  v.ResetNull(c.values.size());
  for (size_t i = 0; i < c.values.size(); ++i) {
    if (!c.values[i]) continue;
    v.Set(i, c.type == DataType::kDouble ? Datum::Double(*c.values[i])
                                         : Datum::Bigint(static_cast<int64_t>(*c.values[i])));
  }
  return v;
}

// What a block header holds for these values: the non-NULL count, their sum
// in order from 0, their min and max.
ColumnStats StatsOf(const Vector& v) {
  ColumnStats s;
  for (size_t i = 0; i < v.size(); ++i) {
    if (v.null(i)) continue;
    const Datum d = v.Get(i);
    if (s.count++ == 0) s.min = s.max = d;
    if (Compare(d, s.min) < 0) s.min = d;
    if (Compare(d, s.max) > 0) s.max = d;
    s.sum += v.AsDouble(i);
  }
  s.has_sum = true;
  return s;
}

TEST(AccumulatorStatsTest, StatisticsGiveTheAnswerOfTheValues) {
  const std::vector<Case> cases = {
      {DataType::kDouble, {1.5, 2.25, std::nullopt, -0.5}},
      {DataType::kDouble, {std::nullopt, std::nullopt}},
      {DataType::kDouble, {7}},
      {DataType::kBigint, {10, std::nullopt, -3, 42}},
      {DataType::kBigint, {std::nullopt}},
  };
  int checked = 0;
  for (const AggregateFunction& f : FunctionRegistry::Get().aggregates()) {
    if (f.stats_use == StatsUse::kNone) continue;
    for (const Case& c : cases) {
      for (bool star : {false, true}) {
        if (star && f.name != "count") continue;
        const std::vector<DataType> types =
            star ? std::vector<DataType>{} : std::vector<DataType>{c.type};
        if (!f.bind(types).ok()) continue;
        const Vector values = ToVector(c);
        auto by_values = f.make(types);
        auto by_stats = f.make(types);
        std::vector<const Vector*> args;
        if (!star) args.push_back(&values);
        by_values->AddRun(args, 0, values.size());
        ColumnStats stats = StatsOf(values);
        if (star) stats = ColumnStats{.count = static_cast<int64_t>(values.size())};
        by_stats->AddStats(stats);
        const Datum expected = *by_values->Finish(), got = *by_stats->Finish();
        EXPECT_EQ(got.null, expected.null) << f.name << " case " << checked;
        EXPECT_EQ(Compare(got, expected), 0)
            << f.name << (star ? "(*)" : "(x)") << ": " << got.ToString() << " vs "
            << expected.ToString();
        ++checked;
      }
    }
  }
  EXPECT_GE(checked, 5 * 5);  // count, sum, avg, min, max over every case, and count(*)
}

}  // namespace
}  // namespace strata::query
