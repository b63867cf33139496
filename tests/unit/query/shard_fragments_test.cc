#include "query/exec/shard_fragments.h"

#include "gtest/gtest.h"

namespace strata::query {
namespace {

std::string Names(const Schema& schema) {
  std::string out;
  for (const ColumnInfo& c : schema) out += (out.empty() ? "" : ",") + c.name;
  return out;
}

TEST(MergeFragmentColumnsTest, OneTableSchemaInTheSingleNodesOrder) {
  // Two shards' columns: each saw some dimensions, measures and attributes only.
  const std::vector<std::vector<ResultColumn>> fragments = {
      {{"host", DataType::kVarchar},
       {"region", DataType::kVarchar},
       {"measure_name", DataType::kVarchar},
       {"time", DataType::kTimestamp},
       {"measure_value::varchar", DataType::kVarchar},
       {"load", DataType::kDouble}},
      {{"az", DataType::kVarchar},
       {"host", DataType::kVarchar},
       {"measure_name", DataType::kVarchar},
       {"time", DataType::kTimestamp},
       {"measure_value::double", DataType::kDouble},
       {"count", DataType::kBigint},
       {"load", DataType::kDouble}}};
  absl::StatusOr<Schema> merged = MergeFragmentColumns(fragments, "cpu");
  ASSERT_TRUE(merged.ok()) << merged.status();
  EXPECT_EQ(Names(*merged),
            "az,host,region,measure_name,time,measure_value::double,measure_value::varchar,"
            "count,load");
  for (const ColumnInfo& c : *merged) EXPECT_EQ(c.qualifier, "cpu");
  EXPECT_EQ((*merged)[8].type, DataType::kDouble);
}

TEST(MergeFragmentColumnsTest, OneNameWithTwoTypesIsAnError) {
  const std::vector<std::vector<ResultColumn>> fragments = {{{"measure_name", DataType::kVarchar},
                                                             {"time", DataType::kTimestamp},
                                                             {"load", DataType::kDouble}},
                                                            {{"measure_name", DataType::kVarchar},
                                                             {"time", DataType::kTimestamp},
                                                             {"load", DataType::kBigint}}};
  absl::StatusOr<Schema> merged = MergeFragmentColumns(fragments, "cpu");
  ASSERT_FALSE(merged.ok());
  EXPECT_EQ(merged.status().message(),
            "column \"load\" is double in some shards and bigint in others; one name must keep "
            "one type in a table");
}

}  // namespace
}  // namespace strata::query
