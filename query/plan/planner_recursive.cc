// Planner: the WITH queries of a statement, and WITH RECURSIVE's queries that read their own
// rows (RecursiveUnionNode runs them: query/exec/set_operation.h RunRecursiveUnion).
//
// A recursive query is `first UNION [ALL] step`, as in PostgreSQL: `first` is planned alone,
// its columns (renamed by the WITH's column list) become the rows the name stands for inside
// `step`, which is planned once over a WorkingTableNode and run again for each step's rows.
#include "absl/cleanup/cleanup.h"
#include "common/status.h"
#include "common/strings.h"
#include "query/exec/source_nodes.h"
#include "query/plan/planner.h"
#include "query/plan/planner_internal.h"

namespace strata::query {
namespace {

// `first UNION [ALL] step` with nothing after it: the form a recursive query takes.
bool HasRecursiveForm(const SelectStmt& query) {
  return query.set_operation == SetOperation::kUnion && query.set_left && query.set_right &&
         query.order_by.empty() && !query.limit && !query.offset;
}

std::string Quoted(std::string_view name) { return StrCat("\"", name, "\""); }

// Puts `use` under `name` in `tables` until the returned guard ends, then what was there before
// (a recursive query in another's step may take its name).
template <typename Tables>
auto InScope(Tables& tables, const std::string& name, typename Tables::mapped_type use) {
  typename Tables::mapped_type before;
  if (auto it = tables.find(name); it != tables.end()) before = it->second;
  tables[name] = std::move(use);
  return absl::Cleanup([&tables, name, before = std::move(before)] {
    if (before) {
      tables[name] = before;
    } else {
      tables.erase(name);
    }
  });
}

}  // namespace

void Planner::RestoreWithQueries(const HiddenWithQueries& hidden) {
  for (auto it = hidden.rbegin(); it != hidden.rend(); ++it) {
    if (auto named = ctes_.find(it->first); named != ctes_.end()) {
      kept_ctes_.erase(named->second.get());
    }
    if (it->second) {
      ctes_[it->first] = it->second;
    } else {
      ctes_.erase(it->first);
    }
  }
}

absl::Status Planner::PlanWithQueries(SelectStmt& select, HiddenWithQueries* hidden) {
  const std::set<std::string> read_again = InlineWithQueries(select, &inline_budget_);
  for (WithQuery& with : select.with) {
    if (working_tables_.contains(with.name)) {
      // Its name would stand for two row sets in the recursive query's step.
      return SqlError(sql_, with.pos,
                      StrCat("the WITH query ", Quoted(with.name),
                             " inside the recursive WITH query of that name takes its name; "
                             "name it otherwise"));
    }
    std::shared_ptr<Plan> plan;
    if (!select.with_recursive) {
      ASSIGN_OR_RETURN(plan, PlanNamedQuery(with));
    } else if (HasRecursiveForm(*with.query)) {
      ASSIGN_OR_RETURN(plan, PlanRecursiveQuery(with));
    } else {
      // Under WITH RECURSIVE a query of another form that reads its own name is refused.
      auto refused = std::make_shared<WorkingTableUse>();
      refused->refusal = StrCat("the recursive WITH query ", Quoted(with.name),
                                " must have the form `first query UNION [ALL] query reading ",
                                Quoted(with.name), "`");
      auto in_scope = InScope(working_tables_, with.name, std::move(refused));
      ASSIGN_OR_RETURN(plan, PlanNamedQuery(with));
    }
    if (read_again.contains(with.name) && working_tables_.empty()) kept_ctes_.insert(plan.get());
    std::shared_ptr<Plan>& named = ctes_[with.name];
    hidden->emplace_back(with.name, named);
    named = std::move(plan);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<Plan>> Planner::PlanNamedQuery(WithQuery& with) {
  std::unique_ptr<SelectStmt> query = std::move(with.query);
  if (!with.columns.empty()) {
    // WITH t(a, b) AS (query): t is SELECT * FROM (query) AS t(a, b).
    std::unique_ptr<SelectStmt> named = SelectAllFrom(with.pos);
    TableRef& from = *named->from;
    from.subquery = std::move(query);
    from.alias = with.name;
    from.column_aliases = with.columns;
    query = std::move(named);
  }
  return PlanSelect(std::move(query));
}

absl::StatusOr<std::shared_ptr<Plan>> Planner::PlanRecursiveQuery(WithQuery& with) {
  SelectStmt& query = *with.query;
  const std::string name = Quoted(with.name);
  // The name is the step before's rows from here on; the first query may not read it.
  auto use = std::make_shared<WorkingTableUse>();
  use->refusal = StrCat("the recursive WITH query ", name,
                        " cannot be read in its first query (the one before UNION); that query "
                        "makes the rows the steps start from");
  auto in_scope = InScope(working_tables_, with.name, use);

  // WITH t AS (WITH u AS (...) first UNION step): u is the recursive query's.
  HiddenWithQueries hidden;
  absl::Cleanup restore = [this, &hidden] { RestoreWithQueries(hidden); };
  RETURN_IF_ERROR(PlanWithQueries(query, &hidden));
  ASSIGN_OR_RETURN(std::shared_ptr<Plan> first, PlanSelect(std::move(query.set_left)));
  Schema schema = first->output;
  if (!with.columns.empty() && with.columns.size() != schema.size()) {
    return SqlError(sql_, with.pos,
                    StrCat(name, " names ", with.columns.size(),
                           with.columns.size() == 1 ? " column" : " columns",
                           " but its first query returns ", schema.size(), "; name each one once"));
  }
  for (size_t c = 0; c < schema.size(); ++c) {
    ColumnInfo& column = schema[c];
    if (!with.columns.empty()) column.name = with.columns[c];
    column.qualifier.clear();
    if (column.type == DataType::kUnknown) {
      return SqlError(sql_, with.pos,
                      StrCat("column ", c + 1, " (", Quoted(column.name), ") of ", name,
                             "'s first query is a NULL of no type, which its steps cannot "
                             "follow; CAST it, e.g. CAST(NULL AS BIGINT)"));
    }
  }
  auto table = std::make_shared<WorkingTable>();
  table->name = with.name;
  auto rows = std::make_shared<Plan>();
  rows->output = schema;
  rows->root = std::make_shared<WorkingTableNode>(schema, table);
  use->rows = rows;

  ASSIGN_OR_RETURN(std::shared_ptr<Plan> step, PlanSelect(std::move(query.set_right)));
  if (use->references == 0) {  // a plain UNION under WITH RECURSIVE
    ASSIGN_OR_RETURN(std::shared_ptr<Plan> plan,
                     CombineSetOperation(std::move(first), std::move(step), SetOperation::kUnion,
                                         query.set_all));
    if (!with.columns.empty()) {
      for (size_t c = 0; c < plan->output.size(); ++c) plan->output[c].name = with.columns[c];
    }
    return plan;
  }
  if (use->references > 1) {
    return SqlError(sql_, with.pos,
                    StrCat("the recursive WITH query ", name, " is read ", use->references,
                           " times in its step; each step reads the rows of the step before "
                           "once (join them with another WITH query instead)"));
  }
  if (step->output.size() != schema.size()) {
    return SqlError(
        sql_, with.pos,
        StrCat(name, ": its first query returns ", schema.size(), " columns and its recursive one ",
               step->output.size(), "; they must return the same number"));
  }
  for (size_t c = 0; c < schema.size(); ++c) {
    const DataType made = step->output[c].type;
    if (UnionColumnType(schema[c].type, made) != schema[c].type) {
      return SqlError(sql_, with.pos,
                      StrCat("column ", c + 1, " (", Quoted(schema[c].name), ") of ", name, " is ",
                             TypeName(schema[c].type), " in its first query but ", TypeName(made),
                             " in its recursive one; CAST the first query's "
                             "column to ",
                             TypeName(made)));
    }
  }
  auto plan = std::make_shared<Plan>();
  plan->output = schema;
  plan->root = std::make_shared<RecursiveUnionNode>(std::move(first), std::move(step),
                                                    std::move(table), schema, query.set_all);
  return plan;
}

}  // namespace strata::query
