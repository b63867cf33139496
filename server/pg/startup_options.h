// libpq's `options` startup parameter ("-c TimeZone=Asia/Tokyo -c application_name=etl", also
// "--name=value"): the settings a client asks for as it connects, as PostgreSQL reads them.
// psql takes them as `options=...` in its connection string; SQLAlchemy and psycopg users set
// the session's zone this way (connect_args={"options": "-c timezone=utc"}).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace strata::pg {

// The (name, value) pairs `options` sets, in order: words split at unescaped whitespace (a
// backslash keeps the next character), each `-c name=value` (or `-cname=value`) or
// `--name=value`, a name's dashes made underscores and its letters lower case, as PostgreSQL
// names settings. nullopt, with `*error` saying why, for a word of another kind (PostgreSQL's
// other command-line switches) or one without "=".
std::optional<std::vector<std::pair<std::string, std::string>>> ParseStartupOptions(
    std::string_view options, std::string* error);

}  // namespace strata::pg
