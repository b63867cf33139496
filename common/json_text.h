// Writing JSON text by hand where a document is streamed (the HTTP SQL API's
// results): strings escaped per RFC 8259, made valid UTF-8 first.
#pragma once

#include <string>
#include <string_view>

namespace strata {

// Appends `text` as a JSON string, quotes included: `"`, `\` and control
// characters escaped, invalid UTF-8 replaced (U+FFFD).
void AppendJsonString(std::string_view text, std::string* out);

}  // namespace strata
