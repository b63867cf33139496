// The syntax tree of a statement, with source positions for errors. The
// binder fills in the `bound` part of expressions.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "query/base/datum.h"
#include "query/base/error.h"

namespace strata::query {

struct ScalarFunction;
struct AggregateFunction;
struct SelectStmt;
struct WindowSpec;
struct InList;
struct LookupTable;

enum class ExprKind {
  kLiteral,   // literal
  kColumn,    // name (qualifier optional)
  kStar,      // * (only in select lists and count(*))
  kUnary,     // name: "-", "NOT"; args[0]
  kBinary,    // name: operator; args[0], args[1]
  kCall,      // name(args), distinct for count(DISTINCT x)
  kCase,      // args: [operand if has_operand] (when, then)* [else if has_else]
  kCast,      // args[0] AS cast_type; try_cast when `name` == "try_cast"
  kIn,        // args[0] IN (args[1..]); negated for NOT IN
  kBetween,   // args[0] BETWEEN args[1] AND args[2]; negated
  kLike,      // args[0] LIKE args[1] [ESCAPE args[2]]; negated
  kIsNull,    // args[0] IS NULL; negated for IS NOT NULL
  kSubquery,  // (SELECT ...) as a value: `subquery`
  kExists,    // EXISTS (SELECT ...): `subquery`; negated for NOT EXISTS
  kLambda,    // (lambda_params) -> args[0], an argument of filter, transform, reduce, ...
  kLookup,    // a correlated subquery's answers by the outer values args[0..]: bound.lookup
  // kIn may also test against `subquery` (x IN (SELECT ...)) instead of args[1..], or, when
  // `in_array`, against the elements of the array literal args[1].
};

struct Expr {
  ExprKind kind = ExprKind::kLiteral;
  Position pos;
  Datum literal;
  std::string name;
  std::string qualifier;
  std::vector<std::unique_ptr<Expr>> args;
  bool distinct = false;
  bool negated = false;
  bool has_operand = false;
  bool has_else = false;
  bool quoted = false;  // a column written as "name"
  bool untyped = false;  // a VARCHAR literal from an untyped parameter (QueryParameters)
  bool written_as_list = false;  // a row call written (a, b, ...): GROUP BY (a, b) is two keys
  // kIn over the elements of the array literal args[1] (x = ANY of a list parameter, an IN
  // subquery's answers): one node for the whole list where a node per value would cost
  // hundreds of bytes each. `untyped` on that literal: its elements are untyped text.
  bool in_array = false;
  // agg(x) FILTER (WHERE c) of an aggregate that keeps NULLs (array_agg, json_agg): c is the
  // last of `args`. (Other aggregates' FILTER is made of their arguments NULLed where c
  // fails, by the parser: such a kCase is `filtered` too, for its messages to say FILTER.)
  bool filtered = false;
  DataType cast_type = DataType::kUnknown;
  std::vector<std::string> lambda_params;  // kLambda
  // f(...) OVER (...): a window function call.
  std::shared_ptr<WindowSpec> window;
  // agg(x ORDER BY k, ...) or agg(x) WITHIN GROUP (ORDER BY k, ...): the order the
  // aggregate reads its rows in (only `order_by` is used).
  std::shared_ptr<WindowSpec> ordered_by;
  // kSubquery, kExists, kIn over a subquery. The planner runs it (it may not
  // refer to the outer query) and puts its answer in place of this node. A kSubquery named
  // "array" is ARRAY(SELECT ...): its answer is the array of its rows' values.
  std::shared_ptr<SelectStmt> subquery;
  // A ranking window call (row_number, rank, dense_rank) whose value a filter above the query
  // keeps at or below this (0: no such filter): set by the planner (planner_pushdown.cc) on
  // the statement it plans, and not copied by Clone (a copy may be read without the filter).
  int64_t kept_ranks = 0;
  // The PostgreSQL session's time zone the statement was written in (query/parse/session_zone.h),
  // for the binder's reading of text and dates as timestamps; null: UTC.
  std::shared_ptr<const std::string> session_zone;
  // The longest path from here to a leaf, this node included: the parser
  // bounds it (kMaxExpressionDepth), which bounds every recursive pass.
  int height = 1;

  // Filled by the binder.
  struct Bound {
    DataType type = DataType::kUnknown;
    int column = -1;  // kColumn: index in the input row
    const ScalarFunction* function = nullptr;
    int aggregate = -1;  // a kCall to an aggregate: its slot
    int window = -1;     // stands for the window function call in this slot
    // kIn over many constants: their keys, looked up instead of compared
    // one by one (an IN (SELECT ...) can bring 100,000).
    std::shared_ptr<const InList> in_list;
    std::shared_ptr<const LookupTable> lookup;  // kLookup
  } bound;

  std::unique_ptr<Expr> Clone() const;
  // SQL-ish text for column names and EXPLAIN. It is also an identity: a select item finds
  // its GROUP BY key by it, ORDER BY its select item, DISTINCT ON its keys. So what differs
  // must print apart (a CASE printed as just "CASE" once made two CASE keys one).
  std::string ToString() const;
};
using ExprPtr = std::unique_ptr<Expr>;

// The constants a kIn tests against when every one is a literal (its list args[1..], or its
// array's elements); nullopt for a subquery or a list with another expression.
std::optional<std::vector<const Datum*>> InListConstants(const Expr& in);

enum class JoinKind { kNone, kInner, kLeft, kRight, kFull, kCross };

// One item of FROM: a table, a WITH query, a subquery, or a join of two items.
struct TableRef {
  Position pos;
  std::string database;  // empty: a CTE name in `table`
  std::string table;
  std::unique_ptr<SelectStmt> subquery;
  std::string alias;
  // A join (join != kNone): `left` JOIN `right` ON `on` / USING (`using_columns`).
  JoinKind join = JoinKind::kNone;
  std::unique_ptr<TableRef> left, right;
  ExprPtr on;
  std::vector<std::string> using_columns;
  // NATURAL JOIN: USING the names both sides have, filled when the sides'
  // columns are known (none in common: a cross join).
  bool natural = false;
  // UNNEST(unnest...) [WITH ORDINALITY] alias(column_aliases...): the rows
  // of arrays or time series. Its arguments may read the columns of the
  // items joined before it (CROSS JOIN UNNEST(t.series)). column_aliases
  // also name a subquery's or WITH query's columns.
  std::vector<ExprPtr> unnest;
  bool with_ordinality = false;
  std::vector<std::string> column_aliases;
  // VALUES row, ...: each row's expressions, one per column. Only the FROM of the
  // `SELECT *` the parser makes of a VALUES query holds them; the planner reads them as
  // UNNEST of an array of rows (planner_values.cc).
  std::vector<std::vector<ExprPtr>> values;
  // LATERAL (subquery): it may read the items before it, through equalities in its WHERE,
  // which the planner makes the join's keys (planner_lateral.cc). `lateral_keys`: the last
  // columns of the subquery it rewrote, those keys (and its row numbers), hidden.
  bool lateral = false;
  int lateral_keys = 0;

  TableRef Clone() const;
};

struct SelectItem {
  ExprPtr expr;
  std::string alias;
};

struct OrderItem {
  ExprPtr expr;
  bool descending = false;
  std::optional<bool> nulls_first;
  // Where its NULLs go: as written, else last in either direction, as Presto and Timestream
  // place them (PostgreSQL puts them first when descending).
  bool NullsFirst() const { return nulls_first.value_or(false); }
};

// The frame of a window: ROWS, RANGE or GROUPS BETWEEN start AND end.
struct FrameBound {
  enum class Kind { kUnboundedPreceding, kPreceding, kCurrentRow, kFollowing, kUnboundedFollowing };
  Kind kind = Kind::kCurrentRow;
  int64_t offset = 0;  // kPreceding / kFollowing of ROWS and GROUPS: rows or peer groups
  Datum value;         // kPreceding / kFollowing: the literal (RANGE: a distance in ORDER BY's units)
  Position pos;
};
struct WindowFrame {
  // ROWS counts rows, RANGE measures the ORDER BY key, GROUPS counts peer
  // groups (rows equal in every ORDER BY key).
  enum class Unit { kRows, kRange, kGroups };
  Unit unit = Unit::kRange;
  FrameBound start, end;
  // EXCLUDE CURRENT ROW | GROUP (the row's peers, itself too) | TIES (its peers, not itself) |
  // NO OTHERS (the default): rows left out of the frame.
  enum class Exclude { kNoOthers, kCurrentRow, kGroup, kTies };
  Exclude exclude = Exclude::kNoOthers;
};

// OVER (PARTITION BY ... ORDER BY ... [frame]).
struct WindowSpec {
  std::vector<ExprPtr> partition_by;
  std::vector<OrderItem> order_by;
  std::optional<WindowFrame> frame;  // none: RANGE UNBOUNDED PRECEDING to CURRENT ROW
  bool ignore_nulls = false;  // f(x) IGNORE NULLS OVER (...): value and offset functions skip NULLs

  std::shared_ptr<WindowSpec> Clone() const;
  std::string ToString() const;
};

enum class SetOperation { kNone, kUnion, kIntersect, kExcept };

// A WITH query: `name [(columns)] AS (query)`.
struct WithQuery {
  Position pos;
  std::string name;
  std::vector<std::string> columns;  // empty: the query's own names
  std::unique_ptr<SelectStmt> query;
  // AS [NOT] MATERIALIZED: PostgreSQL's hint. By default a query read once is planned where it
  // is read (conditions on it move in); MATERIALIZED runs it once apart, NOT MATERIALIZED plans
  // it at each reading (query/plan/planner_inline_with.cc).
  enum class Materialize { kDefault, kAlways, kNever };
  Materialize materialize = Materialize::kDefault;
};

struct SelectStmt {
  std::vector<WithQuery> with;
  // WITH RECURSIVE: a WITH query of the form `query UNION [ALL] query` may read its own rows in
  // its second query (the planner's PlanRecursiveQuery).
  bool with_recursive = false;
  // A set operation (set_operation != kNone): set_left <op> [ALL] set_right;
  // only `with`, `order_by` and `limit` of this statement apply then.
  SetOperation set_operation = SetOperation::kNone;
  bool set_all = false;
  std::unique_ptr<SelectStmt> set_left, set_right;
  bool distinct = false;
  // SELECT DISTINCT ON (k, ...): the first row of each k in ORDER BY's order (PostgreSQL's).
  std::vector<ExprPtr> distinct_on;
  std::vector<SelectItem> items;
  std::optional<TableRef> from;
  ExprPtr where;
  std::vector<ExprPtr> group_by;
  ExprPtr having;
  std::vector<OrderItem> order_by;
  std::optional<int64_t> limit;
  // FETCH FIRST n ROWS WITH TIES: `limit` keeps n rows and then every row equal to the last in
  // the ORDER BY keys (the planner's top-n shortcuts, which cut at n exactly, stand aside).
  bool limit_with_ties = false;
  std::optional<int64_t> offset;  // OFFSET m: rows skipped after ORDER BY
  // GROUP BY of grouping sets (ROLLUP, CUBE, GROUPING SETS: query/parse/grouping_sets.h):
  // each set's keys as positions in `group_by`, which holds every set's keys once. Empty for a
  // plain GROUP BY.
  std::vector<std::vector<uint32_t>> grouping_sets;

  // GROUP BY in any form, even of the empty set alone (GROUP BY GROUPING SETS (())).
  bool grouped() const { return !group_by.empty() || !grouping_sets.empty(); }

  std::unique_ptr<SelectStmt> Clone() const;
};

// `SELECT * FROM <an item at pos, to fill in>`: what DELETE, VALUES and a WITH query's column
// names are made into.
std::unique_ptr<SelectStmt> SelectAllFrom(Position pos);

// One `name = value` of CREATE ... WITH (...) or ALTER ... SET (...): a literal as written (a
// whole number, a 'string', TRUE or FALSE), checked against the setting it names when it runs.
struct CatalogProperty {
  std::string name;  // lower case
  Position pos;
  Datum value;
  Position value_pos;
};

struct Statement {
  enum class Kind {
    kSelect,
    kShowDatabases,
    kShowTables,
    kShowMeasures,
    kShowFunctions,
    kDescribe,
    kExplain,
    kShowQueries,
    kKillQuery,
    kDelete,
    // The catalog's changes (query/statements_catalog_changes.cc): `database`, and `table`
    // for a table's.
    kCreateDatabase,
    kAlterDatabase,
    kDropDatabase,
    kCreateTable,
    kAlterTable,
    kDropTable,
    // INSERT INTO `database`.`table` [(columns)] select: its rows written as records
    // (query/statement_insert.cc).
    kInsert,
    // COPY `database`.`table` [(columns)] FROM STDIN: the rows a front door's client sends
    // (QueryOptions::copy_rows) written as INSERT writes them (query/statement_copy.cc).
    kCopyFrom
  };
  Kind kind = Kind::kSelect;
  // kSelect, kExplain; kDelete: SELECT * of the rows to delete; kInsert: the rows to write.
  std::unique_ptr<SelectStmt> select;
  std::string database;
  std::string table;
  Position table_pos;
  std::optional<std::string> like;
  std::string query_id;  // kKillQuery
  bool analyze = false;  // kExplain: EXPLAIN ANALYZE, the query run and each node's work shown
  // CREATE ... IF NOT EXISTS, DROP ... IF EXISTS.
  bool if_exists = false;
  std::vector<CatalogProperty> properties;  // CREATE's WITH (...), ALTER's SET (...)
  // kInsert's and kCopyFrom's column list, with where each is written; empty: the query's own
  // names (kCopyFrom: the table's columns).
  std::vector<std::pair<std::string, Position>> columns;
  // Expression nodes the parser made: what the syntax tree costs, charged to
  // the query's memory before planning.
  int64_t expressions = 0;
};

}  // namespace strata::query
