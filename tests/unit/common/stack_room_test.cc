#include "common/stack_room.h"

#include <gtest/gtest.h>

#include <cstddef>

#include "tests/support/small_stack.h"

namespace strata {
namespace {

// Recurses `levels` times and gives the room left at the deepest level.
// The buffer keeps each frame from being folded away.
size_t RoomAfter(int levels) {
  volatile char frame[512];
  frame[0] = static_cast<char>(levels);
  if (levels == 0) return StackBytesLeft();
  return RoomAfter(levels - 1) + (frame[0] - frame[0]);
}

TEST(StackBytesLeft, IsWithinTheThreadsStackAndShrinksAsCallsNest) {
  constexpr size_t kStack = 1 << 20;
  size_t shallow = 0;
  size_t deep = 0;
  testing::RunOnSmallStack(kStack, [&] {
    shallow = StackBytesLeft();
    deep = RoomAfter(100);
  });
  EXPECT_GT(shallow, kStack / 2);
  EXPECT_LE(shallow, kStack);
  // A hundred frames of at least 512 bytes each.
  EXPECT_LE(deep + 100 * 512, shallow);
}

}  // namespace
}  // namespace strata
