// Integer arithmetic that reports overflow instead of wrapping or trapping.
// BIGINT, TIMESTAMP and INTERVAL are 64-bit integers; like Presto (and so
// Timestream), a result that does not fit is an error of the query, never a
// wrapped value, and INT64_MIN / -1 (which traps the CPU with SIGFPE) is one
// of those overflows. Integer division or remainder by zero fails the query
// too, with Presto's message (kDivisionByZero); the callers check y == 0
// before CheckedIntegerOp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "query/base/datum.h"

namespace strata::query {

// Presto's error for an integer division or remainder by zero.
inline constexpr std::string_view kDivisionByZero = "Division by zero";

// x op y for op in + - * / %; nullopt when the result does not fit.
// REQUIRES: y != 0 for / and %.
inline std::optional<int64_t> CheckedIntegerOp(char op, int64_t x, int64_t y) {
  int64_t r = 0;
  switch (op) {
    case '+':
      if (__builtin_add_overflow(x, y, &r)) return std::nullopt;
      return r;
    case '-':
      if (__builtin_sub_overflow(x, y, &r)) return std::nullopt;
      return r;
    case '*':
      if (__builtin_mul_overflow(x, y, &r)) return std::nullopt;
      return r;
    case '/':
      if (x == INT64_MIN && y == -1) return std::nullopt;
      return x / y;
    case '%':
      if (y == -1) return 0;  // the remainder is 0; INT64_MIN % -1 traps in hardware
      return x % y;
  }
  return std::nullopt;
}

// a / b rounded toward negative infinity (the bin, day or second a negative
// time falls in). REQUIRES: b > 0.
inline int64_t FloorDiv(int64_t a, int64_t b) { return a / b - (a % b < 0 ? 1 : 0); }

// -x; nullopt for INT64_MIN.
inline std::optional<int64_t> CheckedNegate(int64_t x) {
  if (x == INT64_MIN) return std::nullopt;
  return -x;
}

// The query error for an overflow of `op` on `type` values, as Presto words
// it: "bigint multiplication overflow: 9223372036854775807 * 2".
std::string OverflowMessage(DataType type, char op, int64_t x, int64_t y);
std::string NegationOverflowMessage(DataType type, std::string_view function, int64_t x);

}  // namespace strata::query
