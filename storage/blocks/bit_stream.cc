#include "storage/blocks/bit_stream.h"

#include <algorithm>
#include <bit>
#include <cstring>

namespace strata::format {

void BitWriter::Write(uint64_t bits, int count) {
  if (count <= 0) return;
  if (count < 64) bits &= (uint64_t{1} << count) - 1;
  const int room = 64 - pending_count_;
  if (count < room) {
    pending_ = (pending_ << count) | bits;
    pending_count_ += count;
    return;
  }
  // The word fills: written as 8 bytes at once (a byte at a time, the
  // string's push_back was a quarter of encoding a block).
  const int rest = count - room;  // 0..63 bits left over for the next word
  const uint64_t word = room == 64 ? bits : (pending_ << room) | (bits >> rest);
  AppendWord(word, 8);
  pending_ = rest == 0 ? 0 : bits & ((uint64_t{1} << rest) - 1);
  pending_count_ = rest;
}

void BitWriter::AppendWord(uint64_t word, int bytes) {
  static_assert(std::endian::native == std::endian::little);
  const uint64_t big_endian = __builtin_bswap64(word);
  char buffer[8];
  std::memcpy(buffer, &big_endian, sizeof(buffer));
  out_->append(buffer, bytes);
}

void BitWriter::Flush() {
  if (pending_count_ == 0) return;
  // The pending bits first in a word, padded with zero bits to whole bytes.
  AppendWord(pending_ << (64 - pending_count_), (pending_count_ + 7) / 8);
  pending_ = 0;
  pending_count_ = 0;
}

bool BitReader::ReadSlow(int count, uint64_t* bits) {
  if (count < 0 || count > 64 || position_ + count > in_.size() * 8) return false;
  uint64_t v = 0;
  while (count > 0) {
    const size_t byte = position_ / 8;
    const int offset = static_cast<int>(position_ % 8);
    const int take = std::min(count, 8 - offset);
    const auto b = static_cast<uint8_t>(in_[byte]);
    const uint64_t chunk = (b >> (8 - offset - take)) & ((1u << take) - 1);
    v = (v << take) | chunk;
    position_ += take;
    count -= take;
  }
  *bits = v;
  return true;
}

}  // namespace strata::format
