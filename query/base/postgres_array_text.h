// PostgreSQL's array text, as psql users and drivers write an array in a literal:
// `'{a,b,"c d",NULL}'::text[]`, `col #> '{sensor,0}'`. Strata casts VARCHAR to an array
// from this form or from JSON's (`["a","b"]`); a text starting with `{` cannot be a JSON
// array, so the two never meet. Thread-safe (a pure function).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace strata::query {

// True if `text` (after leading whitespace) opens with `{`: it is meant as an array text.
bool LooksLikePostgresArrayText(std::string_view text);

// The elements of `{...}`: each unquoted element trimmed of whitespace and unescaped
// (a backslash keeps the next character), a quoted one unescaped, an unquoted NULL (any
// case) as nullopt, and a nested `{...}` as its text, braces and all, for the element
// type's own cast to read. nullopt when the text is no such array (a missing brace or
// quote, an empty element, text after the closing brace) or has more elements than one array
// holds (kMaxNestedValues: a 16 MB text of "1,1,..." would make 8 million values, near a
// gigabyte, in one short query).
std::optional<std::vector<std::optional<std::string>>> SplitPostgresArrayText(
    std::string_view text);

}  // namespace strata::query
