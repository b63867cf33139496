// A bound condition written back as SQL another node parses to the same condition: the
// conjuncts a query pushes into the fragments other nodes run (query/exec/shard_fragments.h).
// Only what reads the same everywhere is written: columns, literals, comparisons, arithmetic,
// AND, OR, NOT, IN lists, BETWEEN, LIKE, IS NULL, CAST, CASE and calls of the functions whose
// value is their arguments' alone (bin, date_trunc, floor, ...); now() and ago() only as the
// query's own time, given (each node's clock reads otherwise); no aggregate, window or
// subquery. Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "query/expr/expr.h"

namespace strata::query {

// `e` (bound against `schema`) as SQL text, appended to `*out`; false, with `*out` as it was,
// when `e` holds anything outside that set. A column `absent` marks (a node that has no such
// column in its part of the table) is written as a NULL of its type. With `now_nanos` (the
// query's now()), now() and ago(x) are written as that time and that time minus x.
bool AppendPortableSql(const Expr& e, const Schema& schema, std::string* out,
                       const std::vector<bool>* absent = nullptr,
                       std::optional<int64_t> now_nanos = std::nullopt);

// "name" with its double quotes doubled: an identifier as written in SQL.
std::string QuoteIdentifier(std::string_view name);

}  // namespace strata::query
