// Byte encodings for keys and stored values.
//
// Keys use fixed-width big-endian integers so that RocksDB's bytewise order is
// numeric order (signed values are stored with the sign bit flipped). Values
// use little-endian varints and length-prefixed strings. Decoding never reads
// past the input: a Decoder that runs out of bytes reports corruption.
// Thread-safety: free functions are pure; a Decoder is not shared.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "common/unaligned.h"

namespace strata {

void PutFixed32BE(std::string* dst, uint32_t v);
void PutFixed64BE(std::string* dst, uint64_t v);
// Order-preserving: -1 sorts before 0 sorts before 1.
void PutOrderedInt64BE(std::string* dst, int64_t v);
void PutVarint64(std::string* dst, uint64_t v);
// Zig-zag, so small negative numbers stay small.
void PutVarsint64(std::string* dst, int64_t v);
void PutLengthPrefixed(std::string* dst, std::string_view s);
void PutDouble(std::string* dst, double v);

// Pointer forms of the encoders above, each returning the end of what it
// wrote, for encoders of many small fields: with AppendBounded a row or a log
// record is one append instead of one per field (each a call into the
// string's append, ~4 % of the server's CPU under ingest when rows were
// written field by field).
inline constexpr size_t kMaxVarint64Bytes = 10;
inline char* EncodeFixed64BE(char* p, uint64_t v) {
  // One byte-swapped store: GCC left a loop of byte stores a loop.
  if constexpr (std::endian::native == std::endian::little) v = __builtin_bswap64(v);
  std::memcpy(p, &v, sizeof(v));
  return p + sizeof(v);
}
inline char* EncodeOrderedInt64BE(char* p, int64_t v) {
  return EncodeFixed64BE(p, static_cast<uint64_t>(v) ^ (uint64_t{1} << 63));
}
inline char* EncodeVarint64(char* p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = static_cast<char>(v | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<char>(v);
  return p;
}
inline char* EncodeVarsint64(char* p, int64_t v) {
  return EncodeVarint64(p, (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63));
}
inline char* EncodeLengthPrefixed(char* p, std::string_view s) {
  p = EncodeVarint64(p, s.size());
  if (!s.empty()) std::memcpy(p, s.data(), s.size());  // an empty view's data may be null
  return p + s.size();
}
inline char* EncodeDouble(char* p, double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof(bits));
  return EncodeFixed64BE(p, bits);
}
// Appends to `dst` what `write(char* p)` writes at p, at most `bound` bytes,
// returning the end of it.
template <typename Write>
void AppendBounded(std::string* dst, size_t bound, Write&& write) {
  const size_t start = dst->size();
  dst->resize(start + bound);
  char* end = write(dst->data() + start);
  dst->resize(static_cast<size_t>(end - dst->data()));
}

// One load and a byte swap each, as the encoders store (GCC kept the
// shift-and-or form byte by byte).
inline uint32_t DecodeFixed32BE(const char* p) {
  uint32_t v = LoadUnaligned<uint32_t>(p);
  if constexpr (std::endian::native == std::endian::little) v = __builtin_bswap32(v);
  return v;
}
inline uint64_t DecodeFixed64BE(const char* p) {
  uint64_t v = LoadUnaligned<uint64_t>(p);
  if constexpr (std::endian::native == std::endian::little) v = __builtin_bswap64(v);
  return v;
}
inline int64_t DecodeOrderedInt64BE(const char* p) {
  return static_cast<int64_t>(DecodeFixed64BE(p) ^ (uint64_t{1} << 63));
}

// Reads values written by the Put* functions in the same order.
class Decoder {
 public:
  explicit Decoder(std::string_view input) : rest_(input) {}

  bool GetFixed32BE(uint32_t* v);
  bool GetFixed64BE(uint64_t* v);
  bool GetOrderedInt64BE(int64_t* v);
  bool GetVarint64(uint64_t* v);
  bool GetVarsint64(int64_t* v);
  bool GetLengthPrefixed(std::string_view* s);
  bool GetDouble(double* v);
  bool GetByte(uint8_t* v);

  bool done() const { return rest_.empty(); }
  std::string_view rest() const { return rest_; }

 private:
  std::string_view rest_;
};

// Inline: row and block decoding call these per value.
inline bool Decoder::GetFixed32BE(uint32_t* v) {
  if (rest_.size() < 4) return false;
  *v = DecodeFixed32BE(rest_.data());
  rest_.remove_prefix(4);
  return true;
}

inline bool Decoder::GetFixed64BE(uint64_t* v) {
  if (rest_.size() < 8) return false;
  *v = DecodeFixed64BE(rest_.data());
  rest_.remove_prefix(8);
  return true;
}

inline bool Decoder::GetOrderedInt64BE(int64_t* v) {
  uint64_t u;
  if (!GetFixed64BE(&u)) return false;
  *v = static_cast<int64_t>(u ^ (uint64_t{1} << 63));
  return true;
}

inline bool Decoder::GetVarint64(uint64_t* v) {
  uint64_t result = 0;
  for (int shift = 0; shift <= 63 && !rest_.empty(); shift += 7) {
    auto byte = static_cast<unsigned char>(rest_.front());
    rest_.remove_prefix(1);
    result |= uint64_t{byte & 0x7fu} << shift;
    if ((byte & 0x80) == 0) {
      *v = result;
      return true;
    }
  }
  return false;
}

inline bool Decoder::GetVarsint64(int64_t* v) {
  uint64_t u;
  if (!GetVarint64(&u)) return false;
  *v = static_cast<int64_t>((u >> 1) ^ (~(u & 1) + 1));
  return true;
}

inline bool Decoder::GetLengthPrefixed(std::string_view* s) {
  uint64_t n;
  if (!GetVarint64(&n) || n > rest_.size()) return false;
  *s = rest_.substr(0, n);
  rest_.remove_prefix(n);
  return true;
}

inline bool Decoder::GetDouble(double* v) {
  uint64_t bits;
  if (!GetFixed64BE(&bits)) return false;
  std::memcpy(v, &bits, sizeof(bits));
  return true;
}

inline bool Decoder::GetByte(uint8_t* v) {
  if (rest_.empty()) return false;
  *v = static_cast<uint8_t>(rest_.front());
  rest_.remove_prefix(1);
  return true;
}

// The error every decoder returns for bytes it cannot read; `what` names the
// structure (e.g. "table record").
absl::Status CorruptionError(std::string_view what);

}  // namespace strata
