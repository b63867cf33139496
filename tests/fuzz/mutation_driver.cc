// A main() for fuzz targets when libFuzzer is not in use (the gcc build and
// ctest): replays the files given as arguments, then feeds the target
// deterministic mutations (bit flips, byte overwrites, truncations,
// insertions, spliced chunks) of valid blocks. scripts/fuzz.sh builds the same
// target with clang's libFuzzer for open-ended runs.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "storage/format/block.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

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

std::string Mutate(std::string input, std::mt19937_64& random, const std::vector<std::string>& seeds) {
  const int mutations = 1 + static_cast<int>(random() % 4);
  for (int m = 0; m < mutations; ++m) {
    const size_t at = input.empty() ? 0 : random() % input.size();
    switch (random() % 6) {
      case 0:
        if (!input.empty()) input[at] ^= static_cast<char>(1u << (random() % 8));
        break;
      case 1:
        if (!input.empty()) input[at] = static_cast<char>(random());
        break;
      case 2:
        input.resize(at);
        break;
      case 3:
        input.insert(at, 1, static_cast<char>(random()));
        break;
      case 4: {  // a chunk of another seed, as fuzzers splice
        const std::string& other = seeds[random() % seeds.size()];
        const size_t from = random() % other.size();
        input.insert(at, other.substr(from, random() % 16));
        break;
      }
      default:  // an interesting varint: the largest, or a count-like value
        if (!input.empty()) input[at] = static_cast<char>(random() % 2 ? 0xff : 0x7f);
        break;
    }
  }
  return input;
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::ifstream file(argv[i], std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  }
  const std::vector<std::string> seeds = Seeds();
  const char* env = std::getenv("STRATA_FUZZ_ITERATIONS");
  const long iterations = env != nullptr ? std::atol(env) : 200'000;
  std::mt19937_64 random(20261121);
  for (long i = 0; i < iterations; ++i) {
    const std::string input = Mutate(seeds[i % seeds.size()], random, seeds);
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(input.data()), input.size());
  }
  std::printf("block decoder: %ld mutated inputs, no crash\n", iterations);
  return 0;
}
