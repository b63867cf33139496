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
// The first two bytes of a block's bodies stored apart from its header
// (block.h, SplitBlock): 'S' 'b', then the block's version.
inline constexpr char kBodiesMagic[2] = {'S', 'b'};
inline constexpr uint8_t kBlockFormatVersion = 2;
// Blocks written by older servers keep reading: format 1 lacks only
// format 2's encodings (kRangePacked, kAlp, decimal statistics).
inline constexpr uint8_t kOldestBlockFormatVersion = 1;

// A block holds one series' points of one bucket (an hour): at most ~4 M,
// over 1,000 points a second for the whole hour. Decoders refuse larger
// counts before allocating, so a corrupted count cannot exhaust memory; the
// tiering job leaves a bucket with more in the memory store and says so.
inline constexpr uint32_t kMaxPointsPerBlock = 1u << 22;
inline constexpr uint32_t kMaxColumnsPerBlock = 4096;

// How an integer sequence is stored (int_codec.h). The encoder writes
// whichever is smaller.
enum class IntEncoding : uint8_t {
  kRunLength = 0,    // (zig-zag varint value, varint run − 1) pairs
  kBitPacked = 1,    // first value (zig-zag varint), width byte, then every
                     // other zig-zag value in `width` bits
  kRangePacked = 2,  // first value, then every other value's offset from
                     // their minimum as digits in base (max − min + 1),
                     // packed several to a word: a fraction of a bit a
                     // value less than kBitPacked when the range is not a
                     // power of two (block format 2)
};
// kRangePacked is offered for ranges below this (a group of digits must fit
// 63 bits, and one digit always does).
inline constexpr uint64_t kMaxRangePackedSpan = uint64_t{1} << 62;

// How a DOUBLE column is stored (float_codec.h). The encoder writes whichever
// is smaller.
enum class DoubleEncoding : uint8_t {
  kGorilla = 0,  // XOR with the previous value, Gorilla's control bits
  kDecimal = 1,  // scale byte k: every value is an integer / 10^k exactly;
                 // the integers are delta-coded as an int sequence (format
                 // 1's decimal form; read, no longer written)
  kAlp = 2,      // decimal with exceptions (format 2): the values that are
                 // integers / 10^k as an int sequence, plain or delta-coded,
                 // the few that are not stored whole beside them
};
inline constexpr int kMaxDecimalScale = 12;
// kAlp's head byte: the scale in the low four bits, and these flags.
inline constexpr uint8_t kAlpScaleMask = 0x0f;
inline constexpr uint8_t kAlpDeltas = 0x10;
inline constexpr uint8_t kAlpExceptions = 0x20;

// Per-column flags (block.md, "column header").
inline constexpr uint8_t kColumnHasNulls = 1 << 0;
inline constexpr uint8_t kColumnHasStats = 1 << 1;  // min, max, sum follow
// A DOUBLE column's values are integers / 10^scale: its min, max and sum are
// stored as a scale byte and three zig-zag varints of those integers instead
// of three 8-byte doubles, the sum exact (format 2).
inline constexpr uint8_t kColumnDecimalStats = 1 << 2;

}  // namespace strata::format
