// SQL text quoted as PostgreSQL's quote_ident and quote_literal quote it: for the names and
// values Strata writes into SQL for clients (the PostgreSQL catalog's answers, quote_ident(),
// format('%I', '%L')). Thread-safe (pure functions).
#pragma once

#include <string>
#include <string_view>

namespace strata {

// The name bare when it needs no quotes (a lower-case letter or _, then lower-case letters,
// digits, _ and $), else in double quotes with its own doubled: "Web Server".
std::string QuoteIdentIfNeeded(std::string_view name);

// The text as a string literal: in single quotes with its own doubled ('it''s'); a text
// holding a backslash is written E'...' with the backslashes doubled, as PostgreSQL does.
std::string QuoteLiteral(std::string_view text);

}  // namespace strata
