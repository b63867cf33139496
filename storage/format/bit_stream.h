// Bit-granular writing and reading, most significant bit first, for the
// codecs that do not fit in whole bytes (Gorilla XOR, bit packing).
// Thread-safety: none; each stream belongs to one encoder or decoder.
#pragma once

#include <cstdint>
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
  std::string* out_;
  uint64_t pending_ = 0;  // bits not yet in out_, right-aligned
  int pending_count_ = 0;
};

class BitReader {
 public:
  explicit BitReader(std::string_view in) : in_(in) {}
  // Reads `count` bits (≤ 64); false when the input has fewer left.
  bool Read(int count, uint64_t* bits);
  bool ReadBit(bool* bit);
  // Whole bytes consumed so far, counting a partly read byte.
  size_t bytes_consumed() const { return (position_ + 7) / 8; }

 private:
  std::string_view in_;
  size_t position_ = 0;  // in bits
};

}  // namespace strata::format
