#include "server/remote_write_size.h"

#include <google/protobuf/io/coded_stream.h>

#include <cstdint>
#include <string>

#include "prometheus/remote.pb.h"

namespace strata {
namespace {

using google::protobuf::io::CodedInputStream;

enum WireType : uint32_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

// A repeated message field's slot per element: a pointer, with the array
// grown by doubling (up to twice the elements); and the array's least
// allocation, its header and 4 slots, charged for each repeated field of
// each message whether it is used or not.
constexpr size_t kSlotBytes = 2 * sizeof(void*);
constexpr size_t kRepeatedFieldBytes = 5 * sizeof(void*);
// A message's unknown fields: one string of their bytes, charged per field.
constexpr size_t kUnknownFieldsBytes = 48;
// std::string keeps up to 15 bytes in place.
constexpr size_t kInlineStringBytes = 15;

// A string field is a pointer to a std::string of its own once set to
// anything but "" (ArenaStringPtr), with its bytes past the inline buffer.
size_t StringBytes(uint32_t length) {
  if (length == 0) return 0;
  return sizeof(std::string) + (length > kInlineStringBytes ? length + 1 : 0);
}

// Skips one field of `wire_type` (its tag read); false on bad bytes or a group.
bool SkipField(CodedInputStream& in, uint32_t wire_type) {
  switch (wire_type) {
    case kVarint: {
      uint64_t ignored;
      return in.ReadVarint64(&ignored);
    }
    case kFixed64: return in.Skip(8);
    case kFixed32: return in.Skip(4);
    case kLengthDelimited: {
      uint32_t length;
      return in.ReadVarint32(&length) && in.Skip(static_cast<int>(length));
    }
    default: return false;  // groups (3, 4) and the undefined 6, 7
  }
}

// Walks a length-delimited field's bytes with `walk`; false if they are
// not all there (CodedInputStream takes the end of the input for the end of
// a message whatever the limit) or `walk` fails.
template <typename Walk>
bool WalkNested(CodedInputStream& in, Walk walk) {
  uint32_t length;
  if (!in.ReadVarint32(&length) || length > static_cast<uint32_t>(INT32_MAX)) return false;
  const int end = in.CurrentPosition() + static_cast<int>(length);
  const CodedInputStream::Limit limit = in.PushLimit(static_cast<int>(length));
  const bool walked = walk() && in.CurrentPosition() == end;
  in.PopLimit(limit);
  return walked;
}

// Walks the fields of one message up to the current limit, calling
// `field(number, wire_type, size)` for each; `field` reads the field or
// returns nullopt to have it skipped and counted as unknown bytes.
template <typename Field>
bool WalkFields(CodedInputStream& in, size_t* size, Field field) {
  while (true) {
    const uint32_t tag = in.ReadTag();
    // 0 at the end of the bytes or the limit, and for bad bytes or field 0.
    if (tag == 0) return in.ConsumedEntireMessage();
    const uint32_t number = tag >> 3;
    const uint32_t wire_type = tag & 7;
    std::optional<bool> read = field(number, wire_type, size);
    if (read) {
      if (!*read) return false;
      continue;
    }
    const int before = in.CurrentPosition();
    if (!SkipField(in, wire_type)) return false;
    // Kept as the message's unknown bytes.
    *size += static_cast<size_t>(in.CurrentPosition() - before) + kUnknownFieldsBytes;
  }
}

bool WalkLabel(CodedInputStream& in, size_t* size) {
  return WalkFields(in, size, [&](uint32_t number, uint32_t wire_type,
                                  size_t* total) -> std::optional<bool> {
    if ((number != 1 && number != 2) || wire_type != kLengthDelimited) return std::nullopt;
    uint32_t length;
    if (!in.ReadVarint32(&length) || !in.Skip(static_cast<int>(length))) return false;
    *total += StringBytes(length);
    return true;
  });
}

bool WalkSeries(CodedInputStream& in, size_t* size) {
  return WalkFields(in, size, [&](uint32_t number, uint32_t wire_type,
                                  size_t* total) -> std::optional<bool> {
    if (wire_type != kLengthDelimited) return std::nullopt;
    if (number == 1) {
      *total += sizeof(prometheus::Label) + kSlotBytes;
      return WalkNested(in, [&] { return WalkLabel(in, total); });
    }
    if (number == 2) {
      *total += sizeof(prometheus::Sample) + kSlotBytes;
      uint32_t length;
      if (!in.ReadVarint32(&length) || !in.Skip(static_cast<int>(length))) return false;
      return true;
    }
    return std::nullopt;
  });
}

}  // namespace

std::optional<size_t> ParsedWriteRequestBytes(std::string_view body) {
  if (body.size() > static_cast<size_t>(INT32_MAX)) return std::nullopt;
  CodedInputStream in(reinterpret_cast<const uint8_t*>(body.data()), static_cast<int>(body.size()));
  size_t size = sizeof(prometheus::WriteRequest) + kRepeatedFieldBytes;
  const bool ok = WalkFields(in, &size, [&](uint32_t number, uint32_t wire_type,
                                            size_t* total) -> std::optional<bool> {
    if (number != 1 || wire_type != kLengthDelimited) return std::nullopt;
    *total += sizeof(prometheus::TimeSeries) + kSlotBytes + 2 * kRepeatedFieldBytes;
    return WalkNested(in, [&] { return WalkSeries(in, total); });
  });
  if (!ok) return std::nullopt;
  return size;
}

}  // namespace strata
