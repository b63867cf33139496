#include "common/coding.h"

#include <cstring>

#include "common/strings.h"

namespace strata {

void PutFixed32BE(std::string* dst, uint32_t v) {
  char buf[4] = {static_cast<char>(v >> 24), static_cast<char>(v >> 16),
                 static_cast<char>(v >> 8), static_cast<char>(v)};
  dst->append(buf, sizeof(buf));
}

void PutFixed64BE(std::string* dst, uint64_t v) {
  PutFixed32BE(dst, static_cast<uint32_t>(v >> 32));
  PutFixed32BE(dst, static_cast<uint32_t>(v));
}

void PutOrderedInt64BE(std::string* dst, int64_t v) {
  PutFixed64BE(dst, static_cast<uint64_t>(v) ^ (uint64_t{1} << 63));
}

void PutVarint64(std::string* dst, uint64_t v) {
  char buf[10];
  int n = 0;
  while (v >= 0x80) {
    buf[n++] = static_cast<char>(v | 0x80);
    v >>= 7;
  }
  buf[n++] = static_cast<char>(v);
  dst->append(buf, n);
}

void PutVarsint64(std::string* dst, int64_t v) {
  PutVarint64(dst, (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63));
}

void PutLengthPrefixed(std::string* dst, std::string_view s) {
  PutVarint64(dst, s.size());
  dst->append(s.data(), s.size());
}

void PutDouble(std::string* dst, double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof(bits));
  PutFixed64BE(dst, bits);
}

uint32_t DecodeFixed32BE(const char* p) {
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  return (uint32_t{u[0]} << 24) | (uint32_t{u[1]} << 16) | (uint32_t{u[2]} << 8) | uint32_t{u[3]};
}

uint64_t DecodeFixed64BE(const char* p) {
  return (uint64_t{DecodeFixed32BE(p)} << 32) | DecodeFixed32BE(p + 4);
}

int64_t DecodeOrderedInt64BE(const char* p) {
  return static_cast<int64_t>(DecodeFixed64BE(p) ^ (uint64_t{1} << 63));
}

bool Decoder::GetFixed32BE(uint32_t* v) {
  if (rest_.size() < 4) return false;
  *v = DecodeFixed32BE(rest_.data());
  rest_.remove_prefix(4);
  return true;
}

bool Decoder::GetFixed64BE(uint64_t* v) {
  if (rest_.size() < 8) return false;
  *v = DecodeFixed64BE(rest_.data());
  rest_.remove_prefix(8);
  return true;
}

bool Decoder::GetOrderedInt64BE(int64_t* v) {
  uint64_t u;
  if (!GetFixed64BE(&u)) return false;
  *v = static_cast<int64_t>(u ^ (uint64_t{1} << 63));
  return true;
}

bool Decoder::GetVarint64(uint64_t* v) {
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

bool Decoder::GetVarsint64(int64_t* v) {
  uint64_t u;
  if (!GetVarint64(&u)) return false;
  *v = static_cast<int64_t>((u >> 1) ^ (~(u & 1) + 1));
  return true;
}

bool Decoder::GetLengthPrefixed(std::string_view* s) {
  uint64_t n;
  if (!GetVarint64(&n) || n > rest_.size()) return false;
  *s = rest_.substr(0, n);
  rest_.remove_prefix(n);
  return true;
}

bool Decoder::GetDouble(double* v) {
  uint64_t bits;
  if (!GetFixed64BE(&bits)) return false;
  std::memcpy(v, &bits, sizeof(bits));
  return true;
}

bool Decoder::GetByte(uint8_t* v) {
  if (rest_.empty()) return false;
  *v = static_cast<uint8_t>(rest_.front());
  rest_.remove_prefix(1);
  return true;
}

absl::Status CorruptionError(std::string_view what) {
  return absl::DataLossError(
      StrCat("stored ", what, " is corrupt or was written by a newer Strata; "
                   "restore the data directory from a backup"));
}

}  // namespace strata
