#include "query/parse/set_returning.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "common/strings.h"
#include "query/base/error.h"
#include "query/functions/functions.h"

namespace strata::query {
namespace {

// The names the expansion gives what it adds: the UNNEST and its columns, and (after an
// aggregation) the subquery and its columns. A `$` keeps them apart from names users write
// without quotes.
constexpr std::string_view kUnnestTable = "srf$", kUnnestColumn = "srf$value";
constexpr std::string_view kInnerTable = "srf$rows", kInnerColumn = "srf$item";

// PostgreSQL's set-returning functions that are scalar functions making the array of what
// they make rows of (query/functions/functions_json.cc, regexp_matches).
bool IsArrayRowsCall(const Expr& e) {
  static constexpr std::string_view kNames[] = {"json_array_elements",
                                                "json_array_elements_text",
                                                "json_object_keys",
                                                "jsonb_array_elements",
                                                "jsonb_array_elements_text",
                                                "jsonb_object_keys",
                                                "json_each",
                                                "json_each_text",
                                                "jsonb_each",
                                                "jsonb_each_text",
                                                "regexp_matches"};
  for (std::string_view name : kNames) {
    if (EqualsIgnoreCase(e.name, name)) return true;
  }
  return false;
}

// PostgreSQL's set-returning functions of text, each the rows of an array function's array.
std::string_view TextRowsArrayFunction(const Expr& e) {
  if (EqualsIgnoreCase(e.name, "string_to_table")) return "string_to_array";
  if (EqualsIgnoreCase(e.name, "regexp_split_to_table")) return "regexp_split_to_array";
  return {};
}

bool IsSetReturningCall(const Expr& e) {
  return e.kind == ExprKind::kCall && !e.window &&
         (EqualsIgnoreCase(e.name, "unnest") || EqualsIgnoreCase(e.name, "generate_series") ||
          IsArrayRowsCall(e) || !TextRowsArrayFunction(e).empty());
}

// The first set-returning call in `e` (itself included), or nullptr. Recursion is bounded by
// the expression's height, which the parser bounds.
const Expr* FindSetReturningCall(const Expr* e) {
  if (e == nullptr) return nullptr;
  if (IsSetReturningCall(*e)) return e;
  for (const ExprPtr& arg : e->args) {
    if (const Expr* found = FindSetReturningCall(arg.get())) return found;
  }
  return nullptr;
}

// Whether `e` holds an aggregate or a window function call, which PostgreSQL computes before
// the set-returning functions of the same select list.
bool AggregatesOrWindows(const Expr& e) {
  if (e.kind == ExprKind::kCall && (e.window || FunctionRegistry::Get().FindAggregate(
                                                    absl::AsciiStrToLower(e.name)) != nullptr)) {
    return true;
  }
  for (const ExprPtr& arg : e.args) {
    if (AggregatesOrWindows(*arg)) return true;
  }
  return false;
}

ExprPtr Column(std::string_view qualifier, std::string name, Position pos) {
  auto e = std::make_unique<Expr>();
  e->kind = ExprKind::kColumn;
  e->pos = pos;
  e->qualifier = std::string(qualifier);
  e->name = std::move(name);
  return e;
}

TableRef CrossJoin(TableRef left, TableRef right) {
  TableRef join;
  join.pos = left.pos;
  join.join = JoinKind::kCross;
  join.left = std::make_unique<TableRef>(std::move(left));
  join.right = std::make_unique<TableRef>(std::move(right));
  return join;
}

// The array a set-returning call makes rows of: unnest's argument, the sequence
// generate_series counts, a JSON function's or regexp_matches' array, or the parts
// string_to_table and regexp_split_to_table cut.
absl::StatusOr<ExprPtr> ArrayOf(ExprPtr call, std::string_view sql) {
  if (EqualsIgnoreCase(call->name, "generate_series")) {
    if (call->args.size() < 2 || call->args.size() > 3) {
      return SqlError(sql, call->pos, "generate_series takes (start, stop [, step])");
    }
    return call;  // the array of its values
  }
  if (IsArrayRowsCall(*call)) return call;  // the array of its values
  if (const std::string_view array = TextRowsArrayFunction(*call); !array.empty()) {
    call->name = std::string(array);
    return call;
  }
  if (call->args.size() != 1 || call->distinct) {
    return SqlError(sql, call->pos,
                    "unnest() in a select list takes one array; to zip several, write CROSS "
                    "JOIN UNNEST(a, b) AS t(x, y) in FROM");
  }
  return std::move(call->args[0]);
}

}  // namespace

absl::StatusOr<std::unique_ptr<SelectStmt>> ExpandSetReturningItems(
    std::unique_ptr<SelectStmt> select, std::string_view sql) {
  std::vector<size_t> calls;  // the items that are set-returning calls
  bool after_aggregation = select->grouped() || select->having != nullptr;
  for (size_t i = 0; i < select->items.size(); ++i) {
    const Expr& e = *select->items[i].expr;
    if (IsSetReturningCall(e)) {
      if (absl::StartsWithIgnoreCase(e.name, "json_each") ||
          absl::StartsWithIgnoreCase(e.name, "jsonb_each")) {
        return SqlError(sql, e.pos,
                        StrCat(e.name,
                               "() makes two columns, key and value: call it in FROM "
                               "(SELECT key, value FROM t, ",
                               e.name, "(t.j))"));
      }
      calls.push_back(i);
      for (const ExprPtr& arg : e.args) after_aggregation |= AggregatesOrWindows(*arg);
      continue;
    }
    if (const Expr* nested = FindSetReturningCall(&e)) {
      return SqlError(sql, nested->pos,
                      StrCat(nested->name,
                             "() makes rows, so it stands alone as a select item (SELECT "
                             "unnest(a) AS x); inside an expression, write CROSS JOIN "
                             "UNNEST(a) AS t(x) in FROM and use x"));
    }
    after_aggregation |= AggregatesOrWindows(e);
  }
  for (const Expr* clause : {select->where.get(), select->having.get()}) {
    if (const Expr* found = FindSetReturningCall(clause)) {
      return SqlError(sql, found->pos,
                      StrCat(found->name,
                             "() makes rows, so it goes in the select list or in "
                             "FROM, not in a condition"));
    }
  }
  if (calls.empty()) return select;

  TableRef unnest;
  unnest.pos = select->items[calls.front()].expr->pos;
  unnest.alias = std::string(kUnnestTable);
  std::vector<SelectItem> outer_items;  // after an aggregation: the query around it
  for (size_t i = 0, k = 0; i < select->items.size(); ++i) {
    SelectItem& item = select->items[i];
    const bool call = k < calls.size() && calls[k] == i;
    const Position pos = item.expr->pos;
    if (item.expr->kind == ExprKind::kStar) {
      // t.* reads t alone; a bare * is the one table's columns, not the UNNEST's too.
      if (!after_aggregation && item.expr->qualifier.empty() && select->from &&
          select->from->join == JoinKind::kNone) {
        const TableRef& table = *select->from;
        item.expr->qualifier = table.alias.empty() ? table.table : table.alias;
      }
      if (after_aggregation || item.expr->qualifier.empty()) {
        return SqlError(sql, pos,
                        "* beside unnest() or generate_series() reads one table: write t.* "
                        "or name the columns");
      }
      continue;
    }
    if (!call) {
      if (after_aggregation) {
        std::string name = !item.alias.empty()                    ? item.alias
                           : item.expr->kind == ExprKind::kColumn ? item.expr->name
                                                                  : StrCat("_col", i);
        item.alias = StrCat(kInnerColumn, i);
        outer_items.push_back({Column(kInnerTable, item.alias, pos), std::move(name)});
      }
      continue;
    }
    const std::string function = absl::AsciiStrToLower(item.expr->name);
    ASSIGN_OR_RETURN(ExprPtr array, ArrayOf(std::move(item.expr), sql));
    const std::string value = StrCat(kUnnestColumn, k++);
    unnest.column_aliases.push_back(value);
    std::string name = item.alias.empty() ? function : item.alias;
    if (after_aggregation) {
      item.expr = std::move(array);
      item.alias = StrCat(kInnerColumn, i);
      unnest.unnest.push_back(Column(kInnerTable, item.alias, pos));
      outer_items.push_back({Column(kUnnestTable, value, pos), std::move(name)});
    } else {
      unnest.unnest.push_back(std::move(array));
      item.expr = Column(kUnnestTable, value, pos);
      item.alias = std::move(name);
    }
  }
  if (!after_aggregation) {
    select->from =
        select->from ? CrossJoin(std::move(*select->from), std::move(unnest)) : std::move(unnest);
    return select;
  }
  // The aggregation (and its DISTINCT) as a subquery; the rows of its arrays around it.
  auto outer = std::make_unique<SelectStmt>();
  outer->distinct = std::exchange(select->distinct, false);
  if (!select->distinct_on.empty()) {
    return SqlError(sql, select->distinct_on.front()->pos,
                    "DISTINCT ON with unnest() after an aggregation is not supported: select "
                    "from the aggregation in a subquery");
  }
  outer->items = std::move(outer_items);
  TableRef rows;
  rows.pos = select->items.front().expr->pos;
  rows.alias = std::string(kInnerTable);
  rows.subquery = std::move(select);
  outer->from = CrossJoin(std::move(rows), std::move(unnest));
  return outer;
}

}  // namespace strata::query
