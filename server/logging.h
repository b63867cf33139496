// spdlog set-up for stratad: human text, or one JSON object per line for log
// collectors. Log lines go to stderr.
#pragma once

#include <string>

namespace strata {

// `format` is "text" or "json"; `level` one of spdlog's level names.
void ConfigureLogging(const std::string& format, const std::string& level);

}  // namespace strata
