// Planner: a WITH query read once is planned where it is read, as PostgreSQL does. `WITH
// latest AS (SELECT host, max(time) t FROM cpu GROUP BY host) SELECT * FROM latest WHERE host =
// 'h1'` grouped every host before keeping one; as `FROM (SELECT ...) AS latest` the condition
// moves into it (planner_pushdown.cc) and the scan reads that host alone.
//
// A WITH query is written in at its readings when
//   - it is read once (AS NOT MATERIALIZED: any number of times; AS MATERIALIZED: never), and
//     every reading is a FROM item that runs once per statement: in the statement's FROM, a
//     later WITH query's, a FROM subquery's or a set operation's, not inside an expression's
//     subquery (run again for each outer row when correlated) or a LATERAL subquery;
//   - no reading sits below a WITH clause of its own (whose names could take the place of those
//     the query reads), and no WITH query of the same name hides it;
//   - it calls no volatile function (random() read at two places would differ), and the
//     statement is not WITH RECURSIVE.
// Whatever is not written in is planned once before the statement; one read more than once is
// run once for all its readings (KeptRowsNode, query/exec/source_nodes.h).

#include <set>
#include <string>
#include <vector>

#include "query/functions/functions.h"
#include "query/plan/planner_internal.h"

namespace strata::query {
namespace {

// The readings of one WITH query's name in a statement.
struct Readings {
  int count = 0;                 // every reading, wherever it is
  std::vector<TableRef*> sites;  // those it could be planned at
  bool hidden = false;           // a WITH query of the same name inside takes the name
};

class ReadingFinder {
 public:
  explicit ReadingFinder(const std::string& name) : name_(name) {}

  // The statement's own WITH list is not walked: its caller knows which of them can read it.
  void InBody(SelectStmt& s, bool site) {
    if (s.set_left) InQuery(*s.set_left, site);
    if (s.set_right) InQuery(*s.set_right, site);
    for (ExprPtr& e : s.distinct_on) InExpr(*e);
    for (SelectItem& item : s.items) InExpr(*item.expr);
    if (s.from) InRef(*s.from, site);
    if (s.where) InExpr(*s.where);
    for (ExprPtr& e : s.group_by) InExpr(*e);
    if (s.having) InExpr(*s.having);
    for (OrderItem& o : s.order_by) InExpr(*o.expr);
  }

  void InQuery(SelectStmt& s, bool site) {
    for (WithQuery& w : s.with) {
      if (w.name == name_) readings_.hidden = true;
      InQuery(*w.query, false);
    }
    InBody(s, site && s.with.empty());
  }

  Readings& readings() { return readings_; }

 private:
  void InRef(TableRef& ref, bool site) {
    if (ref.join == JoinKind::kNone && !ref.subquery && ref.database.empty() &&
        ref.unnest.empty() && ref.values.empty() && ref.table == name_) {
      ++readings_.count;
      if (site) readings_.sites.push_back(&ref);
    }
    if (ref.subquery) InQuery(*ref.subquery, site && !ref.lateral);
    if (ref.left) InRef(*ref.left, site);
    if (ref.right) InRef(*ref.right, site);
    if (ref.on) InExpr(*ref.on);
    for (ExprPtr& e : ref.unnest) InExpr(*e);
    for (std::vector<ExprPtr>& row : ref.values) {
      for (ExprPtr& e : row) InExpr(*e);
    }
  }

  void InWindow(WindowSpec& w) {
    for (ExprPtr& e : w.partition_by) InExpr(*e);
    for (OrderItem& o : w.order_by) InExpr(*o.expr);
  }

  void InExpr(Expr& e) {
    for (ExprPtr& a : e.args) InExpr(*a);
    if (e.window) InWindow(*e.window);
    if (e.ordered_by) InWindow(*e.ordered_by);
    if (e.subquery) InQuery(*e.subquery, false);
  }

  const std::string& name_;
  Readings readings_;
};

bool CallsVolatile(const Expr& e);

bool WindowCallsVolatile(const WindowSpec& w) {
  for (const ExprPtr& e : w.partition_by) {
    if (CallsVolatile(*e)) return true;
  }
  for (const OrderItem& o : w.order_by) {
    if (CallsVolatile(*o.expr)) return true;
  }
  return false;
}

bool QueryCallsVolatile(const SelectStmt& s);

bool RefCallsVolatile(const TableRef& ref) {
  if (ref.subquery && QueryCallsVolatile(*ref.subquery)) return true;
  if (ref.left && RefCallsVolatile(*ref.left)) return true;
  if (ref.right && RefCallsVolatile(*ref.right)) return true;
  if (ref.on && CallsVolatile(*ref.on)) return true;
  for (const ExprPtr& e : ref.unnest) {
    if (CallsVolatile(*e)) return true;
  }
  for (const std::vector<ExprPtr>& row : ref.values) {
    for (const ExprPtr& e : row) {
      if (CallsVolatile(*e)) return true;
    }
  }
  return false;
}

bool CallsVolatile(const Expr& e) {
  if (e.kind == ExprKind::kCall) {
    const ScalarFunction* f = FunctionRegistry::Get().FindScalar(e.name);
    if (f != nullptr && f->volatile_value) return true;
  }
  for (const ExprPtr& a : e.args) {
    if (CallsVolatile(*a)) return true;
  }
  return (e.window && WindowCallsVolatile(*e.window)) ||
         (e.ordered_by && WindowCallsVolatile(*e.ordered_by)) ||
         (e.subquery && QueryCallsVolatile(*e.subquery));
}

bool QueryCallsVolatile(const SelectStmt& s) {
  for (const WithQuery& w : s.with) {
    if (QueryCallsVolatile(*w.query)) return true;
  }
  if (s.set_left && QueryCallsVolatile(*s.set_left)) return true;
  if (s.set_right && QueryCallsVolatile(*s.set_right)) return true;
  std::vector<const Expr*> exprs;
  for (const ExprPtr& e : s.distinct_on) exprs.push_back(e.get());
  for (const SelectItem& item : s.items) exprs.push_back(item.expr.get());
  exprs.push_back(s.where.get());
  for (const ExprPtr& e : s.group_by) exprs.push_back(e.get());
  exprs.push_back(s.having.get());
  for (const OrderItem& o : s.order_by) exprs.push_back(o.expr.get());
  for (const Expr* e : exprs) {
    if (e != nullptr && CallsVolatile(*e)) return true;
  }
  return s.from && RefCallsVolatile(*s.from);
}

bool WrittenIn(const WithQuery& with, const Readings& readings) {
  if (readings.hidden || readings.count == 0 ||
      readings.sites.size() != static_cast<size_t>(readings.count)) {
    return false;
  }
  switch (with.materialize) {
    case WithQuery::Materialize::kAlways:
      return false;
    case WithQuery::Materialize::kDefault:
      if (readings.count > 1) return false;
      break;
    case WithQuery::Materialize::kNever:
      break;
  }
  return !QueryCallsVolatile(*with.query);
}

// The reading `FROM name [AS alias[(c, ...)]]` made `FROM (query) AS alias[(c, ...)]`; a WITH
// query's own column names become the subquery's (under the reading's, when it has some).
void WriteIn(const WithQuery& with, std::unique_ptr<SelectStmt> query, TableRef& site) {
  if (!with.columns.empty()) {
    if (site.column_aliases.empty()) {
      site.column_aliases = with.columns;
    } else {
      std::unique_ptr<SelectStmt> named = SelectAllFrom(with.pos);
      named->from->subquery = std::move(query);
      named->from->alias = with.name;
      named->from->column_aliases = with.columns;
      query = std::move(named);
    }
  }
  if (site.alias.empty()) site.alias = site.table;
  site.table.clear();
  site.subquery = std::move(query);
}

}  // namespace

std::set<std::string> InlineWithQueries(SelectStmt& select) {
  std::set<std::string> read_again;
  // From the last: a query read only by a later one is written into it there, and then read
  // where that one is written in.
  for (size_t i = select.with.size(); i-- > 0;) {
    WithQuery& with = select.with[i];
    ReadingFinder finder(with.name);
    for (size_t later = i + 1; later < select.with.size(); ++later) {
      if (select.with[later].name == with.name) finder.readings().hidden = true;
      finder.InQuery(*select.with[later].query, true);
    }
    finder.InBody(select, true);
    const Readings& readings = finder.readings();
    if (select.with_recursive || !WrittenIn(with, readings)) {
      if (readings.count > 1) read_again.insert(with.name);
      continue;
    }
    for (size_t r = 0; r + 1 < readings.sites.size(); ++r) {
      WriteIn(with, with.query->Clone(), *readings.sites[r]);
    }
    WriteIn(with, std::move(with.query), *readings.sites.back());
    select.with.erase(select.with.begin() + static_cast<std::ptrdiff_t>(i));
  }
  return read_again;
}

}  // namespace strata::query
