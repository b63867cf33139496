#include "client/request_encoder.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace strata::cli {
namespace {

enum WireType : uint32_t { kVarint = 0, kFixed64 = 1, kLength = 2 };

size_t VarintSize(uint64_t value) {
  size_t bytes = 1;
  while (value >= 0x80) {
    value >>= 7;
    ++bytes;
  }
  return bytes;
}

class Encoder {
 public:
  // Writes from out[start] on.
  Encoder(std::string& out, size_t start) : out_(out), used_(start) {}

  void Request(const v1::WriteRecordsRequest& r) {
    String(1, r.database_name());
    String(2, r.table_name());
    if (r.has_common_attributes()) {
      Nested(3, kRecordLengthGuess, [&] { Record(r.common_attributes()); });
    }
    for (const v1::Record& record : r.records()) {
      Nested(4, kRecordLengthGuess, [&] { Record(record); });
    }
  }
  size_t used() const { return used_; }

 private:
  // A record's bytes are mostly 128..16,383 long (two bytes of length); a
  // dimension's and a measure's under 128 (one). A wrong guess moves the
  // message's bytes once.
  static constexpr size_t kRecordLengthGuess = 2;
  static constexpr size_t kSmallLengthGuess = 1;
  static constexpr size_t kMaxVarintBytes = 10;

  // Room for `bytes` more at out_[used_]: the string grows by doubling, its
  // bytes written in place (a push_back per byte was most of the encoding).
  char* Room(size_t bytes) {
    if (out_.size() - used_ < bytes) [[unlikely]] {
      Grow(bytes);
    }
    return out_.data() + used_;
  }
  [[gnu::noinline]] void Grow(size_t bytes) {
    out_.resize(std::max(2 * out_.size(), used_ + bytes + 4096));
  }
  static char* PutVarint(char* p, uint64_t value) {
    while (value >= 0x80) {
      *p++ = static_cast<char>(value | 0x80);
      value >>= 7;
    }
    *p++ = static_cast<char>(value);
    return p;
  }
  void Varint(uint32_t field, WireType type, uint64_t value) {
    char* p = Room(2 * kMaxVarintBytes);
    p = PutVarint(p, field << 3 | type);
    used_ = PutVarint(p, value) - out_.data();
  }

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
    Varint(field, kVarint, static_cast<uint64_t>(value));
  }
  void Double(uint32_t field, double value) {
    char* p = PutVarint(Room(kMaxVarintBytes + sizeof value), field << 3 | kFixed64);
    std::memcpy(p, &value, sizeof value);  // little-endian, as the wire is
    used_ = p + sizeof value - out_.data();
  }

  // A length-delimited message written by `body`, its length filled in after.
  template <typename Body>
  void Nested(uint32_t field, size_t length_guess, Body&& body) {
    used_ = PutVarint(Room(kMaxVarintBytes + length_guess), field << 3 | kLength) - out_.data();
    const size_t at = used_;
    used_ += length_guess;
    body();
    const size_t length = used_ - at - length_guess;
    const size_t needed = VarintSize(length);
    if (needed != length_guess) {
      Room(needed);  // for a longer length than guessed
      char* body_start = out_.data() + at + length_guess;
      std::memmove(body_start + needed - length_guess, body_start, length);
      used_ = used_ + needed - length_guess;
    }
    PutVarint(out_.data() + at, length);
  }

  void Value(const v1::MeasureValue& v) {
    switch (v.value_case()) {
      case v1::MeasureValue::kDoubleValue:
        Double(1, v.double_value());
        break;
      case v1::MeasureValue::kBigintValue:
        IntAlways(2, v.bigint_value());
        break;
      case v1::MeasureValue::kVarcharValue:
        StringAlways(3, v.varchar_value());
        break;
      case v1::MeasureValue::kBooleanValue:
        IntAlways(4, v.boolean_value() ? 1 : 0);
        break;
      case v1::MeasureValue::kTimestampValue:
        IntAlways(5, v.timestamp_value());
        break;
      case v1::MeasureValue::VALUE_NOT_SET:
        break;
    }
  }

  void Record(const v1::Record& r) {
    for (const v1::Dimension& d : r.dimensions()) {
      Nested(1, kSmallLengthGuess, [&] {
        String(1, d.name());
        String(2, d.value());
      });
    }
    if (r.has_measure_name()) StringAlways(2, r.measure_name());
    if (r.has_measure_value()) Nested(3, kSmallLengthGuess, [&] { Value(r.measure_value()); });
    Int(4, r.measure_value_type());
    for (const v1::MultiMeasureValue& m : r.measure_values()) {
      Nested(5, kSmallLengthGuess, [&] {
        String(1, m.name());
        Int(2, m.type());
        if (m.has_value()) Nested(3, kSmallLengthGuess, [&] { Value(m.value()); });
      });
    }
    if (r.has_time()) IntAlways(6, r.time());
    Int(7, r.time_unit());
    if (r.has_version()) IntAlways(8, r.version());
  }

  std::string& out_;
  size_t used_;  // bytes of out_ written; past them, room reserved
};

}  // namespace

size_t EncodeWriteRecordsRequest(const v1::WriteRecordsRequest& request, std::string* buffer) {
  Encoder encoder(*buffer, 0);
  encoder.Request(request);
  return encoder.used();
}

}  // namespace strata::cli
