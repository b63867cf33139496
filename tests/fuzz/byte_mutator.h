// Deterministic byte-level mutations for the fuzz drivers that run without
// libFuzzer (ctest): bit flips, byte overwrites, truncations, insertions,
// chunks spliced from other seeds, and varint-shaped bytes.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace strata::fuzz {

inline std::string MutateBytes(std::string input, std::mt19937_64& random,
                               const std::vector<std::string>& seeds) {
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
        if (other.empty()) break;
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

}  // namespace strata::fuzz
