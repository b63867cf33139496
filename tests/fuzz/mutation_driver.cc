// The block decoder's driver without libFuzzer (driver.h): byte mutations
// (byte_mutator.h) of valid blocks of every column type.
#include <cmath>
#include <string>
#include <vector>

#include "storage/blocks/block.h"
#include "tests/fuzz/byte_mutator.h"
#include "tests/fuzz/driver.h"

namespace {

using strata::Value;
using strata::format::BlockPoint;

std::vector<std::string> Seeds() {
  std::vector<std::vector<BlockPoint>> shapes(6);
  double reading = 21.5;
  for (int i = 0; i < 40; ++i) {
    const int64_t t = 1'700'000'000'000'000'000 + i * 10'000'000'000LL + (i % 3);
    shapes[0].push_back({t, 1, {{"v", Value::Double(i * 0.25)}}});
    shapes[1].push_back({t, 1 + i / 10, {{"n", Value::Bigint(i * i)}, {"s", Value::Varchar(i % 2 ? "a" : "bb")}}});
    shapes[2].push_back({t, 1, {{"b", Value::Boolean(i % 3 == 0)}, {"ts", Value::Timestamp(t)}}});
    if (i % 2) shapes[3].push_back({t, 2, {{"x", Value::Double(1.0 / (i + 1))}}});
    else shapes[3].push_back({t, 2, {{"y", Value::Bigint(-i)}}});
    // Two decimals in steps of -0.03..+0.03 (range-packed deltas) with a NaN
    // and a full-precision value among them (the decimal form's exceptions).
    reading += ((i * 5) % 7 - 3) / 100.0;
    reading = static_cast<double>(static_cast<int64_t>(reading * 100 + 0.5)) / 100;
    const double odd = i == 5 ? std::nan("") : i == 30 ? 1.0 / 3 : reading;
    shapes[4].push_back({t, 1, {{"r", Value::Double(odd)}}});
    // Integers in a range far from zero: range-packed, not zig-zag bit-packed.
    shapes[5].push_back({t, 1, {{"k", Value::Bigint(1'000'000 + (i * 13) % 5)}}});
  }
  std::vector<std::string> seeds;
  for (const auto& points : shapes) seeds.push_back(*strata::format::EncodeBlock(points));
  return seeds;
}

}  // namespace

int main(int argc, char** argv) {
  return strata::fuzz::RunDriver(argc, argv, "block decoder", Seeds(), strata::fuzz::MutateBytes,
                                 200'000);
}
