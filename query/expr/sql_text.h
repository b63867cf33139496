// A bound condition written back as SQL another node parses to the same condition: the
// conjuncts a query pushes into the fragments other nodes run (query/exec/shard_fragments.h).
// Only what reads the same everywhere is written: columns, literals, comparisons, AND, OR,
// NOT, IN lists, BETWEEN, LIKE and IS NULL; no function call (now() and ago() read each node's
// clock), no subquery. Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "query/expr/expr.h"

namespace strata::query {

// `e` (bound against `schema`) as SQL text, appended to `*out`; false, with `*out` as it was,
// when `e` holds anything outside that set.
bool AppendPortableSql(const Expr& e, const Schema& schema, std::string* out);

// "name" with its double quotes doubled: an identifier as written in SQL.
std::string QuoteIdentifier(std::string_view name);

}  // namespace strata::query
