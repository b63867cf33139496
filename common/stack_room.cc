#include "common/stack_room.h"

#include <pthread.h>

#include <cstdint>
#include <limits>

namespace strata {
namespace {

// The lowest address of this thread's stack, or 0 when unknown.
uintptr_t ReadStackLow() {
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) != 0) return 0;
  void* low = nullptr;
  size_t size = 0;
  const int err = pthread_attr_getstack(&attr, &low, &size);
  pthread_attr_destroy(&attr);
  return err == 0 ? reinterpret_cast<uintptr_t>(low) : 0;
}

}  // namespace

size_t StackBytesLeft() {
  thread_local const uintptr_t low = ReadStackLow();
  const auto here = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  if (low == 0 || here < low) return std::numeric_limits<size_t>::max();
  return here - low;
}

}  // namespace strata
