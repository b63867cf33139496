// UTF-8 for text that leaves the server. Every string Strata emits (query
// values, column names, error messages, rejection reasons) must be well
// formed: protobuf refuses to parse a `string` field that is not, so one bad
// byte makes a whole response unreadable to the client. String functions
// count code points, as Presto's do.
//
// Well formed is RFC 3629: no overlong forms, no surrogates, nothing above
// U+10FFFF. Thread-safe (pure functions).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/unaligned.h"

namespace strata {

// The byte length of the well-formed character at the start of `s`, or 0 if
// `s` does not start with one.
size_t Utf8CharLength(std::string_view s);

bool IsValidUtf8(std::string_view s);

// Whether every byte is below 0x80 (then `s` is UTF-8): a cheaper test first
// for readers that must also agree with another validator on other input.
// Inline: the write path runs it for every name and value it reads.
inline bool IsAscii(std::string_view s) {
  const char* p = s.data();
  const size_t n = s.size();
  auto word = LoadUnaligned<uint64_t>;
  auto half = [](const char* at) { return uint64_t{LoadUnaligned<uint32_t>(at)}; };
  // Whole words, then the tail as one more load ending at the last byte
  // (overlapping bytes already seen): names and values are mostly under 16
  // bytes, where a loop over the tail's bytes cost more than the words.
  uint64_t seen = 0;
  if (n >= 8) {
    for (size_t i = 0; i + 8 < n; i += 8) seen |= word(p + i);
    seen |= word(p + n - 8);
  } else if (n >= 4) {
    seen = half(p) | half(p + n - 4);
  } else if (n > 0) {
    seen = static_cast<uint8_t>(p[0]) | static_cast<uint8_t>(p[n / 2]) |
           static_cast<uint8_t>(p[n - 1]);
  }
  return (seen & 0x8080808080808080ULL) == 0;
}

// `s` with each ill-formed byte replaced by U+FFFD.
std::string ToValidUtf8(std::string_view s);

// The longest prefix of `s` of at most `max_bytes` that does not end inside a
// character.
std::string_view Utf8Prefix(std::string_view s, size_t max_bytes);

// `s` for quoting in a message: well formed and at most `max_bytes` (then cut
// at a character boundary and marked "...(N bytes)"), so a 1 MB name cannot
// make a 1 MB error.
std::string EchoInput(std::string_view s, size_t max_bytes = 100);

// Appends the UTF-8 of code point `c`; false (nothing appended) for a
// surrogate or a value past U+10FFFF.
bool AppendCodePoint(int64_t c, std::string* out);

// `s` in lower or upper case: each code point by Unicode's simple case mapping
// (one code point for one, as Java's Character.toLowerCase, which Presto's
// lower and upper use: 'É' to 'é', 'ß' stays), read from the C library's
// C.UTF-8 locale; ill-formed bytes are kept. Where that locale is missing,
// ASCII letters only.
std::string Utf8ToLower(std::string_view s);
std::string Utf8ToUpper(std::string_view s);
// Each word's first letter in upper case and its others in lower case, a word being a run of
// letters and digits (PostgreSQL's initcap: 'hello wORLD-2x' to 'Hello World-2x').
std::string Utf8InitCap(std::string_view s);

// Code points in `s` (ill-formed bytes count one each).
int64_t Utf8Length(std::string_view s);

// The byte offset of code point `index` (0-based) in `s`, or s.size() when
// `s` has no more than `index` code points.
size_t Utf8Offset(std::string_view s, int64_t index);

}  // namespace strata
