// Debian 12 builds Abseil with its own absl::string_view, which does not
// convert from std::string_view; these adapt the two in the CLI.
#pragma once

#include <string_view>

#include "absl/strings/ascii.h"
#include "absl/strings/string_view.h"

namespace strata::cli {

inline absl::string_view ToAbsl(std::string_view text) { return {text.data(), text.size()}; }

inline std::string_view Trim(std::string_view text) {
  absl::string_view trimmed = absl::StripAsciiWhitespace(ToAbsl(text));
  return {trimmed.data(), trimmed.size()};
}

}  // namespace strata::cli
