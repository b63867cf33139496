// The web console's built files (console/dist), compiled into stratad by
// cmake/embed_console.cmake.
#pragma once

#include <string_view>

#include "absl/types/span.h"

namespace strata {

struct ConsoleAsset {
  std::string_view path;  // "/index.html", "/app.js", "/app.css"
  std::string_view content_type;
  std::string_view body;
};

// Empty when the console was not built (no Node.js where stratad was built).
absl::Span<const ConsoleAsset> ConsoleAssets();

}  // namespace strata
