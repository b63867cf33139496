// DOUBLE columns. The smallest of these is written (block_format.h,
// DoubleEncoding): Gorilla's XOR with the previous value (Pelkonen et al.,
// VLDB 2015), good for slowly moving full-precision values, and a decimal
// form for values that are integers over a power of ten (prices, readings
// with fixed decimals, percentages) after ALP (Afroozeh et al., SIGMOD 2024):
// the scale that makes most values integers exactly is found by trying the
// block's values, those become integer sequences (plain or delta-coded,
// then run-length, bit- or range-packed: int_codec.h), and the few that are
// not (a NaN, a full-precision outlier) are stored whole beside them. Every
// form is lossless to the bit, NaN, -0.0 and infinities included.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "storage/blocks/int_codec.h"

namespace strata::format {

void EncodeDoubles(const std::vector<double>& values, std::string* out);
// Reads exactly `count` values from the front of `*in` and advances it.
// False on truncated or malformed input. With `needed` (int_codec.h), the values it does
// not name may be left 0: the decimal forms skip their conversion, and their integers'
// range-packed groups holding none of them when not delta-coded.
bool DecodeDoubles(std::string_view* in, size_t count, std::vector<double>* values,
                   const NeededValues* needed = nullptr);

// The decimal form of one value. Scaled: the integer r with
// Unscaled(r, k) == v to the bit (the decoders divide, so the check divides
// too), if one exists below 2^53 in magnitude (past it not every integer is
// a double); -0.0, NaN and infinities have none. SmallestScale: the least k
// (0..kMaxDecimalScale) with one, or kMaxDecimalScale + 1.
std::optional<int64_t> Scaled(double v, int k);
double Unscaled(int64_t r, int k);
int SmallestScale(double v);

}  // namespace strata::format
