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
  // One append of eight bytes (a log entry writes three per row).
  char buf[8];
  for (int i = 0; i < 8; ++i) buf[i] = static_cast<char>(v >> (56 - 8 * i));
  dst->append(buf, sizeof(buf));
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

absl::Status CorruptionError(std::string_view what) {
  return absl::DataLossError(
      StrCat("stored ", what, " is corrupt or was written by a newer Strata; "
                   "restore the data directory from a backup"));
}

}  // namespace strata
