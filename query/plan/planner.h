// Turns a parsed SELECT into a plan, a tree of operator nodes
// (query/exec/plan_node.h): resolves the source (a table, a subquery, a WITH
// query, a join), binds every expression, pushes the time range,
// measure_name and dimension predicates into the table scan, turns on the
// scan's fast paths, and puts aggregation, windows, ordering and limits
// over it.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "query/base/memory_budget.h"
#include "query/base/read_access.h"
#include "query/base/result.h"
#include "query/base/running_queries.h"
#include "query/exec/operators.h"
#include "query/exec/plan_node.h"
#include "query/exec/table_layout.h"
#include "query/expr/expr.h"
#include "query/parse/ast.h"
#include "query/parse/parser.h"
#include "storage/engine.h"

namespace strata::query {

struct JoinSpec;  // query/exec/hash_join.h

class Planner {
 public:
  // `layouts` is shared by the engine's queries.
  Planner(Engine& storage, TableLayoutCache& layouts, std::string_view sql, QueryContext* context,
          QueryStats* stats)
      : storage_(storage), layouts_(layouts), sql_(sql), context_(context), stats_(stats) {}

  absl::StatusOr<std::shared_ptr<Plan>> PlanSelect(std::unique_ptr<SelectStmt> select);

 private:
  class SelectPhases;  // planner_select.cc
  struct Source;
  struct FromNode;
  struct ResolvedTable;
  absl::StatusOr<Source> PlanSource(SelectStmt& select);
  absl::StatusOr<Source> PlanTable(const TableRef& ref, SelectStmt& select);
  // The rows of the layout's series batch that can pass `series_conjuncts`,
  // when one of them names the values a dimension must hold (= or IN of
  // VARCHAR literals), from the layout's postings; nullopt when none does.
  static std::optional<std::vector<uint32_t>> CandidateSeries(
      const std::vector<ExprPtr>& series_conjuncts, const TableLayout& layout);
  absl::StatusOr<ResolvedTable> ResolveTable(const TableRef& ref);
  // A table named without its database: the session's (USE db), or pg_catalog's when the
  // name is one of its tables (PostgreSQL searches pg_catalog first).
  void QualifyTable(TableRef& ref) const;
  // "system"."<table>" (query/exec/system_tables.h), information_schema's and pg_catalog's,
  // read whole; nullopt when `ref` names none of them.
  absl::StatusOr<std::optional<Source>> PlanSystemTable(const TableRef& ref);
  // A table whose shards are not all on this node (planner_shards.cc), read as fragments
  // with the conjuncts of `where` (unbound; null: none) that read alike everywhere pushed
  // into them; nullopt when this node reads the table from its own engine. `select` (null:
  // a join's side) names the columns the fragments send; the others are NULL.
  absl::StatusOr<std::optional<Source>> PlanShardedTable(const TableRef& ref,
                                                         const SelectStmt* select);
  // A subquery or WITH query in FROM, as a source.
  absl::StatusOr<Source> PlanInnerQuery(TableRef& ref);
  // Whether a FROM item's table name without a database is a WITH query's.
  bool IsWithQuery(const std::string& name) const;
  // The statement's WITH queries, each under its name for what follows (planner_recursive.cc),
  // until RestoreWithQueries puts back what each name stood for before (`hidden`, null:
  // nothing): a WITH query's name is its statement's, not the statements around it.
  using HiddenWithQueries = std::vector<std::pair<std::string, std::shared_ptr<Plan>>>;
  absl::Status PlanWithQueries(SelectStmt& select, HiddenWithQueries* hidden);
  void RestoreWithQueries(const HiddenWithQueries& hidden);
  absl::StatusOr<std::shared_ptr<Plan>> PlanNamedQuery(WithQuery& with);
  // WITH RECURSIVE's `first UNION [ALL] step`, where `step` may read the name: the rows of the
  // step before.
  absl::StatusOr<std::shared_ptr<Plan>> PlanRecursiveQuery(WithQuery& with);
  // UNION / INTERSECT / EXCEPT (without ORDER BY or LIMIT of their own).
  absl::StatusOr<std::shared_ptr<Plan>> PlanSetOperation(SelectStmt& select);
  absl::StatusOr<std::shared_ptr<Plan>> CombineSetOperation(std::shared_ptr<Plan> left,
                                                            std::shared_ptr<Plan> right,
                                                            SetOperation op, bool all);
  // Joins (planner_join.cc): the FROM tree's schemas first, then the
  // sources, with WHERE and ON conjuncts pushed as far down as each join
  // kind allows.
  absl::StatusOr<Source> PlanJoin(SelectStmt& select);
  absl::StatusOr<std::unique_ptr<FromNode>> PrepareFrom(TableRef& ref);
  absl::StatusOr<Source> BuildFrom(FromNode& node, std::vector<ExprPtr> pushed);
  absl::StatusOr<Source> BuildFromItem(FromNode& node, std::vector<ExprPtr> pushed);
  // The build side of a join keeps only the columns read after it.
  void NarrowBuildSide(const FromNode& node, JoinSpec* spec) const;
  // `source` with the AND of `conjuncts` (none: unchanged) as a filter.
  absl::StatusOr<Source> FilterAbove(Source source, std::vector<ExprPtr> conjuncts);
  // UNNEST (planner_unnest.cc): its columns, its arguments bound to `input`
  // (the columns of the FROM items before it); then the source that adds
  // them to `input`'s rows.
  absl::StatusOr<std::unique_ptr<FromNode>> PrepareUnnest(TableRef& ref, const Schema& input);
  Source UnnestSource(const FromNode& unnest, Source input);
  // VALUES (planner_values.cc): `ref.values` made UNNEST of an array of rows, one field a
  // column named _col0, _col1, ...
  absl::Status ValuesAsUnnest(TableRef& ref);
  // A table's FROM item with column names, t(a, b): refused (they rename the columns of a
  // subquery, a WITH query, VALUES or UNNEST).
  absl::Status RefuseTableColumnAliases(const TableRef& ref) const;
  // One row of no columns (SELECT without FROM, FROM UNNEST(...) alone).
  Source OneRowSource();
  // `join` of a LATERAL subquery on its right (planner_lateral.cc): the subquery made to give
  // its rows for every outer key at once, keyed by the inner side of the equalities that read
  // the items before it, and the join made to match those keys.
  absl::Status RewriteLateralJoin(TableRef& join);
  // Runs the uncorrelated subqueries in the statement's expressions and puts
  // their answers in their place (a value, an IN list, EXISTS' boolean).
  absl::Status ResolveSubqueries(SelectStmt& select);
  // `outer`: the names of the outer query's FROM items.
  absl::Status ResolveSubqueries(Expr& expr, const std::set<std::string>& outer);
  // A correlated subquery as a lookup table (false: it is not correlated).
  absl::StatusOr<bool> Decorrelate(Expr& expr, SelectStmt& query,
                                   const std::set<std::string>& outer);
  // Binds a WHERE condition and refuses one that is not boolean.
  absl::Status BindWhere(Expr& where, const Schema& schema);

  Engine& storage_;
  TableLayoutCache& layouts_;
  std::string_view sql_;
  QueryContext* context_;
  QueryStats* stats_;
  std::map<std::string, std::shared_ptr<Plan>> ctes_;
  // The plans of ctes_ read more than once (outside a recursive query's step, whose WITH
  // queries may read the step before): read through a KeptRowsNode, made once.
  std::set<const Plan*> kept_ctes_;
  // The nodes a statement's WITH queries AS NOT MATERIALIZED may be copied into at their
  // readings (InlineWithQueries), over all its levels: past it they are run once, as others.
  int64_t inline_budget_ = 100'000;
  // The recursive WITH queries being planned, by name: what their name reads (the rows of the
  // step before; null while it may not be read, with `refusal` saying why) and how often the
  // step names it. They hide ctes_ of the same name.
  struct WorkingTableUse {
    std::shared_ptr<Plan> rows;
    std::string refusal;
    int references = 0;
  };
  std::map<std::string, std::shared_ptr<WorkingTableUse>> working_tables_;
  // The columns the statement being planned names (qualifier, name), so
  // the tables of a join decode only those; `*` reads them all.
  std::vector<std::pair<std::string, std::string>> used_columns_;
  bool uses_star_ = false;
};

}  // namespace strata::query
