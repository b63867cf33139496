// GROUP BY with grouping sets (ROLLUP, CUBE, GROUPING SETS), as Presto and Timestream have
// them: the parser turns GROUP BY's elements into the list of sets, each a list of keys. The
// planner groups the input once per set in one pass over it (GroupingSetsNode), and answers
// grouping(k, ...) from the set a group comes from.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "query/parse/ast.h"

namespace strata::query {

// The keys one grouping set groups by (none: the grand total), as positions in the list of
// every key GROUP BY names: a set is never a copy of its keys' expressions.
using GroupingSet = std::vector<uint32_t>;

// At most this many sets a GROUP BY makes (CUBE of n keys makes 2^n).
inline constexpr size_t kMaxGroupingSets = 1024;
// At most this many keys the sets name together: a group's set is a mask of them in a BIGINT.
inline constexpr size_t kMaxGroupingKeys = 62;

// ROLLUP (k1, ..., kn): (k1..kn), (k1..kn-1), ..., ().
std::vector<GroupingSet> RollupSets(const std::vector<uint32_t>& keys);
// CUBE (k1, ..., kn): every subset, the whole first and () last; nullopt past
// kMaxGroupingSets.
std::optional<std::vector<GroupingSet>> CubeSets(const std::vector<uint32_t>& keys);

// The sets of GROUP BY's elements taken together (each set of one element with each of the
// next's, ...). A key written twice (the same text in `keys`) is one key; `distinct` (GROUP
// BY DISTINCT) drops a set that repeats another. An error past kMaxGroupingSets.
absl::StatusOr<std::vector<GroupingSet>> CrossGroupingSets(
    std::vector<std::vector<GroupingSet>> elements, const std::vector<ExprPtr>& keys, bool distinct,
    Position pos, std::string_view sql);

// Groups `select` by `sets` of `keys`: each key the sets use once in select.group_by, in the
// order they first appear, and each set as their positions there (select.grouping_sets). A
// single set of keys is a plain GROUP BY.
void SetGroupingSets(SelectStmt& select, std::vector<ExprPtr> keys, std::vector<GroupingSet> sets);

// True for a call of grouping(k, ...), which is no function: the planner answers it from the
// grouping set each group comes from.
bool IsGroupingCall(const Expr& e);

}  // namespace strata::query
