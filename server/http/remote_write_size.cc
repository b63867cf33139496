#include "server/http/remote_write_size.h"

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
// Unknown fields (a newer client's) are kept: a set per message that has
// any, an entry per field (in a vector grown by doubling), and a string of
// its own for a length-delimited one.
constexpr size_t kUnknownSetBytes = 64;
constexpr size_t kUnknownFieldBytes = 32;
// std::string keeps up to 15 bytes in place.
constexpr size_t kInlineStringBytes = 15;

size_t HeapStringBytes(uint32_t length) {
  return sizeof(std::string) + (length > kInlineStringBytes ? length + 1 : 0);
}

// A string field is a pointer to a std::string of its own once set to
// anything but "" (ArenaStringPtr).
size_t StringFieldBytes(uint32_t length) { return length == 0 ? 0 : HeapStringBytes(length); }

bool ReadLength(CodedInputStream& in, uint32_t* length) {
  return in.ReadVarint32(length) && *length <= static_cast<uint32_t>(INT32_MAX);
}

// Skips one unknown field of `wire_type` (its tag read) and adds what
// keeping it takes; false on bad bytes or a group.
bool SkipUnknownField(CodedInputStream& in, uint32_t wire_type, size_t* size) {
  *size += kUnknownFieldBytes;
  switch (wire_type) {
    case kVarint: {
      uint64_t ignored;
      return in.ReadVarint64(&ignored);
    }
    case kFixed64: return in.Skip(8);
    case kFixed32: return in.Skip(4);
    case kLengthDelimited: {
      uint32_t length;
      if (!ReadLength(in, &length)) return false;
      *size += HeapStringBytes(length);
      return in.Skip(static_cast<int>(length));
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
  if (!ReadLength(in, &length)) return false;
  // In 64 bits: a length near 2^31 past the current position overflowed an
  // int (found by the ingest fuzzer); such a field is never all there.
  const int64_t end = int64_t{in.CurrentPosition()} + length;
  const CodedInputStream::Limit limit = in.PushLimit(static_cast<int>(length));
  const bool walked = walk() && in.CurrentPosition() == end;
  in.PopLimit(limit);
  return walked;
}

// Walks the fields of one message up to the current limit: `known(number,
// wire_type)` reads a field it knows and returns true or false (bad bytes),
// or nullopt for one to skip and count as unknown.
template <typename Known>
bool WalkFields(CodedInputStream& in, size_t* size, Known known) {
  bool any_unknown = false;
  while (true) {
    const uint32_t tag = in.ReadTag();
    // 0 at the end of the bytes or the limit, and for bad bytes or field 0.
    if (tag == 0) return in.ConsumedEntireMessage();
    const uint32_t number = tag >> 3;
    const uint32_t wire_type = tag & 7;
    if (const std::optional<bool> read = known(number, wire_type)) {
      if (!*read) return false;
      continue;
    }
    if (!any_unknown) *size += kUnknownSetBytes;
    any_unknown = true;
    if (!SkipUnknownField(in, wire_type, size)) return false;
  }
}

bool WalkLabel(CodedInputStream& in, size_t* size) {
  return WalkFields(in, size, [&](uint32_t number, uint32_t wire_type) -> std::optional<bool> {
    if ((number != 1 && number != 2) || wire_type != kLengthDelimited) return std::nullopt;
    uint32_t length;
    if (!ReadLength(in, &length) || !in.Skip(static_cast<int>(length))) return false;
    *size += StringFieldBytes(length);
    return true;
  });
}

bool WalkSample(CodedInputStream& in, size_t* size) {
  return WalkFields(in, size, [&](uint32_t number, uint32_t wire_type) -> std::optional<bool> {
    if (number == 1 && wire_type == kFixed64) return in.Skip(8);
    if (number == 2 && wire_type == kVarint) {
      uint64_t ignored;
      return in.ReadVarint64(&ignored);
    }
    return std::nullopt;
  });
}

bool WalkSeries(CodedInputStream& in, size_t* size) {
  return WalkFields(in, size, [&](uint32_t number, uint32_t wire_type) -> std::optional<bool> {
    if (wire_type != kLengthDelimited) return std::nullopt;
    if (number == 1) {
      *size += sizeof(prometheus::Label) + kSlotBytes;
      return WalkNested(in, [&] { return WalkLabel(in, size); });
    }
    if (number == 2) {
      *size += sizeof(prometheus::Sample) + kSlotBytes;
      return WalkNested(in, [&] { return WalkSample(in, size); });
    }
    return std::nullopt;
  });
}

}  // namespace

std::optional<size_t> ParsedWriteRequestBytes(std::string_view body) {
  if (body.size() > static_cast<size_t>(INT32_MAX)) return std::nullopt;
  CodedInputStream in(reinterpret_cast<const uint8_t*>(body.data()), static_cast<int>(body.size()));
  size_t size = sizeof(prometheus::WriteRequest) + kRepeatedFieldBytes;
  const bool ok =
      WalkFields(in, &size, [&](uint32_t number, uint32_t wire_type) -> std::optional<bool> {
        if (number != 1 || wire_type != kLengthDelimited) return std::nullopt;
        size += sizeof(prometheus::TimeSeries) + kSlotBytes + 2 * kRepeatedFieldBytes;
        return WalkNested(in, [&] { return WalkSeries(in, &size); });
      });
  if (!ok) return std::nullopt;
  return size;
}

}  // namespace strata
