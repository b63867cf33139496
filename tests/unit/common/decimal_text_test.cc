// SimpleDecimal against std::from_chars: where the fast path answers, the
// same double to the bit; the forms it leaves to from_chars, left.
#include "common/decimal_text.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <random>
#include <string>

#include "gtest/gtest.h"

namespace strata {
namespace {

uint64_t Bits(double d) {
  uint64_t bits = 0;
  std::memcpy(&bits, &d, sizeof d);
  return bits;
}

double FromChars(const std::string& text) {
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  EXPECT_EQ(ec, std::errc()) << text;
  EXPECT_EQ(end, text.data() + text.size()) << text;
  return value;
}

TEST(SimpleDecimalTest, AnswersAsFromCharsDoes) {
  for (const char* text : {"0", "-0", "-0.0", "0.0", "1", "-1", "12.34", "00012.50", "0.1",
                           "0.3", "99.99", "9007199254740992", "900719925474099.2",
                           "0.000000000000000001", "1234567890123456789"}) {
    std::optional<double> simple = SimpleDecimal(text);
    if (std::string(text) == "1234567890123456789") {
      EXPECT_FALSE(simple.has_value()) << "past 2^53";
      continue;
    }
    ASSERT_TRUE(simple.has_value()) << text;
    EXPECT_EQ(Bits(*simple), Bits(FromChars(text))) << text;
  }
}

TEST(SimpleDecimalTest, LeavesOtherFormsToFromChars) {
  for (const char* text : {"", "-", ".", "1.", ".5", "-.5", "+1", "1e5", "1E-3", "1.2.3", "0x10",
                           "inf", "nan", " 1", "1 ", "9007199254740993", "12345678901234567890",
                           "1.00000000000000000000000"}) {
    EXPECT_FALSE(SimpleDecimal(text).has_value()) << text;
  }
}

TEST(SimpleDecimalTest, RandomDecimalsMatchFromCharsToTheBit) {
  std::mt19937_64 random(7);
  int answered = 0;
  for (int i = 0; i < 200'000; ++i) {
    const int digits = 1 + static_cast<int>(random() % 19);
    std::string text = random() % 2 ? "-" : "";
    std::string number;
    for (int d = 0; d < digits; ++d) number += static_cast<char>('0' + random() % 10);
    const int point = static_cast<int>(random() % (digits + 1));
    if (point > 0 && point < digits) number.insert(point, ".");
    text += number;
    if (std::optional<double> simple = SimpleDecimal(text)) {
      ++answered;
      ASSERT_EQ(Bits(*simple), Bits(FromChars(text))) << text;
    }
  }
  EXPECT_GT(answered, 100'000);  // most of them take the fast path
}

}  // namespace
}  // namespace strata
