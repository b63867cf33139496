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
  char buf[8];
  dst->append(buf, EncodeFixed64BE(buf, v) - buf);
}

void PutOrderedInt64BE(std::string* dst, int64_t v) {
  char buf[8];
  dst->append(buf, EncodeOrderedInt64BE(buf, v) - buf);
}

void PutVarint64(std::string* dst, uint64_t v) {
  char buf[kMaxVarint64Bytes];
  dst->append(buf, EncodeVarint64(buf, v) - buf);
}

void PutVarsint64(std::string* dst, int64_t v) {
  char buf[kMaxVarint64Bytes];
  dst->append(buf, EncodeVarsint64(buf, v) - buf);
}

void PutLengthPrefixed(std::string* dst, std::string_view s) {
  PutVarint64(dst, s.size());
  dst->append(s.data(), s.size());
}

void PutDouble(std::string* dst, double v) {
  char buf[8];
  dst->append(buf, EncodeDouble(buf, v) - buf);
}

absl::Status CorruptionError(std::string_view what) {
  return absl::DataLossError(
      StrCat("stored ", what, " is corrupt or was written by a newer Strata; "
                   "restore the data directory from a backup"));
}

}  // namespace strata
