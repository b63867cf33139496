// Integer sequences: the building block of the time, version, BIGINT,
// TIMESTAMP, dictionary-index and decimal columns. Values are zig-zag mapped
// (small negatives stay small) and stored run-length coded or bit-packed,
// whichever is smaller (block_format.h, IntEncoding). Callers apply a delta
// or delta-of-delta transform first when neighbours are close.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace strata::format {

// Appends the encoding of `values`; the count is not stored (the block
// header has it).
void EncodeInts(const std::vector<int64_t>& values, std::string* out);
// Reads exactly `count` values from the front of `*in` and advances it.
// False on truncated or malformed input (never reads past `*in`).
bool DecodeInts(std::string_view* in, size_t count, std::vector<int64_t>* values);

// v[0], v[1] − v[0], v[2] − v[1], … (wrapping, so any int64 round-trips).
std::vector<int64_t> Deltas(const std::vector<int64_t>& values);
void UndoDeltas(std::vector<int64_t>* deltas);

inline uint64_t ZigZag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
inline int64_t UnZigZag(uint64_t u) {
  return static_cast<int64_t>(u >> 1) ^ -static_cast<int64_t>(u & 1);
}

}  // namespace strata::format
