// Round trips of the block codecs over the shapes time series take (random,
// constant, monotone, extremes, empty, one value), and the choices the
// encoders make where one encoding is clearly smaller.
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "gtest/gtest.h"
#include "storage/blocks/bit_stream.h"
#include "storage/blocks/block_format.h"
#include "storage/blocks/float_codec.h"
#include "storage/blocks/int_codec.h"

namespace strata::format {
namespace {

std::vector<std::vector<int64_t>> IntShapes() {
  std::mt19937_64 random(42);
  std::vector<int64_t> random_values(1000), small_walk(1000), monotone(1000), constant(500, 7);
  int64_t walk = 0;
  for (size_t i = 0; i < 1000; ++i) {
    random_values[i] = static_cast<int64_t>(random());
    walk += static_cast<int64_t>(random() % 5) - 2;
    small_walk[i] = walk;
    monotone[i] = 1'700'000'000'000'000'000 + static_cast<int64_t>(i) * 10'000'000'000;
  }
  const int64_t min = std::numeric_limits<int64_t>::min();
  const int64_t max = std::numeric_limits<int64_t>::max();
  return {{}, {0}, {min}, {max}, {min, max, min, 0, max}, constant, random_values, small_walk,
          monotone, Deltas(monotone)};
}

TEST(IntCodec, RoundTripsEveryShapeAndTransform) {
  for (const auto& values : IntShapes()) {
    for (bool delta : {false, true}) {
      std::string bytes;
      EncodeInts(delta ? Deltas(values) : values, &bytes);
      bytes += "tail";  // the decoder must stop where the sequence ends
      std::string_view in = bytes;
      std::vector<int64_t> decoded;
      ASSERT_TRUE(DecodeInts(&in, values.size(), &decoded)) << values.size();
      if (delta) UndoDeltas(&decoded);
      EXPECT_EQ(decoded, values);
      EXPECT_EQ(in, "tail");
    }
  }
}

TEST(IntCodec, PicksTheSmallerEncoding) {
  std::string constant;
  EncodeInts(std::vector<int64_t>(10'000, 3), &constant);
  EXPECT_EQ(static_cast<IntEncoding>(constant[0]), IntEncoding::kRunLength);
  EXPECT_LE(constant.size(), 5u);

  std::vector<int64_t> small(1000);
  for (size_t i = 0; i < small.size(); ++i) small[i] = static_cast<int64_t>(i % 3) - 1;
  std::string packed;
  EncodeInts(small, &packed);
  EXPECT_EQ(static_cast<IntEncoding>(packed[0]), IntEncoding::kBitPacked);
  EXPECT_EQ(packed.size(), 3u + 999 * 2 / 8 + 1);  // two bits a value
}

TEST(IntCodec, RefusesTruncatedAndOverlongInput) {
  std::string bytes;
  EncodeInts({1, 2, 3, 1000, 5}, &bytes);
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    std::string_view in(bytes.data(), cut);
    std::vector<int64_t> decoded;
    EXPECT_FALSE(DecodeInts(&in, 5, &decoded)) << "cut at " << cut;
  }
  // A run claiming more values than the sequence has.
  std::string run_too_long = {static_cast<char>(IntEncoding::kRunLength), 2, 10};
  std::string_view in = run_too_long;
  std::vector<int64_t> decoded;
  EXPECT_FALSE(DecodeInts(&in, 3, &decoded));
  std::string bad_width = {static_cast<char>(IntEncoding::kBitPacked), 0, 65};
  in = bad_width;
  EXPECT_FALSE(DecodeInts(&in, 2, &decoded));
  std::string unknown = {9};
  in = unknown;
  EXPECT_FALSE(DecodeInts(&in, 1, &decoded));
}

uint64_t Bits(double v) {
  uint64_t b;
  std::memcpy(&b, &v, sizeof(b));
  return b;
}

std::vector<std::vector<double>> DoubleShapes() {
  std::mt19937_64 random(7);
  std::uniform_real_distribution<double> step(-1.0, 1.0);
  std::vector<double> walk(1000), two_decimals(1000), random_bits(300), constant(400, 21.5);
  double w = 50;
  for (size_t i = 0; i < walk.size(); ++i) {
    w = std::clamp(w + step(random), 0.0, 100.0);
    walk[i] = w;
    two_decimals[i] = std::round(w * 100) / 100;
  }
  for (double& d : random_bits) {
    uint64_t b = random();
    std::memcpy(&d, &b, sizeof(d));  // NaN payloads and denormals included
  }
  const double inf = std::numeric_limits<double>::infinity();
  return {{},
          {0.0},
          {-0.0, 0.0, -0.0},
          {std::numeric_limits<double>::max(), std::numeric_limits<double>::lowest(),
           std::numeric_limits<double>::denorm_min(), inf, -inf, std::nan("")},
          constant, walk, two_decimals, random_bits,
          {1e15, 1e15 + 1, 9007199254740991.0, 0.1, 0.2, 0.30000000000000004}};
}

TEST(FloatCodec, RoundTripsEveryShapeToTheBit) {
  for (const auto& values : DoubleShapes()) {
    std::string bytes;
    EncodeDoubles(values, &bytes);
    bytes += "tail";
    std::string_view in = bytes;
    std::vector<double> decoded;
    ASSERT_TRUE(DecodeDoubles(&in, values.size(), &decoded));
    ASSERT_EQ(decoded.size(), values.size());
    for (size_t i = 0; i < values.size(); ++i) {
      EXPECT_EQ(Bits(decoded[i]), Bits(values[i])) << i;
    }
    EXPECT_EQ(in, "tail");
  }
}

TEST(FloatCodec, FixedDecimalsUseTheDecimalForm) {
  const auto shapes = DoubleShapes();
  const std::vector<double>& two_decimals = shapes[6];
  std::string bytes;
  EncodeDoubles(two_decimals, &bytes);
  EXPECT_EQ(static_cast<DoubleEncoding>(bytes[0]), DoubleEncoding::kDecimal);
  EXPECT_EQ(bytes[1], 2);  // the scale
  // A step of at most ±1.00 is at most ±100 hundredths: 8 bits a value.
  EXPECT_LE(bytes.size(), 8u + 999);

  std::string constant;
  EncodeDoubles(shapes[4], &constant);
  EXPECT_LE(constant.size(), 12u);
}

TEST(FloatCodec, RefusesTruncatedInput) {
  std::string bytes;
  EncodeDoubles(DoubleShapes()[5], &bytes);
  for (size_t cut : {size_t{0}, size_t{1}, size_t{8}, bytes.size() / 2, bytes.size() - 1}) {
    std::string_view in(bytes.data(), cut);
    std::vector<double> decoded;
    EXPECT_FALSE(DecodeDoubles(&in, 1000, &decoded)) << "cut at " << cut;
  }
}

TEST(BitStream, WritesAndReadsAnyWidth) {
  std::string bytes;
  BitWriter writer(&bytes);
  for (int width = 1; width <= 64; ++width) writer.Write(~uint64_t{0} >> (64 - width), width);
  writer.WriteBit(false);
  writer.Flush();
  BitReader reader(bytes);
  for (int width = 1; width <= 64; ++width) {
    uint64_t v;
    ASSERT_TRUE(reader.Read(width, &v));
    EXPECT_EQ(v, ~uint64_t{0} >> (64 - width)) << width;
  }
  bool bit;
  ASSERT_TRUE(reader.ReadBit(&bit));
  EXPECT_FALSE(bit);
  uint64_t v;
  EXPECT_FALSE(reader.Read(64, &v));
}

// The writer fills a 64-bit word before it appends: its bytes must be those
// of writing the same values a bit at a time, most significant bit first,
// for random widths (0 to 64) and values, and with bits above the width set.
TEST(BitStream, WritesTheBytesOfItsBitsInOrder) {
  std::mt19937_64 random(7);
  for (int round = 0; round < 50; ++round) {
    std::string bytes;
    BitWriter writer(&bytes);
    std::vector<bool> bits;
    const int writes = static_cast<int>(random() % 300);
    for (int i = 0; i < writes; ++i) {
      const int width = static_cast<int>(random() % 65);
      const uint64_t value = random();
      writer.Write(value, width);
      for (int b = width - 1; b >= 0; --b) bits.push_back((value >> b) & 1);
    }
    writer.Flush();
    std::string expected((bits.size() + 7) / 8, '\0');
    for (size_t b = 0; b < bits.size(); ++b) {
      if (bits[b]) expected[b / 8] = static_cast<char>(expected[b / 8] | (0x80 >> (b % 8)));
    }
    ASSERT_EQ(bytes, expected) << "round " << round;
  }
}

}  // namespace
}  // namespace strata::format
