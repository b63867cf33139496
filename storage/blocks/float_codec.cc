#include "storage/blocks/float_codec.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <optional>

#include "common/coding.h"
#include "storage/blocks/bit_stream.h"
#include "storage/blocks/block_format.h"
#include "storage/blocks/int_codec.h"

namespace strata::format {
namespace {

constexpr double kPowersOfTen[kMaxDecimalScale + 1] = {
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12};

// `s` rounded to an integer, |s| < 2^53. Below 2^51 by the add-and-subtract
// trick (exact in round-to-nearest; two additions where llround is a call
// into libm, and the encoder rounds every value of every block); the
// encoder checks the result by dividing back, so how ties go is moot.
double RoundToInteger(double s) {
  constexpr double kMagic = 6755399441055744.0;  // 1.5 · 2^52
  if (std::fabs(s) < 2251799813685248.0) return (s + kMagic) - kMagic;
  return std::nearbyint(s);
}

uint64_t Bits(double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof(bits));
  return bits;
}

double FromBits(uint64_t bits) {
  double v;
  std::memcpy(&v, &bits, sizeof(v));
  return v;
}

// The decimal form at scale k (DoubleEncoding::kAlp): the values exact at k
// as integers, each of the others (the exceptions) replaced by its
// predecessor's integer so it costs nothing in the sequence, and stored whole
// after it; plain or delta-coded integers, whichever is smaller.
struct AlpPlan {
  int scale = 0;
  bool deltas = false;
  std::vector<int64_t> integers;  // delta-coded when `deltas`
  std::vector<int64_t> positions;  // of the exceptions
  size_t size = SIZE_MAX;         // bytes, as EncodeAlp writes them
};

// Empty (size SIZE_MAX) when no value is exact at k.
AlpPlan PlanAlp(const std::vector<double>& values, int k) {
  AlpPlan plan{.scale = k};
  std::vector<int64_t>& integers = plan.integers;
  integers.resize(values.size());
  std::optional<int64_t> previous;
  for (size_t i = 0; i < values.size(); ++i) {
    const std::optional<int64_t> r = Scaled(values[i], k);
    if (r) {
      // Exceptions before the first exact value take its integer.
      if (!previous) std::fill(integers.begin(), integers.begin() + i, *r);
      previous = r;
    } else {
      plan.positions.push_back(static_cast<int64_t>(i));
    }
    integers[i] = previous.value_or(0);
  }
  if (!previous) return {};
  std::vector<int64_t> deltas = Deltas(integers);
  const size_t plain_size = EncodedIntsSize(integers), delta_size = EncodedIntsSize(deltas);
  plan.deltas = delta_size < plain_size;
  if (plan.deltas) integers = std::move(deltas);
  plan.size = 2 + std::min(plain_size, delta_size);
  if (!plan.positions.empty()) {
    plan.size += VarintSize(plan.positions.size()) + EncodedIntsSize(Deltas(plan.positions)) +
                 8 * plan.positions.size();
  }
  return plan;
}

void EncodeAlp(const std::vector<double>& values, const AlpPlan& plan, std::string* out) {
  out->push_back(static_cast<char>(DoubleEncoding::kAlp));
  out->push_back(static_cast<char>(plan.scale | (plan.deltas ? kAlpDeltas : 0) |
                                   (plan.positions.empty() ? 0 : kAlpExceptions)));
  if (plan.positions.empty()) return EncodeInts(plan.integers, out);
  PutVarint64(out, plan.positions.size());
  EncodeInts(plan.integers, out);
  EncodeInts(Deltas(plan.positions), out);
  for (int64_t p : plan.positions) PutDouble(out, values[p]);
}

// The scales worth trying, from a sample of the values spread over the
// block (ALP samples too: finding each value's smallest scale is most of
// the encoder's work): where the most values are exact with at most a
// quarter of the sample exceptions (an exception costs ~10 bytes, a value in
// the sequence ~1), each scale at which more become exact. The encoder then
// checks every value at the scale it tries.
std::vector<int> CandidateScales(const std::vector<double>& values) {
  constexpr size_t kSample = 32;
  const size_t step = std::max<size_t>(1, values.size() / kSample);
  std::vector<size_t> at_scale(kMaxDecimalScale + 2, 0);
  size_t sampled = 0;
  for (size_t i = 0; i < values.size(); i += step, ++sampled) ++at_scale[SmallestScale(values[i])];
  const size_t allowed = sampled / 4;
  // Full-precision data: no scale to try.
  if (at_scale[kMaxDecimalScale + 1] > allowed) return {};
  std::vector<int> scales;
  size_t exact = 0;
  for (int k = 0; k <= kMaxDecimalScale; ++k) {
    if (at_scale[k] == 0) continue;
    exact += at_scale[k];
    if (sampled - exact <= allowed) scales.push_back(k);
  }
  return scales;
}

// Counts what a BitWriter would write: Gorilla's size without its bytes.
class BitCounter {
 public:
  void Write(uint64_t, int count) { bits_ += static_cast<size_t>(count); }
  void WriteBit(bool) { ++bits_; }
  size_t bytes() const { return (bits_ + 7) / 8; }

 private:
  size_t bits_ = 0;
};

// Gorilla's bits after the tag byte, into a BitWriter or a BitCounter.
template <typename Sink>
void GorillaBits(const std::vector<double>& values, Sink& bits) {
  if (values.empty()) return;
  uint64_t previous = Bits(values[0]);
  bits.Write(previous, 64);
  int window_lead = -1, window_trail = 0;  // no window yet
  for (size_t i = 1; i < values.size(); ++i) {
    const uint64_t current = Bits(values[i]);
    const uint64_t x = current ^ previous;
    previous = current;
    if (x == 0) {
      bits.WriteBit(false);
      continue;
    }
    bits.WriteBit(true);
    const int lead = std::min(std::countl_zero(x), 31);
    const int trail = std::countr_zero(x);
    if (window_lead >= 0 && lead >= window_lead && trail >= window_trail) {
      // The meaningful bits fit the previous window: reuse it.
      bits.WriteBit(false);
      bits.Write(x >> window_trail, 64 - window_lead - window_trail);
      continue;
    }
    const int length = 64 - lead - trail;  // 1..64
    bits.WriteBit(true);
    bits.Write(lead, 5);
    bits.Write(length - 1, 6);
    bits.Write(x >> trail, length);
    window_lead = lead;
    window_trail = trail;
  }
}

size_t GorillaSize(const std::vector<double>& values) {
  BitCounter counter;
  GorillaBits(values, counter);
  return 1 + counter.bytes();
}

void EncodeGorilla(const std::vector<double>& values, std::string* out) {
  out->push_back(static_cast<char>(DoubleEncoding::kGorilla));
  BitWriter bits(out);
  GorillaBits(values, bits);
  bits.Flush();
}

bool DecodeGorilla(std::string_view* in, size_t count, std::vector<double>* values) {
  if (count == 0) return true;
  // Every value takes at least one bit: refuse counts the input cannot hold
  // before reserving.
  if (count - 1 > in->size() * 8) return false;
  BitReader bits(*in);
  uint64_t previous;
  if (!bits.Read(64, &previous)) return false;
  values->reserve(count);
  values->push_back(FromBits(previous));
  int window_lead = -1, window_trail = 0;
  for (size_t i = 1; i < count; ++i) {
    bool changed, new_window;
    if (!bits.ReadBit(&changed)) return false;
    if (changed) {
      if (!bits.ReadBit(&new_window)) return false;
      if (new_window) {
        uint64_t lead, length_minus_one;
        if (!bits.Read(5, &lead) || !bits.Read(6, &length_minus_one)) return false;
        const int length = static_cast<int>(length_minus_one) + 1;
        if (static_cast<int>(lead) + length > 64) return false;
        window_lead = static_cast<int>(lead);
        window_trail = 64 - window_lead - length;
      } else if (window_lead < 0) {
        return false;  // a reused window before any window exists
      }
      uint64_t meaningful;
      if (!bits.Read(64 - window_lead - window_trail, &meaningful)) return false;
      previous ^= meaningful << window_trail;
    }
    values->push_back(FromBits(previous));
  }
  in->remove_prefix(bits.bytes_consumed());
  return true;
}

// The integers, their scale k, to doubles: r / 10^k, as the encoders checked; with
// `needed`, only those (the others 0).
void Unscale(const std::vector<int64_t>& integers, int k, const NeededValues* needed,
             std::vector<double>* values) {
  values->assign(integers.size(), 0.0);
  double* out = values->data();
  if (needed == nullptr) {
    for (size_t i = 0; i < integers.size(); ++i) out[i] = Unscaled(integers[i], k);
    return;
  }
  for (uint32_t i : *needed) out[i] = Unscaled(integers[i], k);
}

bool DecodeDecimal(std::string_view* in, size_t count, const NeededValues* needed,
                   std::vector<double>* values) {
  if (in->empty()) return false;
  const int scale = static_cast<uint8_t>((*in)[0]);
  in->remove_prefix(1);
  if (scale > kMaxDecimalScale) return false;
  std::vector<int64_t> scaled;
  if (!DecodeInts(in, count, &scaled)) return false;
  UndoDeltas(&scaled);
  Unscale(scaled, scale, needed, values);
  return true;
}

bool DecodeAlp(std::string_view* in, size_t count, const NeededValues* needed,
               std::vector<double>* values) {
  Decoder decoder(*in);
  uint8_t head;
  if (!decoder.GetByte(&head)) return false;
  const int scale = head & kAlpScaleMask;
  if (scale > kMaxDecimalScale || (head & ~(kAlpScaleMask | kAlpDeltas | kAlpExceptions))) {
    return false;
  }
  uint64_t exceptions = 0;
  if ((head & kAlpExceptions) &&
      (!decoder.GetVarint64(&exceptions) || exceptions == 0 || exceptions > count)) {
    return false;
  }
  std::string_view rest = decoder.rest();
  std::vector<int64_t> integers;
  // Deltas need every integer before them; plain integers only the needed ones.
  if (!DecodeInts(&rest, count, &integers, (head & kAlpDeltas) ? nullptr : needed)) return false;
  if (head & kAlpDeltas) UndoDeltas(&integers);
  Unscale(integers, scale, needed, values);
  if (exceptions > 0) {
    std::vector<int64_t> positions;
    if (!DecodeInts(&rest, exceptions, &positions)) return false;
    UndoDeltas(&positions);
    Decoder whole(rest);
    int64_t previous = -1;
    for (int64_t p : positions) {
      // Strictly increasing positions inside the block.
      if (p <= previous || p >= static_cast<int64_t>(count)) return false;
      previous = p;
      if (!whole.GetDouble(&(*values)[p])) return false;
    }
    rest = whole.rest();
  }
  *in = rest;
  return true;
}

}  // namespace

std::optional<int64_t> Scaled(double v, int k) {
  const double s = v * kPowersOfTen[k];
  if (!(std::fabs(s) < 9007199254740992.0)) return std::nullopt;
  const auto r = static_cast<int64_t>(RoundToInteger(s));
  if (Bits(Unscaled(r, k)) != Bits(v)) return std::nullopt;
  return r;
}

int SmallestScale(double v) {
  for (int k = 0; k <= kMaxDecimalScale; ++k) {
    if (Scaled(v, k)) return k;
  }
  return kMaxDecimalScale + 1;
}

double Unscaled(int64_t r, int k) { return static_cast<double>(r) / kPowersOfTen[k]; }

void EncodeDoubles(const std::vector<double>& values, std::string* out) {
  // Sizes first, then only the smallest form is written.
  AlpPlan best;
  for (int k : CandidateScales(values)) {
    AlpPlan plan = PlanAlp(values, k);
    if (plan.size < best.size) best = std::move(plan);
  }
  if (best.size < GorillaSize(values)) {
    EncodeAlp(values, best, out);
  } else {
    EncodeGorilla(values, out);
  }
}

bool DecodeDoubles(std::string_view* in, size_t count, std::vector<double>* values,
                   const NeededValues* needed) {
  values->clear();
  if (needed != nullptr && !WithinCount(*needed, count)) needed = nullptr;
  if (in->empty()) return false;
  const auto encoding = static_cast<DoubleEncoding>((*in)[0]);
  in->remove_prefix(1);
  if (encoding == DoubleEncoding::kGorilla) return DecodeGorilla(in, count, values);
  if (encoding == DoubleEncoding::kDecimal) return DecodeDecimal(in, count, needed, values);
  if (encoding == DoubleEncoding::kAlp) return DecodeAlp(in, count, needed, values);
  return false;
}

}  // namespace strata::format
