#include "query/exec/scan_batcher.h"

#include <cstring>
#include <functional>
#include <new>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "storage/blocks/block.h"
#include "storage/head/memory_head.h"
#include "storage/rows/head_rows.h"
#include "storage/rows/row_codec.h"

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

// A batcher over TwoAttributes() reading every column; it views the other
// members, which live as long as it does.
struct TwoAttributeBatcher {
  TableColumns table = TwoAttributes();
  std::vector<bool> read = std::vector<bool>(table.types.size(), true);
  std::vector<ValueBound> bounds;
  ScanBatcher batcher{table, read, bounds};
};

// The row a=1, b=2 as the head keeps it.
HeadRow OneAndTwo() {
  return MakeHeadRow(
      {.version = 1, .measures = {{"a", Value::Double(1.0)}, {"b", Value::Double(2.0)}}});
}

// A shape freed while a scan runs (its bucket sealed) can be followed by a
// new shape at the same address: the batcher must not take the new shape's
// values for the old one's columns. Placement new makes the reuse certain.
TEST(ScanBatcherTest, AShapeMadeAtAFreedShapesAddressIsReadAsItself) {
  TwoAttributeBatcher fixture;
  ScanBatcher& batcher = fixture.batcher;

  const HeadRow ab = OneAndTwo();
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

// What a batcher's flushed batches held: each read column's rows, as Datums.
std::vector<std::vector<Datum>> Drain(ScanBatcher& batcher, const std::vector<bool>& read) {
  std::vector<std::vector<Datum>> out(read.size());
  EXPECT_TRUE(batcher
                  .Flush([&](const Batch& batch) {
                    for (size_t c = 0; c < read.size(); ++c) {
                      if (!read[c]) continue;
                      EXPECT_EQ(batch.columns[c].size(), batch.rows) << "column " << c;
                      for (size_t r = 0; r < batch.rows; ++r) {
                        out[c].push_back(batch.columns[c].Get(r));
                      }
                    }
                    return absl::OkStatus();
                  })
                  .ok());
  return out;
}

// A `full` callback for AddHeadSeries and AddBlock: each call drains `batcher`, appending
// its columns to `*got` and counting the call in `*flushes`.
std::function<bool()> DrainInto(ScanBatcher& batcher, const std::vector<bool>& read,
                                std::vector<std::vector<Datum>>* got, int* flushes) {
  return [&batcher, &read, got, flushes] {
    ++*flushes;
    const std::vector<std::vector<Datum>> part = Drain(batcher, read);
    for (size_t k = 0; k < part.size(); ++k) {
      (*got)[k].insert((*got)[k].end(), part[k].begin(), part[k].end());
    }
    return true;
  };
}

// Columns of values equal, NULLs and text alike.
void ExpectSameColumns(const std::vector<std::vector<Datum>>& got,
                       const std::vector<std::vector<Datum>>& expected) {
  ASSERT_EQ(got.size(), expected.size());
  for (size_t k = 0; k < got.size(); ++k) {
    ASSERT_EQ(got[k].size(), expected[k].size()) << "column " << k;
    for (size_t r = 0; r < got[k].size(); ++r) {
      ASSERT_EQ(got[k][r].null, expected[k][r].null) << "column " << k << " row " << r;
      ASSERT_EQ(got[k][r].ToString(), expected[k][r].ToString()) << "column " << k << " row " << r;
    }
  }
}

// A memory-head series read whole (AddHeadSeries, which reads runs of a
// fixed-layout shape a column at a time) must fill the batches exactly as
// its rows added one by one (Add) do: across batch boundaries, where the
// shape changes, with rows of a shape that is not fixed-layout, with value
// bounds and with the time range cutting the series at both ends.
TEST(ScanBatcherTest, AHeadSeriesReadWholeFillsTheBatchesItsRowsDoOneByOne) {
  TableColumns table;
  table.types = {DataType::kTimestamp, DataType::kDouble,  DataType::kDouble,
                 DataType::kBoolean,   DataType::kVarchar, DataType::kVarchar};
  table.time_column = 0;
  table.attribute_column["a"] = {.column = 1, .type = ValueType::kDouble};
  table.attribute_column["b"] = {.column = 2, .type = ValueType::kDouble};
  table.attribute_column["flag"] = {.column = 3, .type = ValueType::kBoolean};
  table.attribute_column["note"] = {.column = 4, .type = ValueType::kVarchar};
  const std::vector<std::pair<int, std::string_view>> host = {{5, "host_1"}};
  table.series[kSeries] = SeriesColumns{.values = host, .multi = true};

  // Shapes: (a, b) and (flag, a) fixed-layout, (a, note) not.
  auto measures_of = [](int i, int kind) -> std::vector<Measure> {
    const double a = (i * 37) % 100, b = -i * 0.5;
    if (kind == 0) return {{"a", Value::Double(a)}, {"b", Value::Double(b)}};
    if (kind == 1) return {{"flag", Value::Boolean(i % 3 == 0)}, {"a", Value::Double(a)}};
    return {{"a", Value::Double(a)}, {"note", Value::Varchar("n" + std::to_string(i))}};
  };
  std::vector<HeadRow> rows;
  std::vector<std::unique_ptr<RowShape>> owned(3);
  std::vector<const RowShape*> shapes;
  std::vector<uint32_t> shape_of_row;
  constexpr int kRows = 2600;  // more than two batches
  for (int i = 0; i < kRows; ++i) {
    // Mostly (a, b); a run of (flag, a) across the first batch's end, one of (a, note)
    // across the second's, and a few (a, note) alone.
    const int kind =
        (i >= 1000 && i < 1100) ? 1 : (i % 500 == 7 || (i >= 1900 && i < 2100) ? 2 : 0);
    rows.push_back(MakeHeadRow({.version = i, .measures = measures_of(i, kind)}));
    if (owned[kind] == nullptr) {
      // Split again from the row as the vector holds it: the parts MakeHeadRow
      // made view its own copy's signature, which moving the row may move.
      RowParts parts;
      ASSERT_TRUE(SplitSignature(rows.back().signature, &parts));
      owned[kind] = std::make_unique<RowShape>(parts);
      shapes.push_back(owned[kind].get());
    }
    const auto position = std::find(shapes.begin(), shapes.end(), owned[kind].get());
    shape_of_row.push_back(static_cast<uint32_t>(position - shapes.begin()) + 1);
  }
  ASSERT_TRUE(owned[0]->fixed_offsets().size() == 2 && owned[1]->fixed_offsets().size() == 2);
  ASSERT_TRUE(owned[2]->fixed_offsets().empty());
  std::vector<MemoryHead::Entry> entries;
  for (int i = 0; i < kRows; ++i) {
    entries.push_back({.time_nanos = 1000 + i * 10, .sequence = 1, .data = rows[i].compact.data(),
                       .size = static_cast<uint32_t>(rows[i].compact.size()),
                       .shape = shape_of_row[i]});
  }

  ValueBound a_over_50{
      .column = 1, .type = DataType::kDouble, .op = BoundOp::kGreater, .value = Datum::Double(50)};
  struct Case {
    const char* name;
    std::vector<bool> read;
    std::vector<ValueBound> bounds;
    int64_t start, end;
  };
  const std::vector<Case> cases = {
      {"every column, every row", std::vector<bool>(6, true), {}, INT64_MIN, INT64_MAX},
      {"some columns, a bound", {true, true, false, true, false, true}, {a_over_50}, 0, INT64_MAX},
      {"the time range cuts both ends", std::vector<bool>(6, true), {}, 1055, 1000 + 2401 * 10},
      {"only the dimension", {false, false, false, false, false, true}, {}, 5000, 25000},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ScanBatcher one_by_one(table, c.read, c.bounds);
    std::vector<std::vector<Datum>> expected(c.read.size());
    auto append = [&](std::vector<std::vector<Datum>> part) {
      for (size_t k = 0; k < part.size(); ++k) {
        expected[k].insert(expected[k].end(), part[k].begin(), part[k].end());
      }
    };
    for (int i = 0; i < kRows; ++i) {
      if (entries[i].time_nanos < c.start || entries[i].time_nanos >= c.end) continue;
      ScanRow row{.series = kSeries, .time_nanos = entries[i].time_nanos};
      row.encoded = entries[i].stored();
      row.shape = shapes[entries[i].shape - 1];
      absl::StatusOr<bool> full = one_by_one.Add(row);
      ASSERT_TRUE(full.ok());
      if (*full) append(Drain(one_by_one, c.read));
    }
    append(Drain(one_by_one, c.read));

    ScanBatcher whole(table, c.read, c.bounds);
    std::vector<std::vector<Datum>> got(c.read.size());
    int flushes = 0;
    const std::function<bool()> take = DrainInto(whole, c.read, &got, &flushes);
    const HeadSeries series{.series = kSeries, .rows = entries, .shapes = shapes,
                            .start_nanos = c.start, .end_nanos = c.end};
    absl::StatusOr<bool> went_on = whole.AddHeadSeries(series, take);
    ASSERT_TRUE(went_on.ok());
    EXPECT_TRUE(*went_on);
    take();
    ExpectSameColumns(got, expected);
    EXPECT_GT(got[5].size(), 0u);  // the dimension, read in every case
    EXPECT_GE(flushes, 2);
  }
}

// A magnetic-store block read by AddBlock gives the rows its points make: with value bounds
// (late materialization: the bounded column first, then the others' values at the passing
// points only), with NULLs among a column's values, with the bounded column not read, and
// with the time range cutting the block at both ends.
TEST(ScanBatcherTest, ABlockGivesTheRowsOfItsPointsThatPass) {
  const TableColumns table = TwoAttributes();
  const ValueBound a_over_50{
      .column = 1, .type = DataType::kDouble, .op = BoundOp::kGreater, .value = Datum::Double(50)};
  constexpr int kPoints = 2600;  // more than two batches
  struct Case {
    const char* name;
    bool sparse;  // b absent from every fifth point
    std::vector<bool> read;
    std::vector<ValueBound> bounds;
    int64_t start, end;
  };
  const std::vector<Case> cases = {
      {"a bound, every column", false, {true, true, true}, {a_over_50}, INT64_MIN, INT64_MAX},
      {"a bound, NULLs, the range cut", true, {true, true, true}, {a_over_50}, 1055, 24015},
      {"a bound on a column not read, the range cut",
       false,
       {true, false, true},
       {a_over_50},
       2005,
       23995},
      {"no bound, the range cut", true, {true, true, true}, {}, 5000, 25000},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::vector<format::BlockPoint> points(kPoints);
    std::vector<std::vector<Datum>> expected(3);
    for (int i = 0; i < kPoints; ++i) {
      // Two decimals with no trend: a plain decimal form, whose groups a scan can skip.
      const double a = static_cast<double>((i * 3709) % 10000) / 100;
      const double b = -i * 0.25;
      const bool has_b = !c.sparse || i % 5 != 0;
      points[i].time_nanos = 1000 + i * 10;
      points[i].version = 1;
      points[i].measures = {{"a", Value::Double(a)}};
      if (has_b) points[i].measures.push_back({"b", Value::Double(b)});
      if (points[i].time_nanos < c.start || points[i].time_nanos >= c.end) continue;
      if (!c.bounds.empty() && !(a > 50)) continue;
      if (c.read[0]) expected[0].push_back(Datum::Timestamp(points[i].time_nanos));
      if (c.read[1]) expected[1].push_back(Datum::Double(a));
      if (c.read[2]) expected[2].push_back(has_b ? Datum::Double(b) : Datum::Null());
    }
    absl::StatusOr<std::string> bytes = format::EncodeBlock(points);
    ASSERT_TRUE(bytes.ok()) << bytes.status();
    absl::StatusOr<format::BlockSummary> summary = format::DecodeBlockSummary(*bytes);
    ASSERT_TRUE(summary.ok()) << summary.status();

    ScanBatcher batcher(table, c.read, c.bounds);
    std::vector<std::vector<Datum>> got(3);
    int flushes = 0;
    const std::function<bool()> take = DrainInto(batcher, c.read, &got, &flushes);
    const WholeBlock block{.series = kSeries,
                           .summary = &*summary,
                           .bytes = [&]() -> absl::StatusOr<format::BlockView> {
                             return format::BlockView{.header = *bytes};
                           },
                           .start_nanos = c.start,
                           .end_nanos = c.end};
    absl::StatusOr<bool> went_on = batcher.AddBlock(block, take);
    ASSERT_TRUE(went_on.ok()) << went_on.status();
    EXPECT_TRUE(*went_on);
    take();
    EXPECT_GE(flushes, 2);
    ExpectSameColumns(got, expected);
    EXPECT_GT(got[2].size(), 500u);
  }
}

// A row of a fixed-layout shape whose bytes are not that shape's length is
// corrupt: AddHeadSeries says so rather than reading past it.
TEST(ScanBatcherTest, AHeadSeriesWithACorruptRowIsDataLoss) {
  TwoAttributeBatcher fixture;
  ScanBatcher& batcher = fixture.batcher;
  const HeadRow ab = OneAndTwo();
  const RowShape shape(ab.parts);
  const std::vector<const RowShape*> shapes = {&shape};
  const std::string cut = ab.compact.substr(0, ab.compact.size() - 1);
  const std::vector<MemoryHead::Entry> entries = {
      {.time_nanos = 1, .sequence = 1, .data = ab.compact.data(),
       .size = static_cast<uint32_t>(ab.compact.size()), .shape = 1},
      {.time_nanos = 2, .sequence = 1, .data = cut.data(),
       .size = static_cast<uint32_t>(cut.size()), .shape = 1}};
  const HeadSeries series{.series = kSeries, .rows = entries, .shapes = shapes,
                          .start_nanos = INT64_MIN, .end_nanos = INT64_MAX};
  absl::StatusOr<bool> added = batcher.AddHeadSeries(series, [] { return true; });
  ASSERT_FALSE(added.ok());
  EXPECT_EQ(added.status().code(), absl::StatusCode::kDataLoss);
}

}  // namespace
}  // namespace strata::query
