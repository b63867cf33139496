// The main() of a fuzz target when libFuzzer is not in use (the gcc build and
// ctest): replays the files named on the command line, then feeds the target
// deterministic mutations of its seeds, bounded by STRATA_FUZZ_ITERATIONS
// and STRATA_FUZZ_SECONDS, whichever ends first. The mutations are the same on
// every run, so the iteration bound (each target's default: some seconds of
// work) is what makes a ctest run reproducible, and more of the same sequence
// finds little; the search for new inputs is scripts/fuzz.sh's, which builds
// the same targets with clang's libFuzzer for coverage-guided runs.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iterator>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace strata::fuzz {

using Mutator = std::function<std::string(std::string input, std::mt19937_64& random,
                                          const std::vector<std::string>& seeds)>;

inline int RunDriver(int argc, char** argv, const char* name, const std::vector<std::string>& seeds,
                     const Mutator& mutate, long default_iterations) {
  auto run = [](const std::string& input) {
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(input.data()), input.size());
  };
  for (int i = 1; i < argc; ++i) {
    std::ifstream file(argv[i], std::ios::binary);
    run(std::string((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>()));
  }
  for (const std::string& seed : seeds) run(seed);  // the seeds themselves first
  const char* iterations_env = std::getenv("STRATA_FUZZ_ITERATIONS");
  const long iterations = iterations_env != nullptr ? std::atol(iterations_env) : default_iterations;
  const char* seconds_env = std::getenv("STRATA_FUZZ_SECONDS");
  const auto end = std::chrono::steady_clock::now() +
                   std::chrono::seconds(seconds_env != nullptr ? std::atol(seconds_env) : 600);
  const bool verbose = std::getenv("STRATA_FUZZ_VERBOSE") != nullptr;
  std::mt19937_64 random(20261122);
  long done = 0;
  for (; done < iterations && std::chrono::steady_clock::now() < end; ++done) {
    const std::string input = mutate(seeds[done % seeds.size()], random, seeds);
    // Verbose: each input before it runs, so the last one printed is the
    // one that crashed (save it to a file and pass it back to replay).
    if (verbose) std::fprintf(stderr, "--- %zu bytes\n%s\n", input.size(), input.c_str());
    run(input);
  }
  std::printf("%s: %ld mutated inputs from %zu seeds, no crash\n", name, done, seeds.size());
  return 0;
}

}  // namespace strata::fuzz
