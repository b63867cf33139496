#include "common/coding.h"

#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace strata {
namespace {

TEST(CodingTest, OrderedInt64SortsNumerically) {
  const std::vector<int64_t> sorted = {std::numeric_limits<int64_t>::min(), -1000, -1, 0, 1, 255,
                                       256, std::numeric_limits<int64_t>::max()};
  for (size_t i = 1; i < sorted.size(); ++i) {
    std::string a, b;
    PutOrderedInt64BE(&a, sorted[i - 1]);
    PutOrderedInt64BE(&b, sorted[i]);
    EXPECT_LT(a, b) << sorted[i - 1] << " vs " << sorted[i];
    EXPECT_EQ(DecodeOrderedInt64BE(b.data()), sorted[i]);
  }
}

TEST(CodingTest, Fixed32BigEndianSortsNumerically) {
  std::string a, b;
  PutFixed32BE(&a, 255);
  PutFixed32BE(&b, 256);
  EXPECT_LT(a, b);
  EXPECT_EQ(DecodeFixed32BE(b.data()), 256u);
}

TEST(CodingTest, Fixed64IsBigEndianByteForByte) {
  std::string out = "x";  // appended after what is there
  PutFixed64BE(&out, 0x0102030405060708ULL);
  EXPECT_EQ(out, std::string("x\x01\x02\x03\x04\x05\x06\x07\x08"));
  for (uint64_t v : {uint64_t{0}, uint64_t{255}, uint64_t{1} << 63, ~uint64_t{0}}) {
    std::string bytes;
    PutFixed64BE(&bytes, v);
    ASSERT_EQ(bytes.size(), 8u);
    EXPECT_EQ(DecodeFixed64BE(bytes.data()), v);
  }
}

TEST(CodingTest, RoundTripsEveryValueKind) {
  struct Case {
    uint64_t varint;
    int64_t signed_varint;
    std::string text;
    double number;
  };
  const std::vector<Case> cases = {
      {0, 0, "", 0.0},
      {1, -1, "a", -0.5},
      {127, 63, std::string("with\0nul", 8), 1e300},
      {128, -64, std::string(300, 'x'), -1e-300},
      {std::numeric_limits<uint64_t>::max(), std::numeric_limits<int64_t>::min(), "last",
       std::numeric_limits<double>::max()},
      {1ull << 63, std::numeric_limits<int64_t>::max(), "z", std::numeric_limits<double>::lowest()},
  };
  for (const Case& c : cases) {
    std::string bytes;
    PutVarint64(&bytes, c.varint);
    PutVarsint64(&bytes, c.signed_varint);
    PutLengthPrefixed(&bytes, c.text);
    PutDouble(&bytes, c.number);
    Decoder in(bytes);
    uint64_t varint;
    int64_t signed_varint;
    std::string_view text;
    double number;
    ASSERT_TRUE(in.GetVarint64(&varint));
    ASSERT_TRUE(in.GetVarsint64(&signed_varint));
    ASSERT_TRUE(in.GetLengthPrefixed(&text));
    ASSERT_TRUE(in.GetDouble(&number));
    EXPECT_TRUE(in.done());
    EXPECT_EQ(varint, c.varint);
    EXPECT_EQ(signed_varint, c.signed_varint);
    EXPECT_EQ(text, c.text);
    EXPECT_EQ(number, c.number);
  }
}

TEST(CodingTest, SmallSignedValuesStaySmall) {
  std::string bytes;
  PutVarsint64(&bytes, -1);
  EXPECT_EQ(bytes.size(), 1u);
}

TEST(CodingTest, TruncatedInputFailsInsteadOfOverreading) {
  std::string bytes;
  PutLengthPrefixed(&bytes, "hello world");
  PutVarint64(&bytes, 1ull << 40);
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    Decoder in(std::string_view(bytes).substr(0, cut));
    std::string_view text;
    uint64_t v;
    EXPECT_FALSE(in.GetLengthPrefixed(&text) && in.GetVarint64(&v)) << "cut at " << cut;
  }
}

TEST(CodingTest, OverlongVarintIsRejected) {
  std::string bytes(11, '\xff');
  Decoder in(bytes);
  uint64_t v;
  EXPECT_FALSE(in.GetVarint64(&v));
}

}  // namespace
}  // namespace strata
