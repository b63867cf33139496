// DimensionList keeps a record's dimensions in the series key's own layout:
// what is added comes back in order, name for name and value for value, and
// SeriesKey is the measure name in front of it.
#include "storage/rows/dimension_list.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "storage/read/table_state.h"

namespace strata {
namespace {

using Pairs = std::vector<std::pair<std::string, std::string>>;

TEST(DimensionListTest, GivesBackWhatWasAddedInOrder) {
  std::vector<Pairs> cases = {
      {},
      {{"host", "h1"}},
      {{"a", "x"}, {"b", std::string(2048, 'v')}, {"service_environment", "production"}},
      // Names and values of one byte, and a name that is a prefix of the next.
      {{"r", "1"}, {"rack", "42"}, {"region", "eu-central-1"}},
  };
  // Names and values of every length to 40, each byte its own, side by side
  // (Assign copies short strings in overlapping words).
  for (size_t length = 1; length <= 40; ++length) {
    std::string name, value;
    for (size_t i = 0; i < length; ++i) {
      name.push_back(static_cast<char>('A' + i % 26));
      value.push_back(static_cast<char>('a' + (i * 7) % 26));
    }
    cases.push_back({{name, value}, {"z" + name, value + "!"}});
  }
  for (const Pairs& dimensions : cases) {
    DimensionList list;
    size_t bytes = 0;
    for (const auto& [name, value] : dimensions) bytes += name.size() + value.size();
    for (const auto& [name, value] : dimensions) list.emplace_back(name, value);
    // Written in place at once (the normalizer's way): the same list.
    DimensionList assigned{{"stale", "entry"}};
    assigned.Assign(dimensions.size(), bytes, [&](size_t k) {
      return DimensionList::Dimension(dimensions[k].first, dimensions[k].second);
    });
    EXPECT_EQ(assigned, list);
    EXPECT_EQ(list.size(), dimensions.size());
    EXPECT_EQ(list.empty(), dimensions.empty());
    EXPECT_EQ(list.ToVector(), dimensions);
    EXPECT_EQ(list.bytes().size(), bytes + 2 * dimensions.size());
    size_t i = 0;
    for (const auto& [name, value] : list) {
      ASSERT_LT(i, dimensions.size());
      EXPECT_EQ(name, dimensions[i].first);
      EXPECT_EQ(value, dimensions[i].second);
      EXPECT_EQ(list[i].first, dimensions[i].first);
      ++i;
    }
    EXPECT_EQ(i, dimensions.size());
  }
}

TEST(DimensionListTest, FindsAValueByItsNameOnly) {
  const DimensionList list{{"host", "h1"}, {"hostname", "web"}, {"region", "host"}};
  EXPECT_EQ(list.Find("host"), "h1");
  EXPECT_EQ(list.Find("hostname"), "web");
  EXPECT_EQ(list.Find("region"), "host");
  EXPECT_FALSE(list.Find("h1").has_value());  // a value is not a name
  EXPECT_FALSE(list.Find("hos").has_value());
  EXPECT_FALSE(DimensionList().Find("host").has_value());
}

TEST(DimensionListTest, ListsAreEqualWhenTheirDimensionsAre) {
  EXPECT_EQ((DimensionList{{"a", "1"}, {"b", "2"}}), (DimensionList{{"a", "1"}, {"b", "2"}}));
  EXPECT_NE((DimensionList{{"a", "1"}, {"b", "2"}}), (DimensionList{{"a", "1"}}));
  // The same bytes split otherwise are other dimensions.
  EXPECT_NE((DimensionList{{"ab", "1"}}), (DimensionList{{"a", "b1"}}));
  DimensionList cleared{{"a", "1"}};
  cleared.clear();
  EXPECT_EQ(cleared, DimensionList());
}

TEST(DimensionListTest, TheSeriesKeyIsTheMeasureNameBeforeTheList) {
  NormalizedRecord record;
  record.measure_name = "cpu";
  record.dimensions = {{"host", "h1"}, {"region", "eu"}};
  const std::string key = SeriesKey(record);
  EXPECT_EQ(key, std::string("cpu\0host\0h1\0region\0eu\0", 22));
  SeriesInfo parsed;
  ASSERT_TRUE(ParseSeriesKey(key, &parsed));
  EXPECT_EQ(parsed.measure_name, "cpu");
  EXPECT_EQ(parsed.dimensions, record.dimensions.ToVector());
}

TEST(DimensionListTest, PartitionHashIsTheSameFromTheListAsFromAVector) {
  const DimensionList list{{"host", "h1"}, {"region", "eu"}};
  for (const PartitionKey& key :
       {PartitionKey{}, PartitionKey{.type = PartitionKeyType::kDimension, .name = "region"},
        PartitionKey{.type = PartitionKeyType::kDimension, .name = "absent"}}) {
    EXPECT_EQ(PartitionHash("cpu", list, key), PartitionHash("cpu", list.ToVector(), key))
        << key.name;
  }
  EXPECT_NE(PartitionHash("cpu", list, {.type = PartitionKeyType::kDimension, .name = "host"}),
            PartitionHash("cpu", list, {.type = PartitionKeyType::kDimension, .name = "region"}));
}

}  // namespace
}  // namespace strata
