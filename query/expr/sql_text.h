// A bound condition written back as SQL another node parses to the same condition: the
// conjuncts a query pushes into the fragments other nodes run (query/exec/shard_fragments.h).
// Only what reads the same everywhere is written: columns, literals, comparisons, arithmetic,
// AND, OR, NOT, IN lists, BETWEEN, LIKE, IS NULL, CAST, CASE and calls of the functions whose
// value is their arguments' alone (bin, date_trunc, floor, ...); now() and ago() only as the
// query's own time, given (each node's clock reads otherwise); no aggregate, window or
// subquery. A long IN list may be named instead of written (ListParameters). Thread-safety: pure
// functions.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "query/expr/expr.h"

namespace strata::query {

// The long IN lists (Expr::in_array: a list parameter, an IN subquery's answers, up to
// 1,000,000 values) of the statements written for other nodes, each sent beside them as a
// named value (`host = ANY(@list_1)`) rather than as text, which a statement's limit would not
// hold. Not thread-safe.
class ListParameters {
 public:
  // Lists of at most this many values are written out: EXPLAIN shows them.
  static constexpr size_t kWrittenOut = 100;
  // The most bytes of values the lists of one statement send (well within the 16 MiB a
  // node's gRPC server takes by default): a condition on more is left to the coordinator.
  static constexpr int64_t kMaxBytes = 4 << 20;

  // `@name` of `array`'s values (the same array, the same name), kept in values(); nullopt
  // past kMaxBytes.
  std::optional<std::string> Name(const Datum& array);
  // The lists by name (without the '@'), as the statements' parameters.
  const std::map<std::string, Datum, std::less<>>& values() const { return values_; }

 private:
  // By the array's values, which values_ keeps alive (a Datum shares them): an address is
  // not reused by another list while it names one.
  std::map<const std::vector<Datum>*, std::string> names_;
  std::map<std::string, Datum, std::less<>> values_;
  int64_t bytes_ = 0;
};

// `e` (bound against `schema`) as SQL text, appended to `*out`; false, with `*out` as it was,
// when `e` holds anything outside that set. A column `absent` marks (a node that has no such
// column in its part of the table) is written as a NULL of its type. With `now_nanos` (the
// query's now()), now() and ago(x) are written as that time and that time minus x.
bool AppendPortableSql(const Expr& e, const Schema& schema, std::string* out,
                       const std::vector<bool>* absent = nullptr,
                       std::optional<int64_t> now_nanos = std::nullopt,
                       ListParameters* lists = nullptr);

// "name" with its double quotes doubled: an identifier as written in SQL.
std::string QuoteIdentifier(std::string_view name);

}  // namespace strata::query
