// String building for messages and keys.
//
// Debian 12's Abseil is built with its own absl::string_view, which
// std::string_view does not convert to, so absl::StrCat cannot take our
// std::string_view arguments. StrCat here does the same job through fmt.
#pragma once

#include <iterator>
#include <optional>
#include <string>
#include <string_view>

#include "absl/strings/string_view.h"
#include "fmt/format.h"

// Lets fmt and spdlog print absl::Status::message() directly.
template <>
struct fmt::formatter<absl::string_view> : fmt::formatter<std::string_view> {
  auto format(absl::string_view s, fmt::format_context& ctx) const {
    return fmt::formatter<std::string_view>::format(std::string_view(s.data(), s.size()), ctx);
  }
};

namespace strata {

// `s` without leading and trailing ASCII whitespace.
inline std::string_view StripWhitespace(std::string_view s) {
  constexpr std::string_view kSpace = " \t\r\n\f\v";
  const size_t begin = s.find_first_not_of(kSpace);
  if (begin == std::string_view::npos) return {};
  return s.substr(begin, s.find_last_not_of(kSpace) - begin + 1);
}

// True when `part` occurs in `text` (std::string_view::contains is C++23).
inline bool Contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

// True when `a` and `b` are equal but for ASCII case.
inline bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const char x = a[i] >= 'A' && a[i] <= 'Z' ? a[i] + ('a' - 'A') : a[i];
    const char y = b[i] >= 'A' && b[i] <= 'Z' ? b[i] + ('a' - 'A') : b[i];
    if (x != y) return false;
  }
  return true;
}

// A boolean's text as PostgreSQL reads it (any case, whitespace around it): true, t, yes, y,
// on, 1 and false, f, no, n, off, 0; nullopt for other text.
inline std::optional<bool> ParseBooleanText(std::string_view text) {
  text = StripWhitespace(text);
  for (std::string_view word : {"true", "t", "yes", "y", "on", "1"}) {
    if (EqualsIgnoreCase(text, word)) return true;
  }
  for (std::string_view word : {"false", "f", "no", "n", "off", "0"}) {
    if (EqualsIgnoreCase(text, word)) return false;
  }
  return std::nullopt;
}

// The value of a hex digit (either case), or -1 for any other character.
inline int HexDigitValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

template <typename... Args>
std::string StrCat(const Args&... args) {
  std::string out;
  (fmt::format_to(std::back_inserter(out), "{}", args), ...);
  return out;
}

}  // namespace strata
