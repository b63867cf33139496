#include "common/json_text.h"

#include "common/utf8.h"
#include "fmt/format.h"

namespace strata {

void AppendJsonString(std::string_view text, std::string* out) {
  const std::string valid = IsValidUtf8(text) ? std::string() : ToValidUtf8(text);
  const std::string_view s = valid.empty() ? text : std::string_view(valid);
  out->push_back('"');
  for (char c : s) {
    switch (c) {
      case '"':
        *out += "\\\"";
        break;
      case '\\':
        *out += "\\\\";
        break;
      case '\n':
        *out += "\\n";
        break;
      case '\r':
        *out += "\\r";
        break;
      case '\t':
        *out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          fmt::format_to(std::back_inserter(*out), "\\u{:04x}", static_cast<unsigned>(c));
        } else {
          out->push_back(c);
        }
    }
  }
  out->push_back('"');
}

}  // namespace strata
