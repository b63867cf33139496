#include "query/parse/grouping_sets.h"

#include <algorithm>
#include <set>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "common/status.h"
#include "common/strings.h"

namespace strata::query {
namespace {

// For each of `keys`, the first key with its text.
std::vector<uint32_t> FirstOfEachText(const std::vector<ExprPtr>& keys) {
  absl::flat_hash_map<std::string, uint32_t> first;
  std::vector<uint32_t> out;
  for (uint32_t k = 0; k < keys.size(); ++k)
    out.push_back(first.try_emplace(keys[k]->ToString(), k).first->second);
  return out;
}

}  // namespace

std::vector<GroupingSet> RollupSets(const std::vector<uint32_t>& keys) {
  std::vector<GroupingSet> sets;
  for (size_t n = keys.size() + 1; n-- > 0;) sets.emplace_back(keys.begin(), keys.begin() + n);
  return sets;
}

std::optional<std::vector<GroupingSet>> CubeSets(const std::vector<uint32_t>& keys) {
  if (keys.size() >= 64 || (size_t{1} << keys.size()) > kMaxGroupingSets) return std::nullopt;
  std::vector<GroupingSet> sets;
  const size_t n = keys.size();
  for (uint64_t mask = (uint64_t{1} << n); mask-- > 0;) {
    GroupingSet set;
    // Bit n-1-k stands for key k, so the masks counting down give Presto's order.
    for (size_t k = 0; k < n; ++k) {
      if (mask >> (n - 1 - k) & 1) set.push_back(keys[k]);
    }
    sets.push_back(std::move(set));
  }
  return sets;
}

absl::StatusOr<std::vector<GroupingSet>> CrossGroupingSets(
    std::vector<std::vector<GroupingSet>> elements, const std::vector<ExprPtr>& keys, bool distinct,
    Position pos, std::string_view sql) {
  std::vector<GroupingSet> sets(1);
  for (const std::vector<GroupingSet>& element : elements) {
    if (sets.size() * element.size() > kMaxGroupingSets) {
      return SqlError(sql, pos,
                      StrCat("GROUP BY makes more than ", kMaxGroupingSets,
                             " grouping sets; group by fewer keys or name the sets you need with "
                             "GROUPING SETS"));
    }
    std::vector<GroupingSet> crossed;
    for (const GroupingSet& set : sets) {
      for (const GroupingSet& more : element) {
        GroupingSet& both = crossed.emplace_back(set);
        both.insert(both.end(), more.begin(), more.end());
      }
    }
    sets = std::move(crossed);
  }
  // A key named twice in a set groups once; with DISTINCT, a set named twice counts once.
  const std::vector<uint32_t> first = FirstOfEachText(keys);
  std::set<GroupingSet> seen_sets;
  std::vector<GroupingSet> out;
  for (const GroupingSet& set : sets) {
    GroupingSet unique;
    for (uint32_t k : set) {
      if (std::find(unique.begin(), unique.end(), first[k]) == unique.end()) {
        unique.push_back(first[k]);
      }
    }
    GroupingSet sorted = unique;
    std::sort(sorted.begin(), sorted.end());
    if (distinct && !seen_sets.insert(std::move(sorted)).second) continue;
    out.push_back(std::move(unique));
  }
  return out;
}

void SetGroupingSets(SelectStmt& select, std::vector<ExprPtr> keys, std::vector<GroupingSet> sets) {
  const std::vector<uint32_t> first = FirstOfEachText(keys);
  std::vector<int64_t> position(keys.size(), -1);  // in select.group_by
  select.group_by.clear();
  select.grouping_sets.clear();
  for (const GroupingSet& set : sets) {
    std::vector<uint32_t>& positions = select.grouping_sets.emplace_back();
    for (uint32_t k : set) {
      const uint32_t key = first[k];
      if (position[key] < 0) {
        position[key] = static_cast<int64_t>(select.group_by.size());
        select.group_by.push_back(std::move(keys[key]));
      }
      positions.push_back(static_cast<uint32_t>(position[key]));
    }
  }
  // One set of keys is a plain GROUP BY; GROUP BY () is not, as it groups even a select
  // without aggregates into one row.
  if (select.grouping_sets.size() == 1 && !select.group_by.empty()) select.grouping_sets.clear();
}

bool IsGroupingCall(const Expr& e) {
  return e.kind == ExprKind::kCall && !e.window && e.name == "grouping";
}

}  // namespace strata::query
