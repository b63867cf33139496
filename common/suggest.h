// "Did you mean" suggestions for unknown names (tables, columns, functions).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace strata {

// Edit distance with adjacent transpositions (optimal string alignment),
// ASCII case-insensitive.
int EditDistance(std::string_view a, std::string_view b);

// The candidate closest to `name` if it is close enough to be a plausible
// typo (distance at most a third of the name's length, and at least 1 edit
// allowed); otherwise empty.
std::string NearestName(std::string_view name, const std::vector<std::string_view>& candidates);

// `; did you mean "x"?` or the empty string.
std::string DidYouMean(std::string_view name, const std::vector<std::string_view>& candidates);

}  // namespace strata
