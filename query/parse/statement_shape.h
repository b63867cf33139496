// A read statement's shape: its tokens with every literal (string, number, duration) as `?`,
// so that the statements a dashboard or a benchmark repeats with other hosts and times share
// one. What a query's last run of a shape read is remembered under it (the query runner's
// small leader reads, docs/cluster.md "A small leader read").
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace strata::query {

// The shape of a SELECT or WITH statement; nullopt for any other statement (it may write),
// text that is no tokens, or a shape longer than kMaxStatementShape bytes.
std::optional<std::string> ReadStatementShape(std::string_view sql);
// The shape of the SELECT or WITH statement an EXPLAIN shows the plan of (the same as
// ReadStatementShape of that statement alone); nullopt for anything else.
std::optional<std::string> ExplainedStatementShape(std::string_view sql);

inline constexpr size_t kMaxStatementShape = 4096;

// Whether `sql` is an INSERT: its rows may be written before it fails, so it is never run again
// (as a query whose plan met another node's changed columns is).
bool IsInsertStatement(std::string_view sql);

}  // namespace strata::query
