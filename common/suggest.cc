#include "common/suggest.h"

#include <algorithm>
#include <cctype>

#include "common/strings.h"

namespace strata {

int EditDistance(std::string_view a, std::string_view b) {
  std::vector<int> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = static_cast<int>(j);
  for (size_t i = 1; i <= a.size(); ++i) {
    int diagonal = row[0];
    row[0] = static_cast<int>(i);
    for (size_t j = 1; j <= b.size(); ++j) {
      int up = row[j];
      bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                  std::tolower(static_cast<unsigned char>(b[j - 1]));
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (same ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

std::string NearestName(std::string_view name, const std::vector<std::string_view>& candidates) {
  int limit = std::max<int>(1, static_cast<int>(name.size()) / 3);
  std::string_view best;
  int best_distance = limit + 1;
  for (std::string_view candidate : candidates) {
    int d = EditDistance(name, candidate);
    if (d < best_distance) {
      best_distance = d;
      best = candidate;
    }
  }
  return std::string(best);
}

std::string DidYouMean(std::string_view name, const std::vector<std::string_view>& candidates) {
  std::string nearest = NearestName(name, candidates);
  if (nearest.empty()) return "";
  return StrCat("; did you mean \"", nearest, "\"?");
}

}  // namespace strata
