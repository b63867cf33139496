// What a statement shape scanned the last time (server/runner/read_sizes.h).
#include "server/runner/read_sizes.h"

#include <string>

#include "gtest/gtest.h"

namespace strata {
namespace {

TEST(ReadSizesTest, ASmallShapeIsOneWhoseLastRunScannedLittle) {
  ReadSizes sizes(100);
  EXPECT_FALSE(sizes.Small("a")) << "a shape not run yet fans out";
  sizes.Record("a", 100);
  EXPECT_TRUE(sizes.Small("a"));
  sizes.Record("a", 101);
  EXPECT_FALSE(sizes.Small("a")) << "the last run counts";
  sizes.Record("a", 0);
  EXPECT_TRUE(sizes.Small("a"));
  EXPECT_FALSE(sizes.Small("b"));
}

TEST(ReadSizesTest, ZeroRowsMeansNeverSmall) {
  ReadSizes sizes(0);
  EXPECT_FALSE(sizes.remembers());
  sizes.Record("a", 0);
  EXPECT_FALSE(sizes.Small("a"));
}

TEST(ReadSizesTest, PastItsBoundItForgetsAndLearnsAgain) {
  ReadSizes sizes(10);
  for (size_t i = 0; i < ReadSizes::kMaxShapes; ++i) sizes.Record(std::to_string(i), 1);
  EXPECT_TRUE(sizes.Small("0"));
  sizes.Record("0", 1);  // known: no room needed
  EXPECT_TRUE(sizes.Small("1"));
  sizes.Record("one more", 1);
  EXPECT_FALSE(sizes.Small("1")) << "forgotten";
  EXPECT_TRUE(sizes.Small("one more"));
}

}  // namespace
}  // namespace strata
