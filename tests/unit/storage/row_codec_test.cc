#include "storage/rows/row_codec.h"

#include <limits>

#include "gtest/gtest.h"
#include "storage/rows/head_rows.h"

namespace strata {
namespace {

TEST(RowCodecTest, RoundTripsEveryType) {
  StoredRow row{.version = 1234567,
                .measures = {{"d", Value::Double(-0.25)},
                             {"b", Value::Bigint(std::numeric_limits<int64_t>::min())},
                             {"v", Value::Varchar("text")},
                             {"t", Value::Boolean(true)},
                             {"f", Value::Boolean(false)},
                             {"ts", Value::Timestamp(1'700'000'000'000'000'000)}}};
  std::string bytes;
  EncodeRow(row, &bytes);
  auto decoded = DecodeRow(bytes);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(decoded->version, row.version);
  EXPECT_EQ(decoded->measures, row.measures);
}

TEST(RowCodecTest, ASignatureAndACompactRowAreTheRowInTwoParts) {
  StoredRow row{.version = 300,
                .measures = {{"d", Value::Double(-0.25)},
                             {"b", Value::Bigint(std::numeric_limits<int64_t>::min())},
                             {std::string(200, 'n'), Value::Varchar(std::string(300, 'v'))},
                             {"t", Value::Boolean(true)},
                             {"ts", Value::Timestamp(1'700'000'000'000'000'000)}}};
  std::string whole, signature, compact;
  EncodeRow(row, &whole);
  EncodeRowSignature(row.measures, &signature);
  EncodeCompactRow(row, &compact);
  EXPECT_EQ(signature.size() + compact.size(), whole.size());
  RowParts parts;
  ASSERT_TRUE(SplitSignature(signature, &parts));
  EXPECT_TRUE(IsCompactRowOf(parts, compact));
  EXPECT_FALSE(IsCompactRowOf(parts, compact + "x"));
  EXPECT_FALSE(IsCompactRowOf(parts, compact.substr(0, compact.size() - 1)));
  const RowShape shape(parts);
  EXPECT_EQ(RowShape::Signature(parts), signature);
  std::string rebuilt;
  shape.AppendEncodedRow(compact, &rebuilt);
  EXPECT_EQ(rebuilt, whole);
  // What the head stores of the whole row is the compact row.
  RowParts split;
  ASSERT_TRUE(SplitEncodedRow(whole, &split));
  std::string head_compact(RowShape::CompactSize(split), '\0');
  RowShape::WriteCompact(split, head_compact.data());
  EXPECT_EQ(head_compact, compact);
  // A signature of no measures, or with bytes past its last, is none.
  EXPECT_FALSE(SplitSignature(std::string(1, '\0'), &parts));
  EXPECT_FALSE(SplitSignature(signature + "x", &parts));
}

TEST(RowCodecTest, EveryTruncationOrTrailingGarbageIsCorruption) {
  StoredRow row{.version = 3, .measures = {{"a", Value::Varchar("xyz")}, {"b", Value::Double(1)}}};
  std::string bytes;
  EncodeRow(row, &bytes);
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    EXPECT_EQ(DecodeRow(bytes.substr(0, cut)).status().code(), absl::StatusCode::kDataLoss) << cut;
  }
  EXPECT_EQ(DecodeRow(bytes + "x").status().code(), absl::StatusCode::kDataLoss);
  std::string bad_type = bytes;
  bad_type[4] = 9;  // the type byte of the first measure
  EXPECT_FALSE(DecodeRow(bad_type).ok());
}

// DecodeRowInto reuses the row's storage: a longer row, then a shorter one,
// then a longer one again decode exactly.
TEST(RowCodecTest, DecodingIntoAUsedRowLeavesNothingBehind) {
  StoredRow long_row{.version = 2, .measures = {{"a", Value::Double(1)},
                                                {"b", Value::Varchar("long text here")},
                                                {"c", Value::Bigint(7)}}};
  StoredRow short_row{.version = 5, .measures = {{"x", Value::Boolean(true)}}};
  StoredRow into;
  for (const StoredRow* row : {&long_row, &short_row, &long_row}) {
    std::string bytes;
    EncodeRow(*row, &bytes);
    ASSERT_TRUE(DecodeRowInto(bytes, &into).ok());
    EXPECT_EQ(into.version, row->version);
    EXPECT_EQ(into.measures, row->measures);
  }
}

TEST(RowCodecTest, RowReaderViewsEveryMeasureInPlace) {
  StoredRow row{.version = 9, .measures = {{"usage", Value::Double(2.5)},
                                           {"state", Value::Varchar("up")},
                                           {"n", Value::Bigint(-3)},
                                           {"ok", Value::Boolean(true)}}};
  std::string bytes;
  EncodeRow(row, &bytes);
  RowReader reader(bytes);
  int64_t version = 0;
  ASSERT_TRUE(reader.Start(&version));
  EXPECT_EQ(version, 9);
  MeasureView m;
  std::vector<std::string> seen;
  while (reader.Next(&m)) {
    EXPECT_GE(m.name.data(), bytes.data());  // a view into the row's bytes
    EXPECT_LT(m.name.data(), bytes.data() + bytes.size());
    seen.push_back(std::string(m.name));
  }
  EXPECT_TRUE(reader.ok());
  EXPECT_EQ(seen, (std::vector<std::string>{"usage", "state", "n", "ok"}));

  RowReader truncated(std::string_view(bytes).substr(0, bytes.size() - 1));
  ASSERT_TRUE(truncated.Start(&version));
  while (truncated.Next(&m)) {
  }
  EXPECT_FALSE(truncated.ok());
}

// A shape of DOUBLE and BOOLEAN values only has each value at a fixed place
// after the version; FixedValueAt reads the same values RowReader does, for
// versions of every varint length. A shape with any other type has none.
TEST(RowCodecTest, AFixedLayoutShapeReadsEachValueInPlace) {
  const std::vector<Measure> measures = {{"a", Value::Double(-0.25)},
                                         {"on", Value::Boolean(true)},
                                         {"b", Value::Double(1e300)},
                                         {"off", Value::Boolean(false)},
                                         {"c", Value::Double(0.0)}};
  for (int64_t version : {int64_t{1}, int64_t{300}, int64_t{1} << 40, INT64_MAX}) {
    SCOPED_TRACE(version);
    const StoredRow row{.version = version, .measures = measures};
    std::string signature, compact;
    EncodeRowSignature(row.measures, &signature);
    EncodeCompactRow(row, &compact);
    RowParts parts;
    ASSERT_TRUE(SplitSignature(signature, &parts));
    const RowShape shape(parts);
    EXPECT_EQ(shape.fixed_offsets(), (std::vector<uint32_t>{0, 8, 9, 17, 18}));
    EXPECT_EQ(shape.fixed_size(), 26u);
    std::string_view values;
    ASSERT_TRUE(FixedValues(compact, shape, &values));
    RowReader reader(compact, &shape);
    int64_t read_version = 0;
    ASSERT_TRUE(reader.Start(&read_version));
    MeasureView expected;
    for (size_t i = 0; reader.Next(&expected); ++i) {
      const MeasureView m = FixedValueAt(values, shape, i);
      EXPECT_EQ(m.type, expected.type) << i;
      EXPECT_EQ(m.real, expected.real) << i;
      EXPECT_EQ(m.number, expected.number) << i;
    }
    EXPECT_TRUE(reader.ok());
    // A byte more or less is a corrupt row, not values read out of place.
    EXPECT_FALSE(FixedValues(compact + "x", shape, &values));
    EXPECT_FALSE(FixedValues(compact.substr(0, compact.size() - 1), shape, &values));
    EXPECT_FALSE(FixedValues("", shape, &values));
  }
  for (const Value& other : {Value::Bigint(1), Value::Varchar("x"), Value::Timestamp(1)}) {
    std::vector<Measure> with_other = measures;
    with_other.push_back({"z", other});
    std::string signature;
    EncodeRowSignature(with_other, &signature);
    RowParts parts;
    ASSERT_TRUE(SplitSignature(signature, &parts));
    const RowShape shape(parts);
    EXPECT_TRUE(shape.fixed_offsets().empty());
    EXPECT_EQ(shape.fixed_size(), 0u);
  }
}

}  // namespace
}  // namespace strata
