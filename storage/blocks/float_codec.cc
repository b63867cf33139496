#include "storage/blocks/float_codec.h"

#include <bit>
#include <cmath>
#include <cstring>

#include "storage/blocks/bit_stream.h"
#include "storage/blocks/block_format.h"
#include "storage/blocks/int_codec.h"

namespace strata::format {
namespace {

constexpr double kPowersOfTen[kMaxDecimalScale + 1] = {
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12};

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

// The smallest scale k at which every value is exactly some integer / 10^k
// (the decode divides, so the check divides too), or -1.
int DecimalScale(const std::vector<double>& values, std::vector<int64_t>* scaled) {
  for (int k = 0; k <= kMaxDecimalScale; ++k) {
    scaled->clear();
    bool fits = true;
    for (double v : values) {
      const double s = v * kPowersOfTen[k];
      // 2^53: beyond it not every integer is a double.
      if (!(std::fabs(s) < 9007199254740992.0)) {
        fits = false;
        break;
      }
      const auto r = static_cast<int64_t>(std::llround(s));
      if (Bits(static_cast<double>(r) / kPowersOfTen[k]) != Bits(v)) {
        fits = false;
        break;
      }
      scaled->push_back(r);
    }
    if (fits) return k;
  }
  return -1;
}

void EncodeGorilla(const std::vector<double>& values, std::string* out) {
  out->push_back(static_cast<char>(DoubleEncoding::kGorilla));
  if (values.empty()) return;
  BitWriter bits(out);
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

}  // namespace

void EncodeDoubles(const std::vector<double>& values, std::string* out) {
  std::string gorilla;
  EncodeGorilla(values, &gorilla);
  std::vector<int64_t> scaled;
  const int scale = DecimalScale(values, &scaled);
  if (scale >= 0) {
    std::string decimal;
    decimal.push_back(static_cast<char>(DoubleEncoding::kDecimal));
    decimal.push_back(static_cast<char>(scale));
    EncodeInts(Deltas(scaled), &decimal);
    if (decimal.size() < gorilla.size()) {
      out->append(decimal);
      return;
    }
  }
  out->append(gorilla);
}

bool DecodeDoubles(std::string_view* in, size_t count, std::vector<double>* values) {
  values->clear();
  if (in->empty()) return false;
  const auto encoding = static_cast<DoubleEncoding>((*in)[0]);
  in->remove_prefix(1);
  if (encoding == DoubleEncoding::kGorilla) return DecodeGorilla(in, count, values);
  if (encoding != DoubleEncoding::kDecimal || in->empty()) return false;
  const int scale = static_cast<uint8_t>((*in)[0]);
  in->remove_prefix(1);
  if (scale > kMaxDecimalScale) return false;
  std::vector<int64_t> scaled;
  if (!DecodeInts(in, count, &scaled)) return false;
  UndoDeltas(&scaled);
  values->reserve(count);
  for (int64_t r : scaled) values->push_back(static_cast<double>(r) / kPowersOfTen[scale]);
  return true;
}

}  // namespace strata::format
