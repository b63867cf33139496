// Decimal text to double without the general reader, for the forms loaders
// send by the million ("12.34", "-0.5", "100"): digits with at most one point,
// read as an integer and divided by a power of ten. When the integer needs at
// most 53 bits and the power at most 10^22, both are exact doubles and one IEEE
// division rounds correctly: the result is the one std::from_chars gives
// (Clinger's fast path). std::from_chars was ~10 % of `strata import`'s CPU on
// line protocol (ten values a row).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace strata {

// The value of `text` when it is [-]digits[.digits] within the fast path's
// bounds; nullopt for anything else (exponents, a sign of '+', a bare point,
// too many digits), which the caller reads with std::from_chars.
inline std::optional<double> SimpleDecimal(std::string_view text) {
  static constexpr double kPowersOfTen[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                            1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                            1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  const char* p = text.data();
  const char* end = p + text.size();
  const bool negative = p < end && *p == '-';
  if (negative) ++p;
  uint64_t mantissa = 0;
  int digits = 0;           // all of them, leading zeros too: at most 19 fit uint64_t
  int fraction = 0;         // digits after the point
  bool point = false;
  const char* first_digit = p;
  for (; p < end; ++p) {
    const unsigned digit = static_cast<unsigned char>(*p) - '0';
    if (digit < 10) {
      mantissa = mantissa * 10 + digit;
      ++digits;
      fraction += point;
    } else if (*p == '.' && !point) {
      point = true;
    } else {
      return std::nullopt;
    }
  }
  // A digit on each side of a point (from_chars takes "1." and ".5": left to it).
  if (digits == 0 || (point && (fraction == 0 || *first_digit == '.'))) return std::nullopt;
  if (digits > 19 || mantissa > (uint64_t{1} << 53) || fraction > 22) return std::nullopt;
  const double value = static_cast<double>(mantissa) / kPowersOfTen[fraction];
  return negative ? -value : value;
}

}  // namespace strata
