// DOUBLE columns. Two encodings, the smaller one written (block_format.h,
// DoubleEncoding): Gorilla's XOR with the previous value (Pelkonen et al.,
// VLDB 2015), good for slowly moving full-precision values, and a decimal
// form for values that are integers over a power of ten (prices, readings
// with fixed decimals, percentages): those become delta-coded integers, a
// few bits each. Both are lossless to the bit, NaN and infinities included.
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace strata::format {

void EncodeDoubles(const std::vector<double>& values, std::string* out);
// Reads exactly `count` values from the front of `*in` and advances it.
// False on truncated or malformed input.
bool DecodeDoubles(std::string_view* in, size_t count, std::vector<double>* values);

}  // namespace strata::format
