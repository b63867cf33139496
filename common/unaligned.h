// Loads and stores of a word at any address, in the machine's byte order:
// for code that tests, compares or copies short strings a word at a time
// (std::memcpy of a fixed size compiles to one move). Thread-safe.
#pragma once

#include <cstring>

namespace strata {

template <typename Word>
inline Word LoadUnaligned(const char* p) {
  Word w;
  std::memcpy(&w, p, sizeof w);
  return w;
}

template <typename Word>
inline void StoreUnaligned(char* p, Word w) {
  std::memcpy(p, &w, sizeof w);
}

}  // namespace strata
