#include "storage/blocks/int_codec.h"

#include <bit>

#include "common/coding.h"
#include "storage/blocks/bit_stream.h"
#include "storage/blocks/block_format.h"

namespace strata::format {
namespace {

void EncodeRunLength(const std::vector<int64_t>& values, std::string* out) {
  out->push_back(static_cast<char>(IntEncoding::kRunLength));
  for (size_t i = 0; i < values.size();) {
    size_t run = 1;
    while (i + run < values.size() && values[i + run] == values[i]) ++run;
    PutVarint64(out, ZigZag(values[i]));
    PutVarint64(out, run - 1);
    i += run;
  }
}

size_t VarintSize(uint64_t v) { return v == 0 ? 1 : (64 - std::countl_zero(v) + 6) / 7; }

// The width of every value but the first, which is stored whole: after a
// delta transform it is the base, far larger than the deltas.
int WidthOfRest(const std::vector<int64_t>& values) {
  uint64_t all = 0;
  for (size_t i = 1; i < values.size(); ++i) all |= ZigZag(values[i]);
  return 64 - std::countl_zero(all);
}

void EncodeBitPacked(const std::vector<int64_t>& values, int width, std::string* out) {
  out->push_back(static_cast<char>(IntEncoding::kBitPacked));
  if (values.empty()) return;
  PutVarint64(out, ZigZag(values[0]));
  out->push_back(static_cast<char>(width));
  if (width == 0) return;
  BitWriter bits(out);
  for (size_t i = 1; i < values.size(); ++i) bits.Write(ZigZag(values[i]), width);
  bits.Flush();
}

// Bytes the run-length form takes, without building it.
size_t RunLengthSize(const std::vector<int64_t>& values) {
  size_t size = 1;
  for (size_t i = 0; i < values.size();) {
    size_t run = 1;
    while (i + run < values.size() && values[i + run] == values[i]) ++run;
    size += VarintSize(ZigZag(values[i])) + VarintSize(run - 1);
    i += run;
  }
  return size;
}

}  // namespace

void EncodeInts(const std::vector<int64_t>& values, std::string* out) {
  if (values.empty()) {
    out->push_back(static_cast<char>(IntEncoding::kRunLength));
    return;
  }
  const int width = WidthOfRest(values);
  const size_t packed_size =
      2 + VarintSize(ZigZag(values[0])) + ((values.size() - 1) * width + 7) / 8;
  if (RunLengthSize(values) <= packed_size) {
    EncodeRunLength(values, out);
  } else {
    EncodeBitPacked(values, width, out);
  }
}

bool DecodeInts(std::string_view* in, size_t count, std::vector<int64_t>* values) {
  values->clear();
  if (in->empty()) return false;
  const auto encoding = static_cast<IntEncoding>((*in)[0]);
  in->remove_prefix(1);
  if (encoding == IntEncoding::kRunLength) {
    Decoder decoder(*in);
    values->reserve(count);
    while (values->size() < count) {
      uint64_t value, run;
      if (!decoder.GetVarint64(&value) || !decoder.GetVarint64(&run)) return false;
      // A run may not reach past the count: checked before appending, so a
      // corrupted run length cannot allocate.
      if (run > count - values->size() - 1) return false;
      values->insert(values->end(), run + 1, UnZigZag(value));
    }
    *in = decoder.rest();
    return true;
  }
  if (encoding == IntEncoding::kBitPacked) {
    if (count == 0) return true;
    Decoder decoder(*in);
    uint64_t first;
    uint8_t width;
    if (!decoder.GetVarint64(&first) || !decoder.GetByte(&width) || width > 64) return false;
    *in = decoder.rest();
    const size_t bytes = ((count - 1) * width + 7) / 8;
    if (bytes > in->size()) return false;
    values->resize(count, 0);
    (*values)[0] = UnZigZag(first);
    if (width > 0) {
      BitReader bits(in->substr(0, bytes));
      for (size_t i = 1; i < count; ++i) {
        uint64_t u;
        if (!bits.Read(width, &u)) return false;
        (*values)[i] = UnZigZag(u);
      }
    }
    in->remove_prefix(bytes);
    return true;
  }
  return false;
}

std::vector<int64_t> Deltas(const std::vector<int64_t>& values) {
  std::vector<int64_t> deltas(values.size());
  uint64_t previous = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    const auto v = static_cast<uint64_t>(values[i]);
    deltas[i] = static_cast<int64_t>(v - previous);
    previous = v;
  }
  return deltas;
}

void UndoDeltas(std::vector<int64_t>* deltas) {
  uint64_t running = 0;
  for (int64_t& d : *deltas) {
    running += static_cast<uint64_t>(d);
    d = static_cast<int64_t>(running);
  }
}

}  // namespace strata::format
