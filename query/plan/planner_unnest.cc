// Planner: UNNEST in FROM. `CROSS JOIN UNNEST(args) AS t(columns)` binds its
// arguments to the columns of the items before it and adds, to each of
// their rows, one row per element (or per point of a time series);
// `FROM UNNEST(...)` alone unnests over one empty row.
#include "common/status.h"
#include "common/strings.h"
#include "query/exec/unnest.h"
#include "query/plan/planner.h"
#include "query/plan/planner_internal.h"

namespace strata::query {

absl::StatusOr<std::unique_ptr<Planner::FromNode>> Planner::PrepareUnnest(TableRef& ref,
                                                                          const Schema& input) {
  auto node = std::make_unique<FromNode>();
  node->ref = &ref;
  auto spec = std::make_shared<UnnestSpec>();
  auto exprs = std::make_shared<std::vector<ExprPtr>>();
  spec->input_width = static_cast<int>(input.size());
  spec->with_ordinality = ref.with_ordinality;
  for (const ColumnInfo& c : input) spec->output_types.push_back(c.type);
  const std::string qualifier = ref.alias.empty() ? "unnest" : ref.alias;
  Schema columns;
  for (const ExprPtr& arg : ref.unnest) {
    if (ContainsAggregate(*arg) || ContainsWindow(*arg)) {
      return SqlError(sql_, arg->pos, "UNNEST cannot use aggregates or window functions; "
                                      "compute them in a WITH query and unnest its column");
    }
    ExprPtr bound = arg->Clone();
    RETURN_IF_ERROR(Bind(*bound, input, sql_));
    const DataType type = bound->bound.type;
    const std::vector<DataType> types = UnnestColumnTypes(type);
    if (types.empty()) {
      return SqlError(sql_, arg->pos, StrCat("UNNEST takes arrays, maps and time series, not ",
                                             TypeName(type)));
    }
    std::vector<std::string> names;
    if (KindOf(type) == TypeKind::kTimeseries) {
      names = {"time", "value"};
    } else if (KindOf(type) == TypeKind::kMap) {
      names = {"key", "value"};
    } else if (KindOf(ElementType(type)) == TypeKind::kRow) {
      for (const RowField& f : RowFields(ElementType(type))) names.push_back(f.name);
    } else {
      names.push_back(ref.unnest.size() == 1 && !ref.alias.empty()
                          ? ref.alias
                          : StrCat("_col", columns.size()));
    }
    for (size_t i = 0; i < types.size(); ++i) {
      columns.push_back({.name = names[i], .type = types[i], .qualifier = qualifier});
    }
    spec->args.push_back(bound.get());
    exprs->push_back(std::move(bound));
  }
  if (ref.with_ordinality) {
    columns.push_back({.name = "ordinality", .type = DataType::kBigint, .qualifier = qualifier});
  }
  if (!ref.column_aliases.empty()) {
    if (ref.column_aliases.size() != columns.size()) {
      return SqlError(sql_, ref.pos,
                      StrCat("UNNEST gives ", columns.size(), " columns but its alias names ",
                             ref.column_aliases.size(),
                             " (a time series gives time and value; an array one column, "
                             "an array of rows one per field)"));
    }
    for (size_t i = 0; i < columns.size(); ++i) columns[i].name = ref.column_aliases[i];
  }
  for (const ColumnInfo& c : columns) spec->output_types.push_back(c.type);
  node->schema = std::move(columns);
  node->unnest = std::move(spec);
  node->unnest_exprs = std::move(exprs);
  return node;
}

Planner::Source Planner::UnnestSource(const FromNode& unnest, Source input) {
  Schema schema = input.schema();
  schema.insert(schema.end(), unnest.schema.begin(), unnest.schema.end());
  std::string args;
  for (const ExprPtr& e : *unnest.unnest_exprs) args += (args.empty() ? "" : ", ") + e->ToString();
  Source source;
  source.node = std::make_shared<UnnestNode>(
      std::move(input.node), std::move(schema), unnest.unnest, unnest.unnest_exprs,
      StrCat("Unnest ", args, unnest.unnest->with_ordinality ? " WITH ORDINALITY" : ""));
  return source;
}

Planner::Source Planner::OneRowSource() {
  Source source;
  source.node = std::make_shared<OneRowNode>();
  return source;
}

}  // namespace strata::query
