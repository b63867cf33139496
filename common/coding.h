// Byte encodings for keys and stored values.
//
// Keys use fixed-width big-endian integers so that RocksDB's bytewise order is
// numeric order (signed values are stored with the sign bit flipped). Values
// use little-endian varints and length-prefixed strings. Decoding never reads
// past the input: a Decoder that runs out of bytes reports corruption.
// Thread-safety: free functions are pure; a Decoder is not shared.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"

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

uint32_t DecodeFixed32BE(const char* p);
uint64_t DecodeFixed64BE(const char* p);
int64_t DecodeOrderedInt64BE(const char* p);

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

// The error every decoder returns for bytes it cannot read; `what` names the
// structure (e.g. "table record").
absl::Status CorruptionError(std::string_view what);

}  // namespace strata
