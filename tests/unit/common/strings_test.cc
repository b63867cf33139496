#include "common/strings.h"

#include <string>

#include "gtest/gtest.h"

namespace strata {
namespace {

// A zero byte at every position of strings that span whole words, a tail and
// both, and bytes that a word-at-a-time test could mistake for zero (0x80,
// 0x01 next to 0xff borrows).
TEST(StringsTest, HasZeroByteFindsOneAnywhere) {
  EXPECT_FALSE(HasZeroByte(""));
  for (size_t size : {1, 7, 8, 9, 16, 23}) {
    const std::string clean(size, 'a');
    EXPECT_FALSE(HasZeroByte(clean)) << size;
    std::string tricky;
    for (size_t i = 0; i < size; ++i) tricky.push_back("\x80\x01\xff\x7f"[i % 4]);
    EXPECT_FALSE(HasZeroByte(tricky)) << size;
    for (size_t at = 0; at < size; ++at) {
      std::string with_zero = tricky;
      with_zero[at] = '\0';
      EXPECT_TRUE(HasZeroByte(with_zero)) << size << " at " << at;
    }
  }
}

}  // namespace
}  // namespace strata
