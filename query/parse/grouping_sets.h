// GROUP BY with grouping sets (ROLLUP, CUBE, GROUPING SETS) and grouping(), as Presto and
// Timestream have them, rewritten by the parser into plain SQL: the UNION ALL of one SELECT
// per set, grouped by that set's keys, the other keys NULL in it and grouping(...) a number.
// Each set scans the input again; the planner sees only plain GROUP BYs.
#pragma once

#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "query/parse/ast.h"

namespace strata::query {

// The keys one grouping set groups by (none: the grand total).
using GroupingSet = std::vector<ExprPtr>;

// At most this many sets a GROUP BY makes (CUBE of n keys makes 2^n).
inline constexpr size_t kMaxGroupingSets = 1024;

// ROLLUP (k1, ..., kn): (k1..kn), (k1..kn-1), ..., ().
std::vector<GroupingSet> RollupSets(const std::vector<ExprPtr>& keys);
// CUBE (k1, ..., kn): every subset, the whole first and () last; nullopt past
// kMaxGroupingSets.
std::optional<std::vector<GroupingSet>> CubeSets(const std::vector<ExprPtr>& keys);

// The sets of GROUP BY's elements taken together (each set of one element with each of the
// next's, ...); `distinct` (GROUP BY DISTINCT) drops a set that repeats another. An error past
// kMaxGroupingSets.
absl::StatusOr<std::vector<GroupingSet>> CrossGroupingSets(
    std::vector<std::vector<GroupingSet>> elements, bool distinct, Position pos,
    std::string_view sql);

// True if the select list or HAVING calls grouping(...).
bool CallsGrouping(const SelectStmt& select);

// `select` (its group_by empty) grouped by each of `sets`: the UNION ALL of a copy per set, or
// the one copy. In a copy, a key of another set that the select list or HAVING names outside an
// aggregate is NULL, and grouping(k, ...) the bits of the keys not grouped (the first argument
// the highest bit). The result's `grouping_items` hold the select list's texts, for ORDER BY.
absl::StatusOr<std::unique_ptr<SelectStmt>> ExpandGroupingSets(std::unique_ptr<SelectStmt> select,
                                                               std::vector<GroupingSet> sets,
                                                               std::string_view sql);

// ORDER BY items of an expanded select (`grouping_items` not empty) that repeat a select item
// become its position, as the union's output has no other name for an aggregate.
void OrderGroupingSetsByPosition(SelectStmt& select);

}  // namespace strata::query
