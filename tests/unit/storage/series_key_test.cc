#include "storage/rows/series_key.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "storage/read/table_state.h"

namespace strata {
namespace {

NormalizedRecord Record(std::string measure_name, DimensionList dimensions) {
  NormalizedRecord r;
  r.measure_name = std::move(measure_name);
  r.dimensions = std::move(dimensions);
  return r;
}

// A key is found by its parts exactly when they join to it: the same bytes
// split elsewhere (a name that ends where another's dimension begins) are
// another series.
TEST(SeriesKeyTest, PartsFindTheKeyTheyJoinAndNoOther) {
  const std::vector<NormalizedRecord> records = {
      Record("cpu", {{"host", "a"}}),
      Record("cpu", {{"host", "a"}, {"region", "eu"}}),
      Record("cpu", {{"host", "ab"}}),
      Record("cpuhost", {}),
      Record("cp", {{"uhost", "a"}}),
      Record("mem", {{"host", "a"}}),
      Record("cpu", {}),
  };
  SeriesKeyMap<int> map;
  for (size_t i = 0; i < records.size(); ++i) {
    ASSERT_TRUE(map.emplace(SeriesKey(records[i]), static_cast<int>(i)).second) << i;
  }
  for (size_t i = 0; i < records.size(); ++i) {
    const SeriesKeyView parts = SeriesKeyView::Of(records[i]);
    EXPECT_EQ(SeriesKeyHash()(parts), SeriesKeyHash()(SeriesKey(records[i]))) << i;
    auto by_parts = map.find(parts);
    ASSERT_NE(by_parts, map.end()) << i;
    EXPECT_EQ(by_parts->second, static_cast<int>(i));
    EXPECT_EQ(map.find(SeriesKey(records[i]))->second, static_cast<int>(i));
    for (size_t j = 0; j < records.size(); ++j) {
      EXPECT_EQ(parts.Joins(SeriesKey(records[j])), i == j) << i << " " << j;
    }
  }
  EXPECT_EQ(map.find(SeriesKeyView::Of(Record("disk", {{"host", "a"}}))), map.end());
}

}  // namespace
}  // namespace strata
