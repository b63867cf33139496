// The block: every column type, nulls, statistics, and refusal of anything
// that is not a well-formed block.
#include <cmath>
#include <random>

#include "gtest/gtest.h"
#include "storage/blocks/block.h"
#include "storage/blocks/block_format.h"

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

// A scan's second pass (query/exec/scan_batcher.cc) decodes the points that passed its
// conditions: their values are the whole decoding's, NULLs and all, whatever else was left.
TEST(Block, NeededPointsDecodeAsTheWholeBlock) {
  std::vector<BlockPoint> sparse = Devops(400);
  for (size_t i = 0; i < sparse.size(); ++i) {
    if (i % 3 == 0) sparse[i].measures.erase(sparse[i].measures.begin());
  }
  for (const auto& points : {Devops(400), sparse}) {
    auto bytes = EncodeBlock(points);
    ASSERT_TRUE(bytes.ok()) << bytes.status();
    auto all = [](const ColumnSummary&) { return true; };
    auto whole = DecodeBlockColumns(*bytes, /*with_versions=*/false, all);
    ASSERT_TRUE(whole.ok()) << whole.status();
    NeededValues needed;
    for (size_t i = 0; i < points.size(); i += 9) needed.push_back(static_cast<uint32_t>(i));
    auto part = DecodeBlockColumns(*bytes, /*with_versions=*/false, all, true, &needed);
    ASSERT_TRUE(part.ok()) << part.status();
    ASSERT_EQ(part->columns.size(), whole->columns.size());
    for (size_t c = 0; c < whole->columns.size(); ++c) {
      const ColumnValues& w = *whole->columns[c];
      const ColumnValues& p = *part->columns[c];
      EXPECT_EQ(p.present, w.present);
      for (size_t i = 0, k = 0; i < points.size(); ++i) {
        if (!w.present[i]) continue;
        if (i % 9 == 0) {
          switch (w.type) {
            case ValueType::kDouble:
              EXPECT_EQ(p.reals[k], w.reals[k]) << c << " " << i;
              break;
            case ValueType::kVarchar:
              EXPECT_EQ(p.texts[k], w.texts[k]) << c << " " << i;
              break;
            default:
              EXPECT_EQ(p.numbers[k], w.numbers[k]) << c << " " << i;
              break;
          }
        }
        ++k;
      }
    }
  }
}

// A block stored in two parts decodes from its parts as the block itself does (a scan reads
// it so, without joining them), and the parts are checked as JoinBlock checks them.
TEST(Block, ItsStoredPartsDecodeAsTheBlockItself) {
  auto bytes = EncodeBlock(Devops(300));
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  auto parts = SplitBlock(*bytes);
  ASSERT_TRUE(parts.ok()) << parts.status();
  auto view = ViewBlock(parts->header, parts->bodies);
  ASSERT_TRUE(view.ok()) << view.status();
  auto whole = DecodeBlock(*bytes);
  auto from_parts = DecodeBlock(*view);
  ASSERT_TRUE(whole.ok() && from_parts.ok()) << from_parts.status();
  EXPECT_EQ(*from_parts, *whole);
  NeededValues needed = {0, 7, 299};
  auto all = [](const ColumnSummary&) { return true; };
  auto part_whole = DecodeBlockColumns(*bytes, false, all, true, &needed);
  auto part_view = DecodeBlockColumns(*view, false, all, true, &needed);
  ASSERT_TRUE(part_whole.ok() && part_view.ok()) << part_view.status();
  EXPECT_EQ(part_view->columns[0]->reals, part_whole->columns[0]->reals);
  EXPECT_EQ(DecodeBlock(BlockView{.header = *bytes})->size(), 300u) << "a whole block's view";

  struct Case {
    std::string header, bodies, says;
  };
  std::string other_version = parts->bodies;
  other_version[2] = static_cast<char>(other_version[2] + 1);
  const std::vector<Case> cases = {
      {parts->header, "xy" + parts->bodies.substr(2), "bad magic of a block's bodies"},
      {parts->header, other_version, "different versions"},
      {parts->header + "z", parts->bodies, "bytes after a stored block header"},
      {parts->header, parts->bodies.substr(0, parts->bodies.size() - 1), "trailing bytes"},
  };
  for (const Case& c : cases) {
    auto decoded = DecodeBlock(BlockView{.header = c.header, .bodies = c.bodies});
    ASSERT_FALSE(decoded.ok()) << c.says;
    EXPECT_EQ(decoded.status().code(), absl::StatusCode::kDataLoss);
    if (c.says != "trailing bytes") {
      EXPECT_NE(decoded.status().message().find(c.says), std::string::npos) << decoded.status();
    }
  }
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

// A block the format-1 encoder wrote (before range packing, the decimal form
// with exceptions and decimal statistics): 12 points of a two-decimal DOUBLE,
// a BIGINT with one point absent, a VARCHAR and a full-precision DOUBLE.
// Blocks on disk keep reading after the format changes.
TEST(Block, FormatOneBlocksStillDecode) {
  const std::string v1(
      "\x53\x42\x01\x0c\x80\x80\xd0\xe2\xc6\xbf\xce\x97\x2f\x80\x98\x8b\xe4\x99"
      "\x03\x04\x04\x74\x65\x6d\x70\x01\x02\x40\x35\x63\xd7\x0a\x3d\x70\xa4\x40"
      "\x35\x97\x0a\x3d\x70\xa3\xd7\x40\x70\x1d\xeb\x85\x1e\xb8\x51\x0d\x05\x63"
      "\x6f\x75\x6e\x74\x02\x03\x01\xd0\x0f\xc2\x11\x40\xc6\x74\x80\x00\x00\x00"
      "\x00\x0e\x05\x73\x74\x61\x74\x65\x03\x00\x11\x05\x72\x61\x74\x69\x6f\x01"
      "\x02\x00\x00\x00\x00\x00\x00\x00\x00\x40\x0d\x55\x55\x55\x55\x55\x55\x40"
      "\x33\xf7\x77\x77\x77\x77\x78\x65\x07\x01\x80\x90\xdf\xc0\x4a\x00\x07\x00"
      "\x02\x04\x04\x00\x02\x05\x01\x02\x01\xb6\x21\x05\xe4\x79\x18\xf2\x3c\x8c"
      "\x78\xef\xf0\x01\xd0\x0f\x06\x08\x66\x12\x59\xa7\xa2\x9a\xa0\x02\x04\x69"
      "\x64\x6c\x65\x04\x62\x75\x73\x79\x01\x00\x02\xa8\xa8\xa8\x00\x00\x00\x00"
      "\x00\x00\x00\x00\x00\xc5\xef\xfa\xaa\xaa\xaa\xaa\xaa\xaa\xb0\x06\x00\x00"
      "\x00\x00\x00\x00\x10\x02\xaa\xaa\xaa\xaa\xaa\xaa\xb0\x00\xaa\xaa\xaa\xaa"
      "\xaa\xaa\xb0\x01\xff\xff\xff\xff\xff\xff\xd8\x7e\xff\xf5\x55\x55\x55\x55"
      "\x55\x57\x7f\xd3\x33\x33\x33\x33\x33\x34\xbf\xeb\x33\x33\x33\x33\x33\x30"
      "\xc0\x03\x55\x55\x55\x55\x55\x55\x60\x00\x55\x55\x55\x55\x55\x55\x70\x00"
      "\x7f\xff\xff\xff\xff\xff\xe0",
      277);
  ASSERT_EQ(v1[2], 1);
  auto points = DecodeBlock(v1);
  ASSERT_TRUE(points.ok()) << points.status();
  ASSERT_EQ(points->size(), 12u);
  for (int i = 0; i < 12; ++i) {
    const BlockPoint& p = (*points)[i];
    EXPECT_EQ(p.time_nanos, kStart + i * kTenSeconds);
    EXPECT_EQ(p.version, i == 5 ? 2 : 1);
    std::vector<Measure> expected = {{"temp", Value::Double((2150 + (i * 37) % 23 - 11) / 100.0)}};
    if (i != 3) expected.push_back({"count", Value::Bigint(1000 + i * i)});
    expected.push_back({"state", Value::Varchar(i % 4 == 0 ? "idle" : "busy")});
    expected.push_back({"ratio", Value::Double(i == 7 ? 0.1 + 0.2 : i / 3.0)});
    EXPECT_EQ(p.measures, expected) << i;
  }
  auto summary = DecodeBlockSummary(v1);
  ASSERT_TRUE(summary.ok());
  EXPECT_EQ(summary->columns[0].min, 21.39);
  EXPECT_EQ(summary->columns[0].max, 21.59);
}

TEST(Block, NewBlocksCarryFormatTwoAndDecimalStatistics) {
  std::vector<BlockPoint> points(360);
  double value = 50;
  for (size_t i = 0; i < points.size(); ++i) {
    value = std::round((value + (i % 7 == 0 ? 0.37 : -0.05)) * 100) / 100;
    points[i] = {kStart + static_cast<int64_t>(i) * kTenSeconds, 1,
                 {{"reading", Value::Double(value)},
                  {"noise", Value::Double(std::sqrt(static_cast<double>(i) + 0.5))}}};
  }
  auto bytes = EncodeBlock(points);
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ(static_cast<uint8_t>((*bytes)[2]), kBlockFormatVersion);
  auto summary = DecodeBlockSummary(*bytes);
  ASSERT_TRUE(summary.ok());
  double min = points[0].measures[0].value.real, max = min;
  for (const BlockPoint& p : points) {
    min = std::min(min, p.measures[0].value.real);
    max = std::max(max, p.measures[0].value.real);
  }
  EXPECT_EQ(summary->columns[0].min, min);
  EXPECT_EQ(summary->columns[0].max, max);
  EXPECT_EQ(summary->columns[1].min, std::sqrt(0.5));  // no decimal form: whole doubles
  EXPECT_EQ(summary->columns[1].max, std::sqrt(359.5));
  // Decimal statistics take a scale byte and two short varints where whole
  // doubles take 16 bytes: the same block with the decimal column scaled
  // to full precision has a header longer by at least ten bytes.
  std::vector<BlockPoint> full_precision = points;
  for (BlockPoint& p : full_precision) p.measures[0].value.real *= 1 + 1e-15;
  auto full_bytes = EncodeBlock(full_precision);
  ASSERT_TRUE(full_bytes.ok());
  EXPECT_GE(BlockHeaderBytes(*full_bytes).value().size(),
            BlockHeaderBytes(*bytes).value().size() + 10);
  auto decoded = DecodeBlock(*bytes);
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(*decoded, points);
}

TEST(Block, RefusesDecimalStatisticsWhereTheyCannotBe) {
  // Hand-built headers of one column named "n": flags, then scale 2 and
  // min, max and sum 0, then a body size of 0. Complete, so only the column's
  // type and flags decide.
  const auto header = [](char type, char flags) {
    return std::string("SB\x02\x01\x00\x00\x01\x01n", 9) + type + flags +
           std::string("\x02\x00\x00\x00\x00", 5);
  };
  EXPECT_TRUE(DecodeBlockSummary(header('\x01', '\x06')).ok());   // DOUBLE with them
  EXPECT_FALSE(DecodeBlockSummary(header('\x02', '\x06')).ok());  // BIGINT
  EXPECT_FALSE(DecodeBlockSummary(header('\x01', '\x04')).ok());  // without the stats flag
}

}  // namespace
}  // namespace strata::format
