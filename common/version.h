// What SQL's version() answers.
#pragma once

#include <string_view>

namespace strata {

// PostgreSQL's way ("PostgreSQL 15.0 (Strata 0.1.0; ...)"): tools that read the PostgreSQL
// version from it find the protocol version Strata speaks, people the project's version.
std::string_view VersionText();

}  // namespace strata
