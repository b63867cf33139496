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

TEST(CodingTest, Fixed32DecodesBigEndian) {
  EXPECT_EQ(DecodeFixed32BE("\x01\x02\x03\x04"), 0x01020304u);
  EXPECT_EQ(DecodeFixed32BE("\xff\x00\x00\x80"), 0xff000080u);
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

// The pointer forms, in one AppendBounded whose bound is the most they can
// write, leave the bytes the Put forms append, and nothing past them.
TEST(CodingTest, PointerFormsWriteWhatThePutFormsAppend) {
  const uint64_t varints[] = {0, 127, 128, 1ull << 63, std::numeric_limits<uint64_t>::max()};
  const int64_t signed_varints[] = {0, -1, 63, -64, std::numeric_limits<int64_t>::min()};
  const std::string texts[] = {"", "a", std::string(300, 'x'), std::string("nul\0", 4), "z"};
  for (int i = 0; i < 5; ++i) {
    SCOPED_TRACE(i);
    std::string put = "prefix", encoded = "prefix";
    PutVarint64(&put, varints[i]);
    PutVarsint64(&put, signed_varints[i]);
    PutLengthPrefixed(&put, texts[i]);
    PutDouble(&put, -0.25 * i);
    PutFixed64BE(&put, varints[i]);
    PutOrderedInt64BE(&put, signed_varints[i]);
    const size_t bound = 3 * kMaxVarint64Bytes + texts[i].size() + 3 * 8;
    AppendBounded(&encoded, bound, [&](char* p) {
      p = EncodeVarint64(p, varints[i]);
      p = EncodeVarsint64(p, signed_varints[i]);
      p = EncodeLengthPrefixed(p, texts[i]);
      p = EncodeDouble(p, -0.25 * i);
      p = EncodeFixed64BE(p, varints[i]);
      return EncodeOrderedInt64BE(p, signed_varints[i]);
    });
    EXPECT_EQ(encoded, put);
  }
  std::string empty_view;
  AppendBounded(&empty_view, kMaxVarint64Bytes,
                [](char* p) { return EncodeLengthPrefixed(p, std::string_view()); });
  EXPECT_EQ(empty_view, std::string(1, '\0'));
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
