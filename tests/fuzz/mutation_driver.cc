// The block decoder's driver without libFuzzer (driver.h): byte mutations
// (byte_mutator.h) of valid blocks of every column type.
#include <string>
#include <vector>

#include "storage/blocks/block.h"
#include "tests/fuzz/byte_mutator.h"
#include "tests/fuzz/driver.h"

namespace {

using strata::Value;
using strata::format::BlockPoint;

std::vector<std::string> Seeds() {
  std::vector<std::vector<BlockPoint>> shapes(4);
  for (int i = 0; i < 40; ++i) {
    const int64_t t = 1'700'000'000'000'000'000 + i * 10'000'000'000LL + (i % 3);
    shapes[0].push_back({t, 1, {{"v", Value::Double(i * 0.25)}}});
    shapes[1].push_back({t, 1 + i / 10, {{"n", Value::Bigint(i * i)}, {"s", Value::Varchar(i % 2 ? "a" : "bb")}}});
    shapes[2].push_back({t, 1, {{"b", Value::Boolean(i % 3 == 0)}, {"ts", Value::Timestamp(t)}}});
    if (i % 2) shapes[3].push_back({t, 2, {{"x", Value::Double(1.0 / (i + 1))}}});
    else shapes[3].push_back({t, 2, {{"y", Value::Bigint(-i)}}});
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
