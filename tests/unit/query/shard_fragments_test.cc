#include "query/exec/shard_fragments.h"

#include <atomic>
#include <latch>
#include <thread>

#include "common/spare_threads.h"
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

// Each site's fragment sends one row: its index.
class OneRowEachSite final : public ShardReads {
 public:
  absl::StatusOr<std::vector<FragmentSite>> Sites() override { return std::vector<FragmentSite>(); }
  absl::StatusOr<std::vector<ResultColumn>> Describe(
      const FragmentSite&, const std::string&, std::chrono::steady_clock::time_point) override {
    return std::vector<ResultColumn>{{"site", DataType::kBigint}};
  }
  absl::Status Run(const FragmentSite& site, const std::string&, const FragmentLists&,
                   std::chrono::steady_clock::time_point, const std::atomic<bool>*,
                   const std::function<void()>& answered, const Push& push, const Relay*,
                   QueryStats*) override {
    answered();
    Batch batch = NewBatch({DataType::kBigint}, 1);
    batch.columns[0].Set(0, Datum::Bigint(std::stoll(site.node)));
    return push(batch, {{"site", DataType::kBigint}}).status();
  }
};

class Collect final : public BatchSink {
 public:
  absl::Status Push(const Batch& batch) override {
    for (size_t i = 0; i < batch.rows; ++i) sum += batch.columns[0].Get(i).i;
    rows += batch.rows;
    return absl::OkStatus();
  }
  absl::Status Finish() override { return absl::OkStatus(); }
  int64_t sum = 0;
  size_t rows = 0;
};

// With no thread to spare (the process's shared spare threads all busy, as at its thread
// limit) a query's fragments all run on its own thread, one after another: the gate that
// holds their batches until every fragment started at once has answered counts only those
// that started (it waited for fragments that had no thread before, for ever).
TEST(ShardFragmentsNodeTest, WithNoThreadToSpareTheFragmentsRunOnTheQuerysOwnThread) {
  std::latch release(1);
  std::atomic<int> busy{0};
  while (SpareThreads::Shared().Run([&] {
    release.wait();
    --busy;
  })) {
    ++busy;
  }
  OneRowEachSite reads;
  std::vector<FragmentSite> sites;
  for (int i = 1; i <= 3; ++i) sites.push_back({.node = std::to_string(i), .address = "x"});
  ShardFragmentsNode node({{.name = "site", .type = DataType::kBigint}}, &reads, sites,
                          {"SELECT 1", "SELECT 2", "SELECT 3"}, nullptr, "t", 0, nullptr);
  QueryContext context;
  Collect sink;
  const absl::Status ran = node.RunBatches(&context, &sink);
  release.count_down();
  while (busy.load() > 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_TRUE(ran.ok()) << ran;
  EXPECT_EQ(sink.rows, 3u);
  EXPECT_EQ(sink.sum, 1 + 2 + 3);
}

}  // namespace
}  // namespace strata::query
