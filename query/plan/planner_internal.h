// What the planner's files share (planner.cc, planner_join.cc, ...): the
// source a SELECT reads from, and helpers over WHERE conjuncts. Not for use
// outside the planner.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "query/base/shard_reads.h"
#include "query/exec/hash_join.h"
#include "query/exec/header_aggregation.h"
#include "query/exec/source_nodes.h"
#include "query/exec/unnest.h"
#include "query/expr/sql_text.h"
#include "query/plan/planner.h"
#include "storage/catalog/catalog_types.h"

namespace strata::query {

// The type of a column whose rows come from two sides (UNION, INTERSECT, EXCEPT) or from
// rows of VALUES: NULL takes the other's, BIGINT beside DOUBLE is DOUBLE; nullopt for other
// mixes, which need a CAST.
std::optional<DataType> UnionColumnType(DataType a, DataType b);

// A table read as fragments (planner_shards.cc), as a SELECT over it may run its aggregation
// in them too.
struct FragmentedTable {
  ShardReads* reads = nullptr;
  std::vector<FragmentSite> sites;
  // By site: the columns of `schema` it does not have (a measure type only other shards
  // hold), written as NULLs into its statement.
  std::vector<std::vector<bool>> absent;
  std::string name;                // "database"."table", quoted
  std::vector<ExprPtr> pushed;     // the WHERE conjuncts the fragments apply, bound to schema
  std::vector<std::string> time_range;  // the time bounds they apply, as SQL
  bool where_whole = true;         // every conjunct of the SELECT's WHERE is pushed
  Schema schema;                   // the table's columns, as the fragments give them
  const PlanNode* rows = nullptr;  // the node reading the table's rows as fragments
  size_t shards_pruned = 0;        // left out by a condition on the partition key
  QueryStats* stats = nullptr;     // where the fragments' scans are counted
  PartitionKey partition_key;      // the table's: which rows share a shard
  int64_t now_nanos = 0;           // the query's now(), written into the fragments as it is
  // The long IN lists the fragments' statements name, sent beside them.
  std::shared_ptr<ListParameters> lists = std::make_shared<ListParameters>();

  // `e` (bound to `schema`) as site `site` reads it (query/expr/sql_text.h); false if it
  // cannot be written.
  bool AppendSql(const Expr& e, size_t site, std::string* out) const;
};
// The shards that can hold a row meeting every one of `pushed` when one of them pins the
// table's DIMENSION partition key (`key = 'v'`, `key IN ('v', ...)`): a series' shard is its
// key value's partition hash's (storage/read/table_state.h RoutingHash). nullopt: any shard.
std::optional<std::set<uint32_t>> ShardsPinned(const std::vector<ExprPtr>& pushed,
                                               const Schema& schema, const PartitionKey& key,
                                               uint32_t count);
// " WHERE <the pushed conditions>" as site `site` reads them, or empty.
std::string FragmentWhere(const FragmentedTable& table, size_t site);

// An aggregation run in the fragments: each fragment sends its groups' keys and partial
// states (count, sum, min, max, avg as a sum and a count, ...), and the coordinator merges
// them — `keys` and `merges` over `node`'s rows — with no row of the table travelling.
// `whole`: a group key is the table's DIMENSION partition key, so every group's rows are in
// one shard, read by one fragment: the fragments compute the aggregates themselves (any
// aggregate, exact) and `node`'s rows are the aggregation's output, merged by nothing.
struct FragmentAggregation {
  bool whole = false;
  PlanNodePtr node;
  std::vector<ExprPtr> keys;  // column k of node's rows
  ExprPtr values;             // the distinct values' column, when an aggregate needs them
  std::vector<ExprPtr> arguments;
  std::vector<AggregateSpec> merges;
};
// ORDER BY over every group key (and nothing else) with LIMIT: the groups a fragment sends
// can be its first `rows` in that order. A group among the query's first n is among the first
// n of each fragment holding part of it (no fragment holds more groups ahead of it than the
// whole does), and the order leaves no ties between two groups to break differently.
// `whole_groups_only`: the order names an aggregate, or leaves a key out. That holds only
// where each group is whole in one fragment (FragmentAggregation::whole): a group ahead of
// the query's n-th is ahead of it in its own fragment, and groups tied with it may be cut
// either way, as one node's sort may.
struct TopGroups {
  struct Key {
    size_t key = 0;  // the column of the fragments' rows: a group key's index, or (whole
                     // groups) the number of keys plus an aggregate's index
    bool descending = false;
    bool nulls_first = false;
  };
  std::vector<Key> order;
  int64_t rows = 0;  // LIMIT + OFFSET
  bool whole_groups_only = false;
};
// Whole in the fragments (`whole`) when `whole_groups` (grouping sets' groups are not: the
// grand total spans every shard), a key is the bare DIMENSION partition key column and
// every aggregate and key is written alike on every node with a scalar result. Otherwise
// nullopt unless every aggregate has a merge (DISTINCT ones, approx_distinct and unweighted
// approx_percentile all over one argument read from the series' columns, whose distinct
// values the fragments group by with their counts), the keys and arguments read alike on
// every node (query/expr/sql_text.h), and WHERE went to the fragments whole.
std::optional<FragmentAggregation> AggregateInFragments(
    const FragmentedTable& table, const std::vector<const Expr*>& keys,
    const std::vector<AggregateSpec>& aggregates, const std::optional<TopGroups>& top,
    bool whole_groups);

struct Planner::Source {
  PlanNodePtr node;
  // The source is this table scan, whose fast paths the SELECT over it may
  // turn on (last points, block headers, newest first, the columns read).
  TableScanNode* scan = nullptr;
  // The source reads a table as fragments.
  std::shared_ptr<const FragmentedTable> fragments;

  const Schema& schema() const { return node->schema(); }
};

struct Planner::ResolvedTable {
  std::shared_ptr<const TableInfo> table;
  std::shared_ptr<const TableLayout> layout;
  Schema schema;  // qualified by the alias or the table name
};

// A FROM item before its source is built (planner_join.cc): its schema, and
// for a join both sides and the USING columns (left index, right index).
struct Planner::FromNode {
  TableRef* ref = nullptr;
  Schema schema;
  std::optional<Source> planned;  // a subquery or WITH query, planned at once
  std::unique_ptr<FromNode> left, right;
  std::vector<std::pair<int, int>> using_columns;
  // UNNEST: what it adds to the rows before it, and the bound arguments
  // `unnest` points at.
  std::shared_ptr<UnnestSpec> unnest;
  std::shared_ptr<std::vector<ExprPtr>> unnest_exprs;
};

// Whether `e` is the bound column `column`.
bool IsColumn(const Expr* e, int column);
// time, bin(time, c) or date_trunc(c, time): a key that never decreases as
// time grows.
bool NeverDecreasesWithTime(const Expr& e, int time_column, const EvalContext& eval);
bool OnlySeriesColumns(const Expr& e, int series_columns);
// Evaluates `conjunct`, over series columns only, on the rows of `series_batch` (a table's
// series) that `keep` selects. True if it failed on none: `keep` then selects those where it
// holds. False if it failed on one, `keep` unchanged and the error taken back, unless it stops
// the query (a deadline, a cancel, the memory limit).
bool DecideOnSeries(const Expr& conjunct, const Batch& series_batch, const EvalContext& eval,
                    std::vector<uint8_t>* keep);
// `time <op> constant` or `time BETWEEN constant AND constant`.
bool IsTimeBound(const Expr& c, int time_column, const EvalContext& eval);
// If `c` bounds time by a constant (time <op> constant, constant <op> time,
// time BETWEEN constant AND constant), narrows [*start, *end) to it and
// returns true: the scan then applies it exactly.
bool NarrowTimeRange(const Expr& c, int time_column, const EvalContext& eval, int64_t* start,
                     int64_t* end);
// The aggregation's fast paths (planner.cc says when each applies).
bool LastPointEligible(const std::vector<const Expr*>& keys,
                       const std::vector<AggregateSpec>& aggregates, const Expr* where,
                       int series_columns, int time_column, const EvalContext& eval);
bool HeaderAggregationEligible(const std::vector<const Expr*>& keys,
                               const std::vector<AggregateSpec>& aggregates,
                               int series_columns, int time_column, const EvalContext& eval);
// The columns the window operator keeps of its `width`-wide input.
std::vector<int> NarrowWindowInput(int width, const std::vector<Expr*>& exprs);

// The columns `e` names, as (qualifier, name), into `out`; `*star` when it reads every
// column (SELECT *, t.*; count(*) reads none).
void CollectColumnNames(const Expr& e, std::vector<std::pair<std::string, std::string>>* out,
                        bool* star);

// The names FROM's items are known by (alias, or table or WITH query name).
void FromNames(const TableRef& ref, std::set<std::string>* out);
// True if `e` names a column of an outer query (whose FROM items are named `outer`): qualified
// by an outer name the subquery's own FROM (`inner`) does not use.
bool ReadsOuter(const Expr& e, const std::set<std::string>& outer,
                const std::set<std::string>& inner);
// A correlated subquery's WHERE split: its equalities `inner = outer.column` into their two
// sides (the keys), the rest reading no outer column.
struct CorrelationKeys {
  std::vector<ExprPtr> rest, inner, outer;
};
// nullopt when a conjunct reads the outer query other than in such an equality.
std::optional<CorrelationKeys> SplitCorrelation(ExprPtr where, const std::set<std::string>& outer,
                                                const std::set<std::string>& inner);
// A lateral subquery's key columns (and row numbers) its rewrite adds (planner_lateral.cc):
// hidden, and left out of the subquery's t.* too.
inline constexpr std::string_view kLateralKeyPrefix = "lateral$";

// The conjuncts of `outer`'s WHERE that can filter the rows of a FROM subquery inside it (its
// single FROM item, or one a join's kind lets WHERE filter first), moved into that subquery's
// WHERE (planner_pushdown.cc). Unbound; before either is planned.
void PushConjunctsIntoSubquery(SelectStmt& outer);

// The WITH queries of `select` read once (or AS NOT MATERIALIZED) written in at their readings
// as FROM subqueries, and taken off its WITH list (planner_inline_with.cc). Before planning.
// Returns the names of those left that are read more than once. The copies NOT MATERIALIZED
// makes are taken out of `budget` (expression nodes and FROM items); past it, none are made.
std::set<std::string> InlineWithQueries(SelectStmt& select, int64_t* budget);

// Splits a tree of ANDs into its conjuncts, taking ownership of them.
std::vector<ExprPtr> TakeConjuncts(ExprPtr e);
// The AND of `conjuncts` (bound, boolean); null when there are none.
ExprPtr JoinConjuncts(std::vector<ExprPtr> conjuncts);

// Grouping sets (planner_grouping.cc, query/parse/grouping_sets.h).
//
// Keys of `select`'s grouping sets that are one key once bound (ROLLUP (1, region) where
// region is the first select item; an alias and its expression) become one: `keys` and their
// `texts` keep the first, and every set of select.grouping_sets names it instead. An error
// past kMaxGroupingKeys keys.
absl::Status MergeRepeatedKeys(SelectStmt& select, std::vector<const Expr*>* keys,
                               std::vector<std::string>* texts, std::string_view sql);
// An error for a call of grouping() in a select that does not aggregate.
absl::Status RefuseGroupingCalls(const SelectStmt& select, const std::vector<ExprPtr>& windows,
                                 std::string_view sql);
// grouping(k1, ..., kn) answered over an aggregation's output whose keys have `key_text`:
// each argument must be one of them. With grouping sets (`mask_column` >= 0, the set's mask:
// GroupingSetsNode) the call becomes arithmetic on the mask, whose column expressions are
// added to `masks` (already bound: the rewrites over the groups pass them); under a plain
// GROUP BY, 0.
struct GroupingCalls {
  const std::vector<std::string>& key_text;
  int mask_column = -1;
  absl::flat_hash_set<const Expr*>* masks = nullptr;
  std::string_view sql;

  // Replaces each call in `e` (not in its subqueries or lambdas).
  absl::Status Answer(ExprPtr& e) const;
};

}  // namespace strata::query
