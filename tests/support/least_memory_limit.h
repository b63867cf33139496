// The least memory limit under which a query runs, found by bisection (to 1 KiB, from 1 GiB):
// what the query memory tests compare to tell what a query is charged.
#pragma once

#include <cstdint>
#include <functional>

#include "absl/status/status.h"
#include "gtest/gtest.h"

namespace strata::testing {

// `run(limit)` runs the query under `limit` bytes of query memory.
inline int64_t LeastMemoryLimit(const std::function<absl::Status(int64_t)>& run) {
  int64_t fails = 0, runs = int64_t{1} << 30;
  const absl::Status ran = run(runs);
  EXPECT_TRUE(ran.ok()) << ran;
  while (runs - fails > 1024) {
    const int64_t mid = fails + (runs - fails) / 2;
    (run(mid).ok() ? runs : fails) = mid;
  }
  return runs;
}

}  // namespace strata::testing
