// PostgreSQL's set-returning functions in a select list: `SELECT unnest(tags) FROM t` and
// `SELECT generate_series(1, 3)` (and json_array_elements, json_array_elements_text and
// json_object_keys of JSON text, string_to_table, regexp_split_to_table and regexp_matches)
// make a row for each value of the array (or the series), the rest of the row repeated;
// several in one list are zipped, the shorter padded with NULLs (as PostgreSQL 10 and later
// do). The parser writes them as what Presto and Timestream users write by hand: the
// statement's FROM CROSS JOIN UNNEST(array, ...) AS t(...), the item a column of it. After an
// aggregation or a window, which PostgreSQL runs first (`SELECT unnest(array_agg(x)) FROM t
// GROUP BY h`), the statement becomes a subquery whose columns the UNNEST reads.
#pragma once

#include <memory>
#include <string_view>

#include "absl/status/statusor.h"
#include "query/parse/ast.h"

namespace strata::query {

// `select` with its set-returning items expanded (itself when it has none); an error for
// one used inside an expression or outside the select list, or with more than one array.
absl::StatusOr<std::unique_ptr<SelectStmt>> ExpandSetReturningItems(
    std::unique_ptr<SelectStmt> select, std::string_view sql);

}  // namespace strata::query
