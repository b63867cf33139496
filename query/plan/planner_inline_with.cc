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
// run once for all its readings (KeptRowsNode, query/exec/source_nodes.h). Copies for NOT
// MATERIALIZED come out of a statement's budget of nodes (`budget`): each level of WITH queries
// reading the one before twice doubles them, so a short statement could ask for billions.

#include <set>
#include <string>
#include <vector>

#include "query/functions/functions.h"
#include "query/plan/planner_internal.h"

namespace strata::query {
namespace {

// Every WITH query, FROM item and expression node of a statement, each FROM item with whether
// it runs once per statement where it stands (`site`: in FROM, a FROM subquery's or a set
// operation's, not in an expression's subquery, a LATERAL subquery or below a WITH clause).
class StatementWalk {
 public:
  virtual ~StatementWalk() = default;

  void Query(SelectStmt& s, bool site) {
    for (WithQuery& w : s.with) {
      OnWith(w);
      Query(*w.query, false);
    }
    Body(s, site && s.with.empty());
  }

  // Not the statement's own WITH list.
  void Body(SelectStmt& s, bool site) {
    if (s.set_left) Query(*s.set_left, site);
    if (s.set_right) Query(*s.set_right, site);
    for (ExprPtr& e : s.distinct_on) Node(*e);
    for (SelectItem& item : s.items) Node(*item.expr);
    if (s.from) Ref(*s.from, site);
    if (s.where) Node(*s.where);
    for (ExprPtr& e : s.group_by) Node(*e);
    if (s.having) Node(*s.having);
    for (OrderItem& o : s.order_by) Node(*o.expr);
  }

 protected:
  virtual void OnWith(WithQuery& /*with*/) {}
  virtual void OnRef(TableRef& /*ref*/, bool /*site*/) {}
  virtual void OnExpr(const Expr& /*e*/) {}

 private:
  void Ref(TableRef& ref, bool site) {
    OnRef(ref, site);
    if (ref.subquery) Query(*ref.subquery, site && !ref.lateral);
    if (ref.left) Ref(*ref.left, site);
    if (ref.right) Ref(*ref.right, site);
    if (ref.on) Node(*ref.on);
    for (ExprPtr& e : ref.unnest) Node(*e);
    for (std::vector<ExprPtr>& row : ref.values) {
      for (ExprPtr& e : row) Node(*e);
    }
  }

  void Window(WindowSpec& w) {
    for (ExprPtr& e : w.partition_by) Node(*e);
    for (OrderItem& o : w.order_by) Node(*o.expr);
  }

  void Node(Expr& e) {
    OnExpr(e);
    for (ExprPtr& a : e.args) Node(*a);
    if (e.window) Window(*e.window);
    if (e.ordered_by) Window(*e.ordered_by);
    if (e.subquery) Query(*e.subquery, false);
  }
};

// The readings of one WITH query's name in a statement.
class ReadingFinder : public StatementWalk {
 public:
  explicit ReadingFinder(const std::string& name) : name_(name) {}

  int count = 0;                 // every reading, wherever it is
  std::vector<TableRef*> sites;  // those it could be planned at
  bool hidden = false;           // a WITH query of the same name inside takes the name

 private:
  void OnWith(WithQuery& with) override { hidden |= with.name == name_; }
  void OnRef(TableRef& ref, bool site) override {
    if (ref.join == JoinKind::kNone && !ref.subquery && ref.database.empty() &&
        ref.unnest.empty() && ref.values.empty() && ref.table == name_) {
      ++count;
      if (site) sites.push_back(&ref);
    }
  }

  const std::string& name_;
};

// The size of a query (its FROM items and expression nodes) and whether it calls a volatile
// function.
class QueryShape : public StatementWalk {
 public:
  explicit QueryShape(SelectStmt& query) { Query(query, false); }

  int64_t nodes = 0;
  bool calls_volatile = false;

 private:
  void OnRef(TableRef&, bool) override { ++nodes; }
  void OnExpr(const Expr& e) override {
    ++nodes;
    if (e.kind != ExprKind::kCall) return;
    const ScalarFunction* f = FunctionRegistry::Get().FindScalar(e.name);
    calls_volatile |= f != nullptr && f->volatile_value;
  }
};

// Whether a WITH query with these readings is written in at each of them.
bool WrittenIn(const WithQuery& with, const ReadingFinder& readings, int64_t* budget) {
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
  const QueryShape shape(*with.query);
  if (shape.calls_volatile) return false;
  // The first reading takes the query itself; each other one a copy.
  const int64_t copies = shape.nodes * (readings.count - 1);
  if (copies > *budget) return false;
  *budget -= copies;
  return true;
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

std::set<std::string> InlineWithQueries(SelectStmt& select, int64_t* budget) {
  std::set<std::string> read_again;
  // From the last: a query read only by a later one is written into it there, and then read
  // where that one is written in.
  for (size_t i = select.with.size(); i-- > 0;) {
    WithQuery& with = select.with[i];
    ReadingFinder readings(with.name);
    for (size_t later = i + 1; later < select.with.size(); ++later) {
      readings.hidden |= select.with[later].name == with.name;
      readings.Query(*select.with[later].query, true);
    }
    readings.Body(select, true);
    if (select.with_recursive || !WrittenIn(with, readings, budget)) {
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
