// Round trips of the block codecs over the shapes time series take (random,
// constant, monotone, extremes, empty, one value), and the choices the
// encoders make where one encoding is clearly smaller.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "common/coding.h"
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

// Positions a scan asks for (int_codec.h, NeededValues): none, the first, the last, every
// seventh, a run in the middle, all.
std::vector<NeededValues> Masks(size_t count) {
  std::vector<NeededValues> masks(6);
  if (count == 0) return masks;
  masks[1] = {0};
  masks[2] = {static_cast<uint32_t>(count - 1)};
  for (size_t i = 0; i < count; i += 7) masks[3].push_back(static_cast<uint32_t>(i));
  for (size_t i = count / 3; i < count / 3 + 5 && i < count; ++i) {
    masks[4].push_back(static_cast<uint32_t>(i));
  }
  for (size_t i = 0; i < count; ++i) masks[5].push_back(static_cast<uint32_t>(i));
  return masks;
}

bool Names(const NeededValues& needed, size_t i) {
  return std::binary_search(needed.begin(), needed.end(), static_cast<uint32_t>(i));
}

// Decoding with a mask gives the needed values exactly and ends where the sequence does; a
// range-packed sequence leaves the groups holding no needed value undecoded (0).
TEST(IntCodec, DecodesTheNeededValues) {
  for (const auto& values : IntShapes()) {
    for (bool delta : {false, true}) {
      std::string bytes;
      const std::vector<int64_t> stored = delta ? Deltas(values) : values;
      EncodeInts(stored, &bytes);
      const bool range_packed = static_cast<IntEncoding>(bytes[0]) == IntEncoding::kRangePacked;
      bytes += "tail";
      for (const NeededValues& needed : Masks(values.size())) {
        std::string_view in = bytes;
        std::vector<int64_t> decoded;
        ASSERT_TRUE(DecodeInts(&in, values.size(), &decoded, &needed)) << values.size();
        ASSERT_EQ(decoded.size(), stored.size());
        EXPECT_EQ(in, "tail");
        size_t untouched = 0;
        for (size_t i = 0; i < stored.size(); ++i) {
          if (Names(needed, i)) {
            EXPECT_EQ(decoded[i], stored[i]) << i;
          } else if (decoded[i] != stored[i]) {
            EXPECT_EQ(decoded[i], 0) << i;
            ++untouched;
          }
        }
        const bool one_value_after_the_first =  // packed in no bits: nothing to skip
            stored.size() > 1 && std::all_of(stored.begin() + 1, stored.end(),
                                             [&](int64_t v) { return v == stored[1]; });
        if (range_packed && stored.size() > 100 && !one_value_after_the_first &&
            needed == NeededValues{0}) {
          EXPECT_GT(untouched, 90u) << "the groups without a needed value were decoded";
        }
      }
    }
  }
  // A list naming a position past the count is ignored: every value is decoded.
  std::string bytes;
  const std::vector<int64_t> walk = IntShapes()[7];
  EncodeInts(walk, &bytes);
  ASSERT_EQ(static_cast<IntEncoding>(bytes[0]), IntEncoding::kRangePacked);
  std::string_view in = bytes;
  std::vector<int64_t> decoded;
  const NeededValues past_the_end = {1, static_cast<uint32_t>(walk.size())};
  ASSERT_TRUE(DecodeInts(&in, walk.size(), &decoded, &past_the_end));
  EXPECT_EQ(decoded, walk);
}

TEST(IntCodec, PicksTheSmallerEncoding) {
  std::string constant;
  EncodeInts(std::vector<int64_t>(10'000, 3), &constant);
  EXPECT_EQ(static_cast<IntEncoding>(constant[0]), IntEncoding::kRunLength);
  EXPECT_LE(constant.size(), 5u);

  // -2..1 zig-zag to 0..3: two bits bit-packed, as range-packed but for
  // the range's extra byte.
  std::vector<int64_t> small(1000);
  for (size_t i = 0; i < small.size(); ++i) small[i] = static_cast<int64_t>(i % 4) - 2;
  std::string packed;
  EncodeInts(small, &packed);
  EXPECT_EQ(static_cast<IntEncoding>(packed[0]), IntEncoding::kBitPacked);
  EXPECT_EQ(packed.size(), 3u + 999 * 2 / 8 + 1);  // two bits a value
}

// Range packing: a group of digits is one number below 2^63, divided by the
// base with a multiplication; the division must be exact for every such
// number, and a group must cost within 1/digits bit of log2(base) a value.
TEST(RangePacking, DividesExactlyAndWastesLessThanABitAGroup) {
  std::mt19937_64 random(3);
  for (uint64_t base : {uint64_t{2}, uint64_t{3}, uint64_t{7}, uint64_t{10}, uint64_t{347},
                        uint64_t{1000}, uint64_t{65537}, (uint64_t{1} << 31) - 1,
                        uint64_t{1} << 32, (uint64_t{1} << 61) + 1, kMaxRangePackedSpan}) {
    const RangePacking packing(base);
    const double bits = std::log2(static_cast<double>(base));
    const auto width = static_cast<double>(packing.Width(packing.digits()));
    EXPECT_LE(width, 63) << base;
    EXPECT_LE(width / packing.digits(), bits + 1.0 / packing.digits() + 1e-9) << base;
    std::vector<uint64_t> numbers = {0, 1, base - 1, base, base + 1, (uint64_t{1} << 63) - 1};
    for (int i = 0; i < 2000; ++i) numbers.push_back(random() >> 1);
    for (int i = 0; i < 200; ++i) {
      const uint64_t q = (random() >> 1) / base;
      numbers.push_back(q * base);
      if (q * base > 0) numbers.push_back(q * base - 1);
    }
    for (uint64_t a : numbers) {
      ASSERT_EQ(packing.DividePower(a, 1), a / base) << a << " / " << base;
    }
    // Each digit of a group has its own quotient: ⌊a / base^j⌋ for every j of a group.
    uint64_t power = 1;
    for (size_t j = 1; j <= packing.digits(); ++j) {
      power *= base;
      ASSERT_EQ(packing.Power(j), power) << base << "^" << j;
      std::vector<uint64_t> around = numbers;
      for (uint64_t q : {uint64_t{1}, uint64_t{2}, ((uint64_t{1} << 63) - 1) / power}) {
        around.push_back(q * power);
        around.push_back(q * power - 1);
      }
      for (uint64_t a : around) {
        ASSERT_EQ(packing.DividePower(a, j), a / power) << a << " / " << base << "^" << j;
      }
    }
  }
  // The peer run's steps: 347 values (8.44 bits), two to 17 bits; the
  // larger groups waste more (347^7 needs 60 bits).
  const RangePacking steps(347);
  EXPECT_EQ(steps.digits(), 2u);
  EXPECT_EQ(steps.Width(2), 17);
  EXPECT_EQ(steps.PackedBits(9), 4u * 17 + 9);
}

TEST(IntCodec, RangePacksARangeThatIsNotAPowerOfTwo) {
  std::mt19937_64 random(5);
  std::vector<int64_t> steps(3600);
  for (int64_t& s : steps) s = static_cast<int64_t>(random() % 347) - 173;
  std::string bytes;
  EncodeInts(steps, &bytes);
  EXPECT_EQ(static_cast<IntEncoding>(bytes[0]), IntEncoding::kRangePacked);
  // 8.5 bits a value where bit packing takes 9.
  EXPECT_LE(bytes.size(), 10 + 3599 * 17 / 2 / 8 + 1);
  std::string_view in = bytes;
  std::vector<int64_t> decoded;
  ASSERT_TRUE(DecodeInts(&in, steps.size(), &decoded));
  EXPECT_EQ(decoded, steps);
  EXPECT_TRUE(in.empty());

  // An offset range far from zero (zig-zag bit packing would need the
  // magnitude's bits), the widest span offered, and one value repeated after
  // a different first.
  const int64_t big = int64_t{1} << 61;
  for (const std::vector<int64_t>& values :
       std::vector<std::vector<int64_t>>{{5, -1000, -990, -995, -1000, -991},
                                         {0, -big, big - 1, 0, -big, 17},
                                         {9, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4}}) {
    std::string encoded;
    EncodeInts(values, &encoded);
    encoded += "tail";
    std::string_view rest = encoded;
    ASSERT_TRUE(DecodeInts(&rest, values.size(), &decoded));
    EXPECT_EQ(decoded, values);
    EXPECT_EQ(rest, "tail");
  }
}

// The decoder unrolls each group size (1 to 8 digits) apart: every size, with every
// length of the last, shorter group, decoded whole and for a scan's positions.
TEST(IntCodec, RangePacksEveryGroupSize) {
  // The smallest base whose groups hold 1, 2, ... 8 digits.
  const std::vector<std::pair<uint64_t, size_t>> bases = {{2, 1}, {11, 2}, {5, 3},  {19, 4},
                                                          {3, 5}, {7, 6},  {13, 7}, {17, 8}};
  std::mt19937_64 random(11);
  for (const auto& [base, digits] : bases) {
    ASSERT_EQ(RangePacking(base).digits(), digits) << base;
    for (size_t count = 1; count <= 2 * digits + 2; ++count) {
      // Far from zero, so bit packing's zig-zag would need more bits; both ends of the range.
      const int64_t low = -1'000'000;
      std::vector<int64_t> values(count);
      values[0] = 5;
      for (size_t i = 1; i < count; ++i) values[i] = low + static_cast<int64_t>(random() % base);
      if (count > 2) values[1] = low, values[2] = low + static_cast<int64_t>(base - 1);
      std::string bytes;
      EncodeInts(values, &bytes);
      if (count > 2) {
        ASSERT_EQ(static_cast<IntEncoding>(bytes[0]), IntEncoding::kRangePacked) << base;
      }
      std::string_view in = bytes;
      std::vector<int64_t> decoded;
      ASSERT_TRUE(DecodeInts(&in, count, &decoded)) << base << " " << count;
      EXPECT_EQ(decoded, values) << base << " " << count;
      EXPECT_TRUE(in.empty());
      for (const NeededValues& needed : Masks(count)) {
        in = bytes;
        ASSERT_TRUE(DecodeInts(&in, count, &decoded, &needed)) << base << " " << count;
        for (uint32_t p : needed) EXPECT_EQ(decoded[p], values[p]) << base << " " << count;
      }
    }
  }
}

TEST(IntCodec, RefusesMalformedRangePacking) {
  std::vector<int64_t> decoded;
  const char kRange = static_cast<char>(IntEncoding::kRangePacked);
  // first 0, low 0, span 2 (base 3, 39 digits a group of 62 bits); one
  // group of two digits (4 bits) whose value 9 is 3², a third digit.
  std::string digit_past_base = {kRange, 0, 0, 2, static_cast<char>(0x90)};
  std::string_view in = digit_past_base;
  EXPECT_FALSE(DecodeInts(&in, 3, &decoded));
  // A full group too: base 3 packs five digits in 8 bits; 255 is past 3^5 = 243.
  std::string full_group_past_base = {kRange, 0, 0, 2, static_cast<char>(0xFF)};
  in = full_group_past_base;
  EXPECT_FALSE(DecodeInts(&in, 6, &decoded));
  std::string full_group_at_most = {kRange, 0, 0, 2, static_cast<char>(242)};
  in = full_group_at_most;
  ASSERT_TRUE(DecodeInts(&in, 6, &decoded));
  EXPECT_EQ(decoded, (std::vector<int64_t>{0, 2, 2, 2, 2, 2}));  // 242 = 3^5 − 1
  std::string ok = {kRange, 0, 0, 2, static_cast<char>(0x80)};  // 8 = 2 + 2·3
  in = ok;
  ASSERT_TRUE(DecodeInts(&in, 3, &decoded));
  EXPECT_EQ(decoded, (std::vector<int64_t>{0, 2, 2}));
  // A span of 2^62 or more is never written.
  std::string span_too_wide = {kRange, 0, 0};
  PutVarint64(&span_too_wide, kMaxRangePackedSpan);
  span_too_wide += std::string(16, '\0');
  in = span_too_wide;
  EXPECT_FALSE(DecodeInts(&in, 2, &decoded));
  // Fewer bytes than the count needs, refused before allocating for it.
  std::string short_input = {kRange, 0, 0, 2, 0};
  in = short_input;
  EXPECT_FALSE(DecodeInts(&in, 4'000'000, &decoded));
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

// The decimal forms with a mask give the needed values to the bit, whichever form the
// values took: plain or delta-coded integers, with exceptions, Gorilla.
TEST(FloatCodec, DecodesTheNeededValuesToTheBit) {
  std::vector<std::vector<double>> shapes = DoubleShapes();
  std::mt19937_64 random(11);
  std::vector<double> uniform(1000);  // two decimals, no trend: plain integers, range-packed
  for (double& v : uniform) v = static_cast<double>(random() % 10001) / 100;
  shapes.push_back(uniform);
  std::vector<double> with_exceptions = uniform;
  with_exceptions[5] = std::nan("");
  with_exceptions[500] = 1.0 / 3;
  shapes.push_back(with_exceptions);
  for (const auto& values : shapes) {
    std::string bytes;
    EncodeDoubles(values, &bytes);
    bytes += "tail";
    for (const NeededValues& needed : Masks(values.size())) {
      std::string_view in = bytes;
      std::vector<double> decoded;
      ASSERT_TRUE(DecodeDoubles(&in, values.size(), &decoded, &needed));
      ASSERT_EQ(decoded.size(), values.size());
      EXPECT_EQ(in, "tail");
      for (size_t i = 0; i < values.size(); ++i) {
        if (Names(needed, i)) EXPECT_EQ(Bits(decoded[i]), Bits(values[i])) << i;
      }
    }
  }
  std::string uniform_bytes;
  EncodeDoubles(uniform, &uniform_bytes);
  ASSERT_EQ(static_cast<DoubleEncoding>(uniform_bytes[0]), DoubleEncoding::kAlp);
  EXPECT_EQ(uniform_bytes[1] & kAlpDeltas, 0) << "the plain form, whose groups can be skipped";
}

TEST(FloatCodec, FixedDecimalsUseTheDecimalForm) {
  const auto shapes = DoubleShapes();
  const std::vector<double>& two_decimals = shapes[6];
  std::string bytes;
  EncodeDoubles(two_decimals, &bytes);
  EXPECT_EQ(static_cast<DoubleEncoding>(bytes[0]), DoubleEncoding::kAlp);
  EXPECT_EQ(bytes[1], 2 | kAlpDeltas);  // the scale, delta-coded, no exceptions
  // A step of at most ±1.00 is at most ±100 hundredths: 8 bits a value.
  EXPECT_LE(bytes.size(), 8u + 999);

  std::string constant;
  EncodeDoubles(shapes[4], &constant);
  EXPECT_LE(constant.size(), 12u);
}

std::vector<double> Decode(const std::string& bytes, size_t count) {
  std::string_view in = bytes;
  std::vector<double> decoded;
  EXPECT_TRUE(DecodeDoubles(&in, count, &decoded));
  EXPECT_TRUE(in.empty());
  return decoded;
}

// A NaN, an infinity, -0.0 and a full-precision value among two-decimal
// readings: stored whole beside the integers instead of sending the whole
// block to Gorilla, each costing its 8 bytes and a position.
TEST(FloatCodec, ValuesWithoutTheDecimalFormAreExceptions) {
  std::vector<double> values = DoubleShapes()[6];
  std::string clean;
  EncodeDoubles(values, &clean);
  const std::vector<size_t> positions = {0, 17, 18, 500, 999};
  const std::vector<double> odd = {std::nan(""), std::numeric_limits<double>::infinity(), -0.0,
                                   M_PI, 0.1 + 0.2};
  for (size_t i = 0; i < positions.size(); ++i) values[positions[i]] = odd[i];
  std::string bytes;
  EncodeDoubles(values, &bytes);
  EXPECT_EQ(static_cast<DoubleEncoding>(bytes[0]), DoubleEncoding::kAlp);
  EXPECT_EQ(bytes[1], 2 | kAlpDeltas | kAlpExceptions);
  // (Each exception's two neighbours' deltas span two steps: a bit more a value.)
  EXPECT_LE(bytes.size(), clean.size() + 5 * 8 + 30);
  const std::vector<double> decoded = Decode(bytes, values.size());
  ASSERT_EQ(decoded.size(), values.size());
  for (size_t i = 0; i < values.size(); ++i) EXPECT_EQ(Bits(decoded[i]), Bits(values[i])) << i;

  // Levels that jump around a range (no walk): stored plain, not delta-coded.
  std::mt19937_64 random(9);
  std::vector<double> levels(500);
  for (double& v : levels) v = static_cast<double>(random() % 1000) / 10;
  std::string plain;
  EncodeDoubles(levels, &plain);
  EXPECT_EQ(plain[1], 1);  // scale 1, plain
  EXPECT_EQ(Decode(plain, levels.size()), levels);
}

// Blocks written before the decimal form had exceptions keep reading.
TEST(FloatCodec, DecodesTheFormatOneDecimalForm) {
  std::string bytes = {static_cast<char>(DoubleEncoding::kDecimal), 2};
  EncodeInts(Deltas({2150, 2161, 2139, 2139}), &bytes);
  EXPECT_EQ(Decode(bytes, 4), (std::vector<double>{21.5, 21.61, 21.39, 21.39}));
}

TEST(FloatCodec, RefusesMalformedExceptions) {
  const char kAlpByte = static_cast<char>(DoubleEncoding::kAlp);
  const auto refused = [](const std::string& bytes, size_t count) {
    std::string_view in = bytes;
    std::vector<double> decoded;
    return !DecodeDoubles(&in, count, &decoded);
  };
  // Three values at scale 0, all 7 (run-length), exceptions at `positions`.
  const auto with_exceptions = [&](std::vector<int64_t> positions, int head_extra = 0) {
    std::string bytes = {kAlpByte, static_cast<char>(kAlpExceptions | head_extra)};
    PutVarint64(&bytes, positions.size());
    EncodeInts({7, 7, 7}, &bytes);
    EncodeInts(Deltas(positions), &bytes);
    for (size_t i = 0; i < positions.size(); ++i) PutDouble(&bytes, 0.5);
    return bytes;
  };
  EXPECT_FALSE(refused(with_exceptions({0, 2}), 3));
  EXPECT_TRUE(refused(with_exceptions({2, 1}), 3));     // not increasing
  EXPECT_TRUE(refused(with_exceptions({1, 1}), 3));     // twice
  EXPECT_TRUE(refused(with_exceptions({0, 3}), 3));     // past the block
  EXPECT_TRUE(refused(with_exceptions({0, 1, 2, 0}), 3));  // more than the values
  EXPECT_TRUE(refused(with_exceptions({0}, 0x40), 3));  // an unknown flag
  EXPECT_TRUE(refused(with_exceptions({0}, 13), 3));    // scale past 12
  std::string cut = with_exceptions({0, 2});
  cut.pop_back();
  EXPECT_TRUE(refused(cut, 3));
  std::string zero = {kAlpByte, static_cast<char>(kAlpExceptions), 0};
  EncodeInts({7, 7, 7}, &zero);
  EXPECT_TRUE(refused(zero, 3));  // the flag with no exception
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
