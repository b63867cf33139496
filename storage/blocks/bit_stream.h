// Bit-granular writing and reading, most significant bit first, for the
// codecs that do not fit in whole bytes (Gorilla XOR, bit packing).
// Thread-safety: none; each stream belongs to one encoder or decoder.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace strata::format {

class BitWriter {
 public:
  explicit BitWriter(std::string* out) : out_(out) {}
  // Appends the low `count` bits of `bits` (count ≤ 64).
  void Write(uint64_t bits, int count);
  void WriteBit(bool bit) { Write(bit ? 1 : 0, 1); }
  // Pads the last byte with zero bits; call once when done.
  void Flush();

 private:
  // Appends the first `bytes` bytes of `word`, most significant first.
  void AppendWord(uint64_t word, int bytes);

  std::string* out_;
  uint64_t pending_ = 0;  // bits not yet in out_ (fewer than 64), right-aligned
  int pending_count_ = 0;
};

class BitReader {
 public:
  explicit BitReader(std::string_view in) : in_(in) {}
  // Reads `count` bits (≤ 64); false when the input has fewer left. Inline:
  // decoders call it a few times per value, millions of times per scan.
  [[gnu::always_inline]] bool Read(int count, uint64_t* bits) {
    const size_t first = position_ / 8;
    if (count > 0 && count <= 56 && first + 8 <= in_.size()) {
      // One big-endian 64-bit load holds all the bits (offset + count ≤ 63).
      uint64_t word;
      std::memcpy(&word, in_.data() + first, sizeof(word));
      static_assert(std::endian::native == std::endian::little);
      word = __builtin_bswap64(word);
      *bits = (word << (position_ % 8)) >> (64 - count);
      position_ += count;
      return true;
    }
    return ReadSlow(count, bits);
  }
  // Any count up to 64 on the fast path: two loads when it exceeds 56.
  [[gnu::always_inline]] bool ReadWide(int count, uint64_t* bits) {
    if (count <= 56) return Read(count, bits);
    uint64_t high, low;
    if (!Read(count - 32, &high) || !Read(32, &low)) return false;
    *bits = (high << 32) | low;
    return true;
  }
  bool ReadBit(bool* bit) {
    uint64_t v;
    if (!Read(1, &v)) return false;
    *bit = v != 0;
    return true;
  }
  // Moves to bit `position` (from the start); a Read past the input's end still fails.
  void Seek(size_t position) { position_ = position; }
  // Whole bytes consumed so far, counting a partly read byte.
  size_t bytes_consumed() const { return (position_ + 7) / 8; }

 private:
  // Near the end of the input, 57..64 bits, or a bad count.
  bool ReadSlow(int count, uint64_t* bits);

  std::string_view in_;
  size_t position_ = 0;  // in bits
};

}  // namespace strata::format
