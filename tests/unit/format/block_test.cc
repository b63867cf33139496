// The block: every column type, nulls, statistics, and refusal of anything
// that is not a well-formed block.
#include <cmath>
#include <random>

#include "gtest/gtest.h"
#include "storage/blocks/block.h"

namespace strata::format {
namespace {

constexpr int64_t kStart = 1'700'000'000'000'000'000;
constexpr int64_t kTenSeconds = 10'000'000'000;

std::vector<BlockPoint> Devops(size_t n) {
  std::mt19937_64 random(1);
  std::vector<BlockPoint> points(n);
  for (size_t i = 0; i < n; ++i) {
    points[i].time_nanos = kStart + static_cast<int64_t>(i) * kTenSeconds;
    points[i].version = 1;
    points[i].measures = {{"usage_user", Value::Double(std::fmod(random() / 1e6, 100.0))},
                          {"procs", Value::Bigint(100 + static_cast<int64_t>(i / 10))},
                          {"state", Value::Varchar(i % 7 == 0 ? "idle" : "busy")},
                          {"up", Value::Boolean(i % 2 == 0)},
                          {"seen", Value::Timestamp(kStart + static_cast<int64_t>(i))}};
  }
  return points;
}

// The columns a block decodes to encode to the same bytes (EncodeBlockColumns,
// the tiering job's encoder for rows it holds as columns, against
// EncodeBlock): every type, absent values, NaN, one point and many.
TEST(Block, EncodingItsColumnsGivesTheBytesEncodingItsPointsGives) {
  std::vector<BlockPoint> sparse = Devops(70);
  for (size_t i = 0; i < sparse.size(); ++i) {
    auto& m = sparse[i].measures;
    if (i % 3 == 0) m.erase(m.begin());
    if (i % 4 == 1) m.pop_back();
    if (i == 7) m.clear();
    if (i % 5 == 4 && !m.empty() && m[0].value.type == ValueType::kDouble) {
      m[0].value.real = std::nan("");
    }
  }
  for (const auto& points : {Devops(1), Devops(360), Devops(5000), sparse}) {
    auto bytes = EncodeBlock(points);
    ASSERT_TRUE(bytes.ok()) << bytes.status();
    auto decoded = DecodeBlockColumns(*bytes, /*with_versions=*/true,
                                      [](const ColumnSummary&) { return true; });
    ASSERT_TRUE(decoded.ok()) << decoded.status();
    std::vector<ColumnToEncode> columns;
    for (size_t c = 0; c < decoded->columns.size(); ++c) {
      columns.push_back({decoded->summary.columns[c].name, *decoded->columns[c]});
    }
    auto again = EncodeBlockColumns(decoded->times, decoded->versions, columns);
    ASSERT_TRUE(again.ok()) << again.status();
    EXPECT_TRUE(*again == *bytes) << points.size() << " points";
    // With every value present, `present` may be left empty.
    if (points.size() != sparse.size()) {
      for (auto& column : columns) column.values.present.clear();
      auto dense = EncodeBlockColumns(decoded->times, decoded->versions, columns);
      ASSERT_TRUE(dense.ok()) << dense.status();
      EXPECT_TRUE(*dense == *bytes) << points.size() << " points";
    }
  }
  // Values that do not match what `present` says are refused.
  auto bytes = EncodeBlock(Devops(3));
  auto decoded = DecodeBlockColumns(*bytes, true, [](const ColumnSummary&) { return true; });
  std::vector<ColumnToEncode> columns = {{"usage_user", *decoded->columns[0]}};
  columns[0].values.reals.pop_back();
  EXPECT_EQ(EncodeBlockColumns(decoded->times, decoded->versions, columns).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(EncodeBlockColumns({2, 1}, {1, 1}, {}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(Block, RoundTripsAllTypes) {
  for (size_t n : {size_t{1}, size_t{2}, size_t{360}, size_t{5000}}) {
    const auto points = Devops(n);
    auto bytes = EncodeBlock(points);
    ASSERT_TRUE(bytes.ok()) << bytes.status();
    auto decoded = DecodeBlock(*bytes);
    ASSERT_TRUE(decoded.ok()) << decoded.status();
    EXPECT_EQ(*decoded, points) << n;
  }
}

// PointReader gives one point of a block decoded column by column (the
// writer's check of a record against a block, the last-point probe): the
// same measures DecodeBlock gives it, where columns skip absent values.
TEST(Block, OnePointsMeasuresFromItsColumnsEqualTheWholeDecoding) {
  std::vector<BlockPoint> sparse = Devops(50);
  for (size_t i = 0; i < sparse.size(); ++i) {
    auto& m = sparse[i].measures;
    if (i % 3 == 0) m.erase(m.begin());                 // no usage_user
    if (i % 4 == 1) m.pop_back();                       // no seen
    if (i % 5 == 2) m.erase(m.begin(), m.begin() + 2);  // neither of the first two
    if (i == 7) m.clear();
  }
  for (const auto& points : {Devops(360), sparse}) {
    auto bytes = EncodeBlock(points);
    ASSERT_TRUE(bytes.ok()) << bytes.status();
    auto whole = DecodeBlock(*bytes);
    ASSERT_TRUE(whole.ok()) << whole.status();
    auto columns = DecodeBlockColumns(*bytes, /*with_versions=*/true,
                                      [](const ColumnSummary&) { return true; });
    ASSERT_TRUE(columns.ok()) << columns.status();
    const PointReader reader(*columns);
    for (size_t i = 0; i < points.size(); ++i) {
      EXPECT_EQ(reader.MeasuresAt(i), (*whole)[i].measures) << i;
    }
  }
}

TEST(Block, NullsVersionsAndIrregularTimes) {
  // MULTI rows that name different attributes, versions that change, and
  // times with jitter, negative times and a large gap.
  std::vector<BlockPoint> points = {
      {-5'000, 1, {{"a", Value::Double(1.5)}}},
      {-1, 1, {{"b", Value::Varchar("x")}}},
      {0, 3, {{"a", Value::Double(-2.25)}, {"b", Value::Varchar("")}}},
      {7, 3, {}},
      {3'600'000'000'000, 9, {{"b", Value::Varchar("x")}, {"a", Value::Double(NAN)}}},
  };
  auto bytes = EncodeBlock(points);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  auto decoded = DecodeBlock(*bytes);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  ASSERT_EQ(decoded->size(), points.size());
  // Decoded measures come in column order ("a" was seen first).
  EXPECT_EQ((*decoded)[4].measures[0].name, "a");
  EXPECT_TRUE(std::isnan((*decoded)[4].measures[0].value.real));
  EXPECT_EQ((*decoded)[4].measures[1].value.text, "x");
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ((*decoded)[i], points[i]) << i;
  EXPECT_EQ((*decoded)[4].version, 9);

  auto summary = DecodeBlockSummary(*bytes);
  ASSERT_TRUE(summary.ok());
  EXPECT_EQ(summary->count, 5u);
  EXPECT_EQ(summary->min_time, -5'000);
  EXPECT_EQ(summary->max_time, 3'600'000'000'000);
  ASSERT_EQ(summary->columns.size(), 2u);
  const ColumnSummary& a = summary->columns[0];
  EXPECT_EQ(a.null_count, 2u);
  EXPECT_TRUE(a.has_stats);  // NaN is left out of min, max and sum
  EXPECT_EQ(a.min, -2.25);
  EXPECT_EQ(a.max, 1.5);
  EXPECT_EQ(a.sum, -0.75);
  EXPECT_FALSE(summary->columns[1].has_stats);
}

// Reading chosen columns gives what the full decode gives for them, and
// leaves the others undecoded.
TEST(Block, DecodesOnlyTheWantedColumns) {
  std::vector<BlockPoint> points = {
      {10, 1, {{"a", Value::Double(1.5)}, {"b", Value::Varchar("x")}, {"c", Value::Bigint(7)}}},
      {20, 2, {{"b", Value::Varchar("y")}}},
      {30, 1, {{"a", Value::Double(-3)}, {"c", Value::Bigint(-7)}}},
  };
  auto bytes = EncodeBlock(points);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  auto block = DecodeBlockColumns(*bytes, /*with_versions=*/false,
                                  [](const ColumnSummary& c) { return c.name != "c"; });
  ASSERT_TRUE(block.ok()) << block.status();
  EXPECT_EQ(block->times, (std::vector<int64_t>{10, 20, 30}));
  EXPECT_TRUE(block->versions.empty());
  ASSERT_EQ(block->columns.size(), 3u);
  ASSERT_TRUE(block->columns[0] && block->columns[1]);
  EXPECT_FALSE(block->columns[2].has_value());
  EXPECT_EQ(block->columns[0]->present, (std::vector<bool>{true, false, true}));
  EXPECT_EQ(block->columns[0]->reals, (std::vector<double>{1.5, -3}));
  EXPECT_EQ(block->columns[1]->present, (std::vector<bool>{true, true, false}));
  EXPECT_EQ(block->columns[1]->texts, (std::vector<std::string_view>{"x", "y"}));

  auto with_versions = DecodeBlockColumns(*bytes, true, [](const ColumnSummary&) { return false; });
  ASSERT_TRUE(with_versions.ok());
  EXPECT_EQ(with_versions->versions, (std::vector<int64_t>{1, 2, 1}));
}

TEST(Block, IntegerStatisticsAreExact) {
  std::vector<BlockPoint> points = {{1, 1, {{"n", Value::Bigint(INT64_MAX)}}},
                                    {2, 1, {{"n", Value::Bigint(INT64_MIN)}}}};
  auto bytes = EncodeBlock(points);
  ASSERT_TRUE(bytes.ok());
  auto summary = DecodeBlockSummary(*bytes);
  ASSERT_TRUE(summary.ok());
  EXPECT_EQ(summary->columns[0].int_min, INT64_MIN);
  EXPECT_EQ(summary->columns[0].int_max, INT64_MAX);
}

TEST(Block, EncoderRefusesWhatIsNotABlock) {
  EXPECT_FALSE(EncodeBlock({}).ok());
  EXPECT_FALSE(EncodeBlock({{2, 1, {}}, {2, 1, {}}}).ok());  // same time twice
  EXPECT_FALSE(EncodeBlock({{2, 1, {}}, {1, 1, {}}}).ok());  // out of order
  EXPECT_FALSE(EncodeBlock({{1, 1, {{"a", Value::Double(1)}}},
                            {2, 1, {{"a", Value::Bigint(1)}}}}).ok());  // two types
  EXPECT_FALSE(EncodeBlock({{1, 1, {{"a", Value::Double(1)}, {"a", Value::Double(2)}}}}).ok());
}

TEST(Block, DecoderRefusesEveryTruncationAndBitFlip) {
  auto bytes = EncodeBlock(Devops(50));
  ASSERT_TRUE(bytes.ok());
  for (size_t cut = 0; cut < bytes->size(); ++cut) {
    auto decoded = DecodeBlock(std::string_view(bytes->data(), cut));
    ASSERT_FALSE(decoded.ok()) << "cut at " << cut;
    EXPECT_EQ(decoded.status().code(), absl::StatusCode::kDataLoss);
  }
  // A flipped bit either still decodes (a different but valid block) or is
  // refused: never a crash or an overread (run under ASan in the fuzz build).
  int refused = 0;
  for (size_t bit = 0; bit < bytes->size() * 8; ++bit) {
    std::string flipped = *bytes;
    flipped[bit / 8] ^= static_cast<char>(1 << (bit % 8));
    if (!DecodeBlock(flipped).ok()) ++refused;
  }
  EXPECT_GT(refused, 0);
  EXPECT_FALSE(DecodeBlock(*bytes + "x").ok());
}

TEST(Block, RegularDevopsDataIsCompact) {
  // Ten-second points of a slowly changing counter: time and value cost a
  // few bytes per block, not per point.
  std::vector<BlockPoint> points(360);
  for (size_t i = 0; i < points.size(); ++i) {
    points[i] = {kStart + static_cast<int64_t>(i) * kTenSeconds, 1,
                 {{"count", Value::Bigint(1000 + static_cast<int64_t>(i / 20))}}};
  }
  auto bytes = EncodeBlock(points);
  ASSERT_TRUE(bytes.ok());
  EXPECT_LT(bytes->size(), 360u / 2);
}

}  // namespace
}  // namespace strata::format
