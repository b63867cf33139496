// A WriteRecordsRequest's wire bytes in one pass. Protobuf's serializer walks a
// message twice (ByteSizeLong for every nested length, then the bytes) and checks
// every string's UTF-8 on the way: a quarter of `strata import`'s CPU per row on
// line protocol (docs/benchmarks.md, "Ingest paths"). Here each nested message is
// written once, its length filled in after it; the bytes are the ones protobuf
// writes, byte for byte (tests/unit/client/request_encoder_test.cc), so the
// server reads them the same way. (A string that is not UTF-8 goes as it is,
// where protobuf logs it and sends it too; the server refuses the request.)
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "strata/v1/write.pb.h"

namespace strata::cli {

// Writes protobuf fields into `buffer` from `start` on. The buffer grows by
// doubling and keeps its size past what was written: a writer reusing one pays
// for zeroing its bytes only when it grows.
class WireWriter {
 public:
  WireWriter(std::string* buffer, size_t start) : out_(*buffer), used_(start) {}
  // The end of what was written.
  size_t used() const { return used_; }

  // WriteRecordsRequest's fields.
  void Request(const v1::WriteRecordsRequest& r);
  void Record(const v1::Record& r);
  void Value(const v1::MeasureValue& v);

  // Proto3 scalars are left out at their default; `optional` ones (and a
  // oneof's member) are written whenever set.
  void String(uint32_t field, std::string_view value) {
    if (!value.empty()) StringAlways(field, value);
  }
  void StringAlways(uint32_t field, std::string_view value) {
    char* p = Room(2 * kMaxVarintBytes + value.size());
    p = PutVarint(p, field << 3 | kLength);
    p = PutVarint(p, value.size());
    std::memcpy(p, value.data(), value.size());
    used_ = p + value.size() - out_.data();
  }
  // int64 and enum fields: a negative one as its 64-bit two's complement
  // (ten bytes), as protobuf writes it.
  void Int(uint32_t field, int64_t value) {
    if (value != 0) IntAlways(field, value);
  }
  void IntAlways(uint32_t field, int64_t value) {
    char* p = Room(2 * kMaxVarintBytes);
    p = PutVarint(p, field << 3 | kVarint);
    used_ = PutVarint(p, static_cast<uint64_t>(value)) - out_.data();
  }
  void Double(uint32_t field, double value) {
    char* p = PutVarint(Room(kMaxVarintBytes + sizeof value), field << 3 | kFixed64);
    std::memcpy(p, &value, sizeof value);  // little-endian, as the wire is
    used_ = p + sizeof value - out_.data();
  }

  // A record's bytes are mostly 128..16,383 long (two bytes of length); a
  // dimension's and a measure's under 128 (one). A wrong guess moves the
  // message's bytes once.
  static constexpr size_t kRecordLengthGuess = 2;
  static constexpr size_t kSmallLengthGuess = 1;

  // A length-delimited message written by `body`, its length filled in after.
  template <typename Body>
  void Nested(uint32_t field, size_t length_guess, Body&& body) {
    used_ = PutVarint(Room(kMaxVarintBytes + length_guess), field << 3 | kLength) - out_.data();
    const size_t at = used_;
    used_ += length_guess;
    body();
    const size_t length = used_ - at - length_guess;
    const size_t needed = VarintSize(length);
    if (needed != length_guess) [[unlikely]] {
      Room(needed);  // for a longer length than guessed
      char* body_start = out_.data() + at + length_guess;
      std::memmove(body_start + needed - length_guess, body_start, length);
      used_ = used_ + needed - length_guess;
    }
    PutVarint(out_.data() + at, length);
  }

 private:
  enum WireType : uint32_t { kVarint = 0, kFixed64 = 1, kLength = 2 };
  static constexpr size_t kMaxVarintBytes = 10;

  static size_t VarintSize(uint64_t value) {
    size_t bytes = 1;
    for (; value >= 0x80; value >>= 7) ++bytes;
    return bytes;
  }
  static char* PutVarint(char* p, uint64_t value) {
    for (; value >= 0x80; value >>= 7) *p++ = static_cast<char>(value | 0x80);
    *p++ = static_cast<char>(value);
    return p;
  }
  // Room for `bytes` more at out_[used_]: written in place (a push_back per
  // byte was most of the encoding).
  char* Room(size_t bytes) {
    if (out_.size() - used_ < bytes) [[unlikely]] {
      Grow(bytes);
    }
    return out_.data() + used_;
  }
  void Grow(size_t bytes);

  std::string& out_;
  size_t used_;  // bytes of out_ written; past them, room reserved
};

// Writes `request` serialized at the start of `buffer` and returns its length
// (the buffer may be longer: see WireWriter).
size_t EncodeWriteRecordsRequest(const v1::WriteRecordsRequest& request, std::string* buffer);

// A request's records already encoded (each a WriteRecordsRequest `records`
// field): bytes[0, used), `count` of them. A parser that can write a line's
// record straight to bytes fills one (record_parsers.h).
struct EncodedRecords {
  std::string bytes;
  size_t used = 0;
  int count = 0;
  void Clear() {
    used = 0;
    count = 0;
  }
};

}  // namespace strata::cli
