#include "query/scan_batcher.h"

#include <new>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "storage/head_rows.h"
#include "storage/row_codec.h"

namespace strata::query {
namespace {

constexpr uint64_t kSeries = 7;

// A MULTI series whose attributes `a` and `b` fill columns 1 and 2.
TableColumns TwoAttributes() {
  TableColumns table;
  table.types = {DataType::kTimestamp, DataType::kDouble, DataType::kDouble};
  table.time_column = 0;
  table.attribute_column["a"] = {.column = 1, .type = ValueType::kDouble};
  table.attribute_column["b"] = {.column = 2, .type = ValueType::kDouble};
  table.series[kSeries] = SeriesColumns{.multi = true};
  return table;
}

// A row's measures as the memory head keeps them: its shape's signature,
// cut into parts, and the compact row (version and values).
struct HeadRow {
  std::string signature;
  std::string compact;
  RowParts parts;
};

HeadRow MakeHeadRow(const StoredRow& row) {
  HeadRow out;
  EncodeRowSignature(row.measures, &out.signature);
  EncodeCompactRow(row, &out.compact);
  EXPECT_TRUE(SplitSignature(out.signature, &out.parts));
  return out;
}

// A shape freed while a scan runs (its bucket sealed) can be followed by a
// new shape at the same address: the batcher must not take the new shape's
// values for the old one's columns. Placement new makes the reuse certain.
TEST(ScanBatcherTest, AShapeMadeAtAFreedShapesAddressIsReadAsItself) {
  const TableColumns table = TwoAttributes();
  const std::vector<bool> read(table.types.size(), true);
  const std::vector<ValueBound> bounds;
  ScanBatcher batcher(table, read, bounds);

  const HeadRow ab = MakeHeadRow(
      {.version = 1, .measures = {{"a", Value::Double(1.0)}, {"b", Value::Double(2.0)}}});
  const HeadRow ba = MakeHeadRow(
      {.version = 1, .measures = {{"b", Value::Double(3.0)}, {"a", Value::Double(4.0)}}});
  alignas(RowShape) unsigned char storage[sizeof(RowShape)];

  auto* first = new (storage) RowShape(ab.parts);
  ScanRow row{.series = kSeries, .time_nanos = 10, .version = 1};
  row.encoded = ab.compact;
  row.shape = first;
  ASSERT_FALSE(*batcher.Add(row));
  first->~RowShape();

  auto* second = new (storage) RowShape(ba.parts);
  ASSERT_EQ(static_cast<const void*>(second), static_cast<const void*>(first));
  row.time_nanos = 20;
  row.encoded = ba.compact;
  row.shape = second;
  ASSERT_FALSE(*batcher.Add(row));

  bool pushed = false;
  ASSERT_TRUE(batcher
                  .Flush([&](const Batch& batch) {
                    pushed = true;
                    EXPECT_EQ(batch.rows, 2u);
                    EXPECT_EQ(batch.columns[0].ints, (std::vector<int64_t>{10, 20}));
                    EXPECT_EQ(batch.columns[1].doubles, (std::vector<double>{1.0, 4.0}));
                    EXPECT_EQ(batch.columns[2].doubles, (std::vector<double>{2.0, 3.0}));
                    return absl::OkStatus();
                  })
                  .ok());
  EXPECT_TRUE(pushed);
  second->~RowShape();
}

}  // namespace
}  // namespace strata::query
