// Constants of the magnetic store's columnar block (the `cold` family's
// values). The byte grammar is docs/format/block.md; change both together and
// bump kBlockFormatVersion when the bytes change, because blocks already on
// disk are read with the version they carry.
#pragma once

#include <cstddef>
#include <cstdint>

namespace strata::format {

// The first two bytes of every block: 'S' 'B' (Strata Block).
inline constexpr char kBlockMagic[2] = {'S', 'B'};
inline constexpr uint8_t kBlockFormatVersion = 1;

// A block holds one series' points of one bucket (an hour): at most ~4 M,
// over 1,000 points a second for the whole hour. Decoders refuse larger
// counts before allocating, so a corrupted count cannot exhaust memory; the
// tiering job leaves a bucket with more in the memory store and says so.
inline constexpr uint32_t kMaxPointsPerBlock = 1u << 22;
inline constexpr uint32_t kMaxColumnsPerBlock = 4096;

// How an integer sequence is stored (int_codec.h). The encoder writes
// whichever is smaller.
enum class IntEncoding : uint8_t {
  kRunLength = 0,  // (zig-zag varint value, varint run − 1) pairs
  kBitPacked = 1,  // first value (zig-zag varint), width byte, then every
                   // other zig-zag value in `width` bits
};

// How a DOUBLE column is stored (float_codec.h). The encoder writes whichever
// is smaller.
enum class DoubleEncoding : uint8_t {
  kGorilla = 0,  // XOR with the previous value, Gorilla's control bits
  kDecimal = 1,  // scale byte k: every value is an integer / 10^k exactly;
                 // the integers are delta-coded as an int sequence
};
inline constexpr int kMaxDecimalScale = 12;

// Per-column flags (block.md, "column header").
inline constexpr uint8_t kColumnHasNulls = 1 << 0;
inline constexpr uint8_t kColumnHasStats = 1 << 1;  // min, max, sum follow

}  // namespace strata::format
