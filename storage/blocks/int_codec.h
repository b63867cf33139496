// Integer sequences: the building block of the time, version, BIGINT,
// TIMESTAMP, dictionary-index and decimal columns. Stored run-length coded,
// bit-packed (zig-zag mapped, so small negatives stay small) or range-packed
// (offsets from the minimum in base max − min + 1, several to a word),
// whichever is smallest (block_format.h, IntEncoding). Callers apply a delta
// or delta-of-delta transform first when neighbours are close.
// Thread-safety: pure functions.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace strata::format {

// Appends the encoding of `values`; the count is not stored (the block
// header has it).
void EncodeInts(const std::vector<int64_t>& values, std::string* out);
// The bytes EncodeInts appends for `values`, without encoding them (for
// encoders choosing between transforms).
size_t EncodedIntsSize(const std::vector<int64_t>& values);
// The positions of the values of a sequence a caller reads, ascending. Given them, a
// decoder may leave the other values 0 and skip their work where the form allows
// (range-packed groups holding none of them: a scan keeping a tenth of a block's points
// unpacks about a quarter of a column's groups).
using NeededValues = std::vector<uint32_t>;
// Whether every position names one of `count` values (decoders ignore other lists).
inline bool WithinCount(const NeededValues& needed, size_t count) {
  for (uint32_t p : needed) {
    if (p >= count) return false;
  }
  return true;
}

// Reads exactly `count` values from the front of `*in` and advances it.
// False on truncated or malformed input (never reads past `*in`). With `needed` (ignored
// when a position is past `count`), the values it does not name may be left 0, and a
// range-packed group holding none of them is skipped unchecked.
bool DecodeInts(std::string_view* in, size_t count, std::vector<int64_t>* values,
                const NeededValues* needed = nullptr);

// How kRangePacked groups its digits: `digits` values of [0, base) make one
// number below base^digits ≤ 2^63, written in Width(digits) bits — the bit
// width of base^digits − 1 — so a value costs Width(digits) / digits bits,
// within 1/digits of log2(base) (a 347-value range, 8.44 bits: 17 bits for
// two values, 8.5 a value, against 9 bit-packed). The group size is the one wasting the
// fewest bits a value, the smallest on ties; the last group may be shorter.
class RangePacking {
 public:
  // A group's digits each cost a multiplication: groups stay short (small bases lose ~1 %
  // to the cap: base 3 packs 5 digits in 8 bits, 1.6 a digit, where 39 in 62 are 1.59).
  static constexpr size_t kMaxGroupDigits = 8;

  explicit RangePacking(uint64_t base);  // 2 ≤ base ≤ kMaxRangePackedSpan
  uint64_t base() const { return base_; }
  size_t digits() const { return digits_; }  // in a full group
  int Width(size_t group_digits) const { return widths_[group_digits]; }
  // base^group_digits: a group's number is below it (else a digit is at or past the base).
  uint64_t Power(size_t group_digits) const { return powers_[group_digits]; }
  size_t PackedBits(size_t count) const;  // of `count` values
  // ⌊a / base^j⌋ for a < 2^63 and 1 ≤ j ≤ digits(), by one multiplication (the
  // decoder's hot loop; a 64-bit division takes several times longer). Every digit of a
  // group has its own quotient, so a group's digits are independent multiplications
  // rather than a chain of one a digit.
  uint64_t DividePower(uint64_t a, size_t j) const {
    const auto product = static_cast<unsigned __int128>(a) * multipliers_[j];
    return static_cast<uint64_t>(product >> 64) >> high_shifts_[j];
  }

 private:
  uint64_t base_;
  size_t digits_;
  std::array<int, kMaxGroupDigits + 1> widths_{};       // [g]: bits of a group of g digits
  std::array<uint64_t, kMaxGroupDigits + 1> powers_{};  // [g]: base^g
  // [j]: Granlund–Montgomery's multiplier and shift (past the product's low 64 bits) for
  // base^j.
  std::array<uint64_t, kMaxGroupDigits + 1> multipliers_{};
  std::array<int, kMaxGroupDigits + 1> high_shifts_{};
};

// v[0], v[1] − v[0], v[2] − v[1], … (wrapping, so any int64 round-trips).
std::vector<int64_t> Deltas(const std::vector<int64_t>& values);
void UndoDeltas(std::vector<int64_t>* deltas);

// The bytes of `v` as a varint (common/coding.h, PutVarint64).
inline size_t VarintSize(uint64_t v) { return v == 0 ? 1 : (64 - std::countl_zero(v) + 6) / 7; }

inline uint64_t ZigZag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
inline int64_t UnZigZag(uint64_t u) {
  return static_cast<int64_t>(u >> 1) ^ -static_cast<int64_t>(u & 1);
}

}  // namespace strata::format
