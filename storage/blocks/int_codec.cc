#include "storage/blocks/int_codec.h"

#include <algorithm>
#include <bit>
#include <climits>
#include <type_traits>
#include <utility>

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

// Calls `f` with `digits` (1 to RangePacking::kMaxGroupDigits) as a compile-time constant, a
// std::integral_constant, so each group size's work is unrolled; false for another count.
template <typename F>
bool WithDigits(size_t digits, const F& f) {
  return [&]<size_t... kLess>(std::index_sequence<kLess...>) {
    bool result = false;
    ((digits == kLess + 1 && (result = f(std::integral_constant<size_t, kLess + 1>{}), true)) ||
     ...);
    return result;
  }
  (std::make_index_sequence<RangePacking::kMaxGroupDigits>{});
}

// Reads a range-packed sequence's groups: each group's digits, lowest first, are its
// number's digits in the packing's base, plus the sequence's lowest value.
struct GroupUnpacker {
  const RangePacking* packing;
  uint64_t base_value;

  // The group of `kDigits` at the reader's position into out[0, kDigits); false past the
  // input or when its number is not below base^kDigits (a digit at or past the base).
  template <size_t kDigits>
  [[gnu::always_inline]] bool Group(BitReader& bits, int64_t* out) const {
    uint64_t group;
    if (!bits.ReadWide(packing->Width(kDigits), &group) || group >= packing->Power(kDigits)) {
      return false;
    }
    std::array<uint64_t, kDigits + 1> quotients;  // [j]: ⌊group / base^j⌋
    quotients[0] = group;
#pragma GCC unroll 8
    for (size_t j = 1; j < kDigits; ++j) quotients[j] = packing->DividePower(group, j);
    quotients[kDigits] = 0;
#pragma GCC unroll 8
    for (size_t j = 0; j < kDigits; ++j) {
      const uint64_t digit = quotients[j] - quotients[j + 1] * packing->base();
      out[j] = static_cast<int64_t>(base_value + digit);
    }
    return true;
  }

  // The last, shorter group (fewer than a full group's digits).
  bool ShortGroup(BitReader& bits, size_t digits, int64_t* out) const {
    return WithDigits(digits, [&](auto k) { return Group<decltype(k)::value>(bits, out); });
  }

  // `full_groups` groups of kDigits then one of `last` (0: none) into `out`; with
  // `needed`, only the groups holding a needed position (the sequence's, so 1 is out[0]),
  // each found by its bit position (full groups have one width).
  template <size_t kDigits>
  bool Groups(BitReader& bits, size_t full_groups, size_t last, const NeededValues* needed,
              int64_t* out) const {
    if (needed == nullptr) {
      for (size_t g = 0; g < full_groups; ++g, out += kDigits) {
        if (!Group<kDigits>(bits, out)) return false;
      }
      return last == 0 || ShortGroup(bits, last, out);
    }
    const auto full_width = static_cast<size_t>(packing->Width(kDigits));
    size_t unpacked = SIZE_MAX;  // the group last unpacked
    for (uint32_t p : *needed) {
      if (p == 0) continue;  // the first value, stored whole
      const size_t g = (p - 1) / kDigits;
      if (g == unpacked) continue;
      unpacked = g;
      bits.Seek(g * full_width);
      int64_t* group_out = out + g * kDigits;
      const bool ok =
          g < full_groups ? Group<kDigits>(bits, group_out) : ShortGroup(bits, last, group_out);
      if (!ok) return false;
    }
    return true;
  }
};

bool DecodeRangePacked(std::string_view* in, size_t count, std::vector<int64_t>* values,
                       const NeededValues* needed) {
  Decoder decoder(*in);
  uint64_t first, low, span;
  if (!decoder.GetVarint64(&first) || !decoder.GetVarint64(&low) || !decoder.GetVarint64(&span) ||
      span >= kMaxRangePackedSpan) {
    return false;
  }
  *in = decoder.rest();
  if (count == 0) return true;
  const uint64_t base_value = static_cast<uint64_t>(UnZigZag(low));
  if (span == 0) {
    values->assign(count, static_cast<int64_t>(base_value));
    (*values)[0] = UnZigZag(first);
    return true;
  }
  const RangePacking packing(span + 1);
  const size_t bytes = (packing.PackedBits(count - 1) + 7) / 8;
  if (bytes > in->size()) return false;  // before allocating for `count`
  values->resize(count);
  (*values)[0] = UnZigZag(first);
  BitReader bits(in->substr(0, bytes));
  const GroupUnpacker unpacker{&packing, base_value};
  const size_t digits = packing.digits();
  const size_t full_groups = (count - 1) / digits, last = (count - 1) % digits;
  int64_t* out = values->data() + 1;
  const bool ok = WithDigits(digits, [&](auto k) {
    return unpacker.Groups<decltype(k)::value>(bits, full_groups, last, needed, out);
  });
  if (!ok) return false;
  in->remove_prefix(bytes);
  return true;
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

// The smallest and largest of every value but the first.
struct Range {
  int64_t low = 0;
  uint64_t span = 0;  // high − low
};

// What the three forms' sizes depend on, in one pass over the values: the
// run-length form's bytes, and the width and range of every value but the
// first, which is stored whole (after a delta transform it is the base, far
// larger than the deltas).
struct SequenceShape {
  size_t run_length_size = 1;
  int width = 0;
  Range range;
};

SequenceShape ShapeOf(const std::vector<int64_t>& values) {
  SequenceShape shape;
  uint64_t all = 0;
  int64_t low = values.size() > 1 ? values[1] : 0, high = low;
  size_t run_start = 0;
  for (size_t i = 1; i < values.size(); ++i) {
    const int64_t v = values[i];
    all |= ZigZag(v);
    low = std::min(low, v);
    high = std::max(high, v);
    if (v != values[run_start]) {
      shape.run_length_size += VarintSize(ZigZag(values[run_start])) + VarintSize(i - run_start - 1);
      run_start = i;
    }
  }
  if (!values.empty()) {
    shape.run_length_size +=
        VarintSize(ZigZag(values[run_start])) + VarintSize(values.size() - run_start - 1);
  }
  shape.width = 64 - std::countl_zero(all);
  shape.range = {low, static_cast<uint64_t>(high) - static_cast<uint64_t>(low)};
  return shape;
}

void EncodeRangePacked(const std::vector<int64_t>& values, const Range& range, std::string* out) {
  out->push_back(static_cast<char>(IntEncoding::kRangePacked));
  PutVarint64(out, ZigZag(values[0]));
  PutVarint64(out, ZigZag(range.low));
  PutVarint64(out, range.span);
  if (range.span == 0) return;  // every value is `low`: nothing to pack
  const RangePacking packing(range.span + 1);
  BitWriter bits(out);
  const auto digit = [&](size_t i) {
    return static_cast<uint64_t>(values[i]) - static_cast<uint64_t>(range.low);
  };
  for (size_t start = 1; start < values.size(); start += packing.digits()) {
    const size_t digits = std::min<size_t>(packing.digits(), values.size() - start);
    // The group's first value is its lowest digit: Horner from the last.
    uint64_t group = 0;
    for (size_t j = digits; j-- > 0;) group = group * packing.base() + digit(start + j);
    const int width = packing.Width(digits);
    // BitWriter takes at most 64 bits; a group has at most 63.
    bits.Write(group, width);
  }
  bits.Flush();
}

}  // namespace

RangePacking::RangePacking(uint64_t base) : base_(base) {
  // Digits a group could hold: base^g ≤ 2^63 (the group's value then fits
  // 63 bits, which the fast division below needs), and at most
  // kMaxGroupDigits.
  size_t possible = 0;
  unsigned __int128 power = 1;
  powers_[0] = 1;
  while (possible < kMaxGroupDigits) {
    power *= base;
    if (power > (static_cast<unsigned __int128>(1) << 63)) break;
    powers_[++possible] = static_cast<uint64_t>(power);
    widths_[possible] = std::bit_width(static_cast<uint64_t>(power - 1));
  }
  // The group size that wastes the fewest bits a digit (the first on ties).
  digits_ = 1;
  for (size_t g = 2; g <= possible; ++g) {
    if (widths_[g] * digits_ < widths_[digits_] * g) digits_ = g;
  }
  // Granlund–Montgomery for each divisor d = base^j: with l = ⌈log2 d⌉ and
  // m = ⌈2^(63+l) / d⌉, ⌊a / d⌋ = ⌊a·m / 2^(63+l)⌋ for every a < 2^63, and m < 2^64.
  // As 63 + l ≥ 64, the shift is the product's high word shifted by l − 1. Only the
  // powers a group's digits divide by: each costs a 128-bit division, and a packing is made
  // for every sequence encoded or decoded.
  const unsigned __int128 one = 1;
  for (size_t j = 1; j <= digits_; ++j) {
    const uint64_t divisor = powers_[j];
    const int l = std::bit_width(divisor - 1);
    const unsigned __int128 numerator = one << (63 + l);
    multipliers_[j] =
        static_cast<uint64_t>(numerator / divisor + (numerator % divisor != 0 ? 1 : 0));
    high_shifts_[j] = l - 1;
  }
}

size_t RangePacking::PackedBits(size_t count) const {
  const size_t full = count / digits_, rest = count % digits_;
  return full * widths_[digits_] + (rest > 0 ? widths_[rest] : 0);
}

namespace {

// Which form EncodeInts writes for `values` and how many bytes it takes.
struct IntsPlan {
  IntEncoding encoding = IntEncoding::kRunLength;
  size_t size = 1;
  int width = 0;  // kBitPacked
  Range range;    // kRangePacked
};

IntsPlan PlanInts(const std::vector<int64_t>& values) {
  if (values.empty()) return {};
  const SequenceShape shape = ShapeOf(values);
  const int width = shape.width;
  const Range& range = shape.range;
  const size_t rest = values.size() - 1;
  const size_t first_size = VarintSize(ZigZag(values[0]));
  const size_t packed_size = 2 + first_size + (rest * width + 7) / 8;
  const size_t run_length_size = shape.run_length_size;
  size_t range_size = SIZE_MAX;
  if (range.span < kMaxRangePackedSpan) {
    range_size = 1 + first_size + VarintSize(ZigZag(range.low)) + VarintSize(range.span);
    if (range.span > 0) range_size += (RangePacking(range.span + 1).PackedBits(rest) + 7) / 8;
  }
  // Ties go to the simpler forms, which decode faster.
  if (run_length_size <= packed_size && run_length_size <= range_size) {
    return {.encoding = IntEncoding::kRunLength, .size = run_length_size};
  }
  if (packed_size <= range_size) {
    return {.encoding = IntEncoding::kBitPacked, .size = packed_size, .width = width};
  }
  return {.encoding = IntEncoding::kRangePacked, .size = range_size, .range = range};
}

}  // namespace

void EncodeInts(const std::vector<int64_t>& values, std::string* out) {
  const IntsPlan plan = PlanInts(values);
  switch (plan.encoding) {
    case IntEncoding::kRunLength:
      return EncodeRunLength(values, out);
    case IntEncoding::kBitPacked:
      return EncodeBitPacked(values, plan.width, out);
    case IntEncoding::kRangePacked:
      return EncodeRangePacked(values, plan.range, out);
  }
}

size_t EncodedIntsSize(const std::vector<int64_t>& values) { return PlanInts(values).size; }

bool DecodeInts(std::string_view* in, size_t count, std::vector<int64_t>* values,
                const NeededValues* needed) {
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
  if (encoding == IntEncoding::kRangePacked) {
    if (needed != nullptr && !WithinCount(*needed, count)) needed = nullptr;
    return DecodeRangePacked(in, count, values, needed);
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
