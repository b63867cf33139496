#include "common/utf8.h"

#include <locale.h>
#include <wctype.h>

#include <cstring>

#include "common/strings.h"

namespace strata {

size_t Utf8CharLength(std::string_view s) {
  if (s.empty()) return 0;
  const auto b = [&s](size_t i) { return static_cast<uint8_t>(s[i]); };
  const uint8_t c = b(0);
  if (c < 0x80) return 1;
  size_t n = 0;
  uint8_t low = 0x80, high = 0xBF;  // the allowed range of the second byte
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) low = 0xA0;   // overlong
    if (c == 0xED) high = 0x9F;  // surrogates
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) low = 0x90;   // overlong
    if (c == 0xF4) high = 0x8F;  // above U+10FFFF
  } else {
    return 0;
  }
  if (s.size() < n || b(1) < low || b(1) > high) return 0;
  for (size_t i = 2; i < n; ++i) {
    if ((b(i) & 0xC0) != 0x80) return 0;
  }
  return n;
}

namespace {

constexpr uint64_t kHighBits = 0x8080808080808080ULL;

}  // namespace

bool IsValidUtf8(std::string_view s) {
  while (!s.empty()) {
    // ASCII runs are the common case (every value of many tables): step
    // over eight bytes at a time while none has its high bit set.
    uint64_t word;
    if (s.size() >= 8) {
      std::memcpy(&word, s.data(), 8);
      if ((word & kHighBits) == 0) {
        s.remove_prefix(8);
        continue;
      }
    }
    if (static_cast<uint8_t>(s[0]) < 0x80) {
      s.remove_prefix(1);
      continue;
    }
    size_t n = Utf8CharLength(s);
    if (n == 0) return false;
    s.remove_prefix(n);
  }
  return true;
}

std::string ToValidUtf8(std::string_view s) {
  // Nearly every text is well formed already (every rejection reason a write
  // answers with passes through here): checked a word at a time, then copied.
  if (IsValidUtf8(s)) return std::string(s);
  std::string out;
  out.reserve(s.size());
  while (!s.empty()) {
    size_t n = Utf8CharLength(s);
    if (n == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD REPLACEMENT CHARACTER
      n = 1;
    } else {
      out.append(s.data(), n);
    }
    s.remove_prefix(n);
  }
  return out;
}

std::string_view Utf8Prefix(std::string_view s, size_t max_bytes) {
  if (s.size() <= max_bytes) return s;
  size_t end = max_bytes;
  // Step back over continuation bytes to the start of the cut character.
  while (end > 0 && (static_cast<uint8_t>(s[end]) & 0xC0) == 0x80) --end;
  return s.substr(0, end);
}

bool AppendCodePoint(int64_t c, std::string* out) {
  if (c < 0 || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return false;
  if (c < 0x80) {
    out->push_back(static_cast<char>(c));
  } else if (c < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (c >> 6)));
    out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else if (c < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (c >> 12)));
    out->push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (c >> 18)));
    out->push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
  }
  return true;
}

namespace {

// The C library's Unicode case tables: the C.UTF-8 locale (libc-bin installs it on
// every Debian), made once and never freed; null where it is missing.
locale_t UnicodeLocale() {
  static const locale_t locale = newlocale(LC_CTYPE_MASK, "C.UTF-8", locale_t{});
  return locale;
}

// Each code point of `s` through `map` (uint32_t to uint32_t); an ill-formed byte is kept as it
// is, and so is a code point `map` turns into no valid one.
template <typename Map>
std::string MapCodePoints(std::string_view s, Map map) {
  std::string out;
  out.reserve(s.size());
  while (!s.empty()) {
    const size_t n = Utf8CharLength(s);
    const auto byte = static_cast<unsigned char>(s[0]);
    if (n <= 1 && byte < 0x80) {
      out.push_back(static_cast<char>(map(byte)));
      s.remove_prefix(1);
      continue;
    }
    if (n <= 1) {  // an ill-formed byte: kept, and `map` sees U+FFFD (no letter) in its place
      map(0xFFFDu);
      out.push_back(s[0]);
      s.remove_prefix(1);
      continue;
    }
    uint32_t c = static_cast<uint8_t>(s[0]) & (0x7F >> n);
    for (size_t i = 1; i < n; ++i) c = (c << 6) | (static_cast<uint8_t>(s[i]) & 0x3F);
    if (!AppendCodePoint(map(c), &out)) out.append(s.substr(0, n));
    s.remove_prefix(n);
  }
  return out;
}

template <typename MapAscii, typename MapWide>
std::string MapCase(std::string_view s, MapAscii ascii, MapWide wide) {
  const locale_t locale = UnicodeLocale();
  if (IsAscii(s) || locale == locale_t{}) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(ascii(static_cast<unsigned char>(c)));
    return out;
  }
  return MapCodePoints(s, [&](uint32_t c) -> uint32_t {
    return c < 0x80 ? ascii(static_cast<int>(c)) : wide(static_cast<wint_t>(c), locale);
  });
}

int AsciiLower(int c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }
int AsciiUpper(int c) { return c >= 'a' && c <= 'z' ? c - 32 : c; }

}  // namespace

std::string Utf8ToLower(std::string_view s) { return MapCase(s, AsciiLower, towlower_l); }

std::string Utf8ToUpper(std::string_view s) { return MapCase(s, AsciiUpper, towupper_l); }

std::string Utf8InitCap(std::string_view s) {
  const locale_t locale = UnicodeLocale();
  bool in_word = false;
  return MapCodePoints(s, [&](uint32_t c) -> uint32_t {
    const bool ascii = c < 0x80;
    const bool alnum = ascii ? (AsciiLower(static_cast<int>(c)) >= 'a' &&
                                AsciiLower(static_cast<int>(c)) <= 'z') ||
                                   (c >= '0' && c <= '9')
                             : locale != locale_t{} && iswalnum_l(static_cast<wint_t>(c), locale);
    uint32_t out = c;
    if (alnum && ascii) {
      out = static_cast<uint32_t>(in_word ? AsciiLower(static_cast<int>(c))
                                          : AsciiUpper(static_cast<int>(c)));
    } else if (alnum) {
      out = in_word ? towlower_l(static_cast<wint_t>(c), locale)
                    : towupper_l(static_cast<wint_t>(c), locale);
    }
    in_word = alnum;
    return out;
  });
}

std::string EchoInput(std::string_view s, size_t max_bytes) {
  if (s.size() <= max_bytes) return ToValidUtf8(s);
  return StrCat(ToValidUtf8(Utf8Prefix(s, max_bytes)), "...(", s.size(), " bytes)");
}

namespace {

// Whether the 8 bytes at `p` are all ASCII: each one character. Texts are mostly ASCII, and a
// call per character cost ~10 ms a MB.
bool AsciiWord(const char* p) { return (LoadUnaligned<uint64_t>(p) & 0x8080808080808080ULL) == 0; }

}  // namespace

int64_t Utf8Length(std::string_view s) {
  int64_t n = 0;
  size_t offset = 0;
  while (offset < s.size()) {
    if (offset + 8 <= s.size() && AsciiWord(s.data() + offset)) {
      offset += 8;
      n += 8;
      continue;
    }
    const size_t len = Utf8CharLength(s.substr(offset));
    offset += len == 0 ? 1 : len;
    ++n;
  }
  return n;
}

size_t Utf8Offset(std::string_view s, int64_t index) {
  size_t offset = 0;
  int64_t i = 0;
  while (i < index && offset < s.size()) {
    if (index - i >= 8 && offset + 8 <= s.size() && AsciiWord(s.data() + offset)) {
      offset += 8;
      i += 8;
      continue;
    }
    const size_t len = Utf8CharLength(s.substr(offset));
    offset += len == 0 ? 1 : len;
    ++i;
  }
  return offset;
}

}  // namespace strata
