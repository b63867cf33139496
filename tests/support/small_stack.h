// Runs a function on a thread of its own with a stack of a given size, for
// tests of code that must stop recursing before the stack runs out.
#pragma once

#include <pthread.h>

#include <cstddef>
#include <functional>
#include <stdexcept>

namespace strata::testing {

inline void RunOnSmallStack(size_t stack_bytes, const std::function<void()>& body) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, stack_bytes);
  pthread_t thread;
  auto run = [](void* f) -> void* {
    (*static_cast<const std::function<void()>*>(f))();
    return nullptr;
  };
  const int err = pthread_create(&thread, &attr, run, const_cast<std::function<void()>*>(&body));
  pthread_attr_destroy(&attr);
  if (err != 0) throw std::runtime_error("pthread_create failed");
  pthread_join(thread, nullptr);
}

}  // namespace strata::testing
