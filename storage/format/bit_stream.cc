#include "storage/format/bit_stream.h"

#include <algorithm>
#include <bit>
#include <cstring>

namespace strata::format {

void BitWriter::Write(uint64_t bits, int count) {
  if (count < 64) bits &= (uint64_t{1} << count) - 1;
  // Emit whole bytes as soon as they exist, so pending_ never overflows.
  while (count > 0) {
    const int take = std::min(count, 8 - pending_count_);
    const uint64_t top = bits >> (count - take);
    pending_ = (pending_ << take) | (top & ((uint64_t{1} << take) - 1));
    pending_count_ += take;
    count -= take;
    if (pending_count_ == 8) {
      out_->push_back(static_cast<char>(pending_));
      pending_ = 0;
      pending_count_ = 0;
    }
  }
}

void BitWriter::Flush() {
  if (pending_count_ == 0) return;
  out_->push_back(static_cast<char>(pending_ << (8 - pending_count_)));
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
