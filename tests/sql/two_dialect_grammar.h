// Statements generated in two dialects at once (their expressions:
// tests/sql/two_dialect_expressions.h), for tests/sql/sqlite_oracle_test.cc: rows, groups,
// windows, joins, set operations and subqueries. Every ORDER BY is total and places its NULLs
// explicitly on SQLite's side (Presto puts NULLs last in either direction; SQLite first when
// ascending).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tests/sql/two_dialect_expressions.h"

namespace strata::testing {

// One statement in both dialects, its result columns' kinds, and whether its rows come in an
// order of its own (otherwise compare them sorted).
struct DialectPair {
  std::string strata, sqlite;
  std::vector<Kind> kinds;
  bool ordered = false;
};

class TwoDialectGrammar : public TwoDialectExpressions {
 public:
  // Statements over `strata_table` ("db.name"; SQLite's table is `t`).
  TwoDialectGrammar(uint32_t seed, std::string strata_table)
      : TwoDialectExpressions(seed), table_(std::move(strata_table)) {}

  DialectPair Next() {
    switch (Pick(13)) {
      case 12:
        return Mixed();
      case 0:
      case 1:
        return Rows();
      case 2:
      case 3:
      case 4:
        return Grouped();
      case 5:
        return Global();
      case 6:
        return Distinct();
      case 7:
      case 8:
        return Windowed();
      case 9:
        return Joined();
      case 10:
        return SetOperation();
      default:
        return Subquery();
    }
  }

 private:
  // ORDER BY every one of `n` columns: a total order, so a LIMIT cuts the same lines.
  void OrderAll(size_t n, DialectPair& q, bool limit) {
    std::vector<std::string> a, b;
    for (size_t i = 1; i <= n; ++i) {
      const bool desc = Chance(40);
      const int nulls = static_cast<int>(Pick(3));  // default, first, last
      a.push_back(absl::StrCat(i, desc ? " DESC" : "",
                               nulls == 1   ? " NULLS FIRST"
                               : nulls == 2 ? " NULLS LAST"
                                            : ""));
      b.push_back(
          absl::StrCat(i, desc ? " DESC" : "", nulls == 1 ? " NULLS FIRST" : " NULLS LAST"));
    }
    q.strata += " ORDER BY " + absl::StrJoin(a, ", ");
    q.sqlite += " ORDER BY " + absl::StrJoin(b, ", ");
    q.ordered = true;
    if (!limit) return;
    const std::string cut =
        absl::StrCat(" LIMIT ", 1 + Pick(25), Chance(30) ? absl::StrCat(" OFFSET ", Pick(10)) : "");
    q.strata += cut;
    q.sqlite += cut;
  }

  // SELECT of `items` FROM the table (T in the SQLite dialect is `t`).
  DialectPair Select(const std::vector<Expr>& items, const std::string& head = "SELECT ") {
    DialectPair q;
    std::vector<std::string> a, b;
    for (const Expr& e : items) {
      a.push_back(e.strata);
      b.push_back(e.sqlite);
      q.kinds.push_back(e.kind);
    }
    q.strata = head + absl::StrJoin(a, ", ") + " FROM " + table_;
    q.sqlite = head + absl::StrJoin(b, ", ") + " FROM t";
    return q;
  }

  void AddFilter(DialectPair& q) {
    const auto [strata, sqlite] = Filter();
    q.strata += strata;
    q.sqlite += sqlite;
  }

  DialectPair Rows() {
    std::vector<Expr> items;
    for (size_t i = 1 + Pick(3); i > 0; --i) items.push_back(Of(OneOf(kAllKinds)));
    DialectPair q = Select(items);
    AddFilter(q);
    if (Chance(50)) OrderAll(items.size(), q, /*limit=*/true);
    return q;
  }

  DialectPair Grouped() {
    std::vector<Expr> items;
    const size_t keys = 1 + Pick(2);
    for (size_t i = 0; i < keys; ++i) items.push_back(Key());
    for (size_t i = 1 + Pick(3); i > 0; --i) items.push_back(Aggregate());
    DialectPair q = Select(items);
    AddFilter(q);
    const std::string by = keys == 1 ? " GROUP BY 1" : " GROUP BY 1, 2";
    q.strata += by;
    q.sqlite += by;
    if (Chance(30)) {
      Expr aggregate = Aggregate();
      while (aggregate.kind != Kind::kInt && aggregate.kind != Kind::kDouble) {
        aggregate = Aggregate();
      }
      const Expr having =
          Join2(aggregate, " > ", Same(std::to_string(Pick(20)), Kind::kInt), Kind::kBool);
      q.strata += " HAVING " + having.strata;
      q.sqlite += " HAVING " + having.sqlite;
    }
    if (Chance(40)) OrderAll(items.size(), q, Chance(70));
    return q;
  }

  DialectPair Global() {
    std::vector<Expr> items;
    for (size_t i = 1 + Pick(4); i > 0; --i) items.push_back(Aggregate());
    DialectPair q = Select(items);
    AddFilter(q);
    return q;
  }

  DialectPair Distinct() {
    std::vector<Expr> items;
    for (size_t i = 1 + Pick(2); i > 0; --i) items.push_back(Key());
    DialectPair q = Select(items, "SELECT DISTINCT ");
    AddFilter(q);
    if (Chance(50)) OrderAll(items.size(), q, Chance(50));
    return q;
  }

  // A window function over a partition, ordered by a unique key (time, host, measure_name) or
  // by a value with ties (rank, and the default frame's peers).
  DialectPair Windowed() {
    static const std::vector<std::string> kPartitions = {
        "", "PARTITION BY host ", "PARTITION BY zone ", "PARTITION BY measure_name, zone "};
    const std::string partition = OneOf(kPartitions);
    const std::string unique = "ORDER BY time, host, measure_name";
    Expr value = Of(OneOf(kValueKinds), 1);
    Expr number = Number(1);
    auto over = [&](const std::string& order) {
      return absl::StrCat(" OVER (", partition, order, ")");
    };
    // ORDER BY `key` in both dialects, SQLite's with Presto's place for NULLs (last).
    auto by = [](const Expr& key, bool desc) {
      return std::pair{absl::StrCat("ORDER BY ", key.strata, desc ? " DESC" : ""),
                       absl::StrCat("ORDER BY ", key.sqlite, desc ? " DESC" : "", " NULLS LAST")};
    };
    // f() or f(arg, more) OVER (partition, order), in both dialects.
    auto call = [&](const std::string& f, const Expr* arg, const std::string& more,
                    const std::pair<std::string, std::string>& order, Kind kind) {
      return Expr{absl::StrCat(f, "(", arg ? arg->strata : "", more, ")", over(order.first)),
                  absl::StrCat(f, "(", arg ? arg->sqlite : "", more, ")", over(order.second)),
                  kind};
    };
    const std::pair<std::string, std::string> unique_order{unique, unique};
    auto unique_with = [&](const std::string& frame) {
      return std::pair{unique + frame, unique + frame};
    };
    Expr w;
    switch (Pick(12)) {
      case 9: {
        // RANGE with offsets over a key with NULLs (NULL rows are each other's peers).
        static const std::vector<std::string> kRanges = {
            " RANGE BETWEEN 3 PRECEDING AND 2 FOLLOWING",
            " RANGE BETWEEN CURRENT ROW AND 5 FOLLOWING",
            " RANGE BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING"};
        const std::string frame = OneOf(kRanges);
        auto order = by(Same("a", Kind::kInt), Chance(30));
        w = call("count", &value, "", {order.first + frame, order.second + frame}, Kind::kInt);
        break;
      }
      case 10: {
        const std::string frame = " GROUPS BETWEEN 1 PRECEDING AND CURRENT ROW";
        auto order = by(Same("s", Kind::kText), false);
        const Expr b = Same("b", Kind::kInt);
        w = call("sum", &b, "", {order.first + frame, order.second + frame}, Kind::kInt);
        break;
      }
      case 11:
        w = call("nth_value", &value, ", 2",
                 unique_with(" ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING"),
                 value.kind);
        break;
      case 0:
        w = call("row_number", nullptr, "", unique_order, Kind::kInt);
        break;
      case 1: {
        const bool desc = Chance(50);
        w = call(Chance(50) ? "rank" : "dense_rank", nullptr, "", by(number, desc), Kind::kInt);
        break;
      }
      case 2: {
        const std::string name = Chance(50) ? "lag" : "lead";
        w = call(name, &value, Chance(50) ? "" : ", 2", unique_order, value.kind);
        break;
      }
      case 3:
        w = call("sum", &number, "", unique_with(" ROWS BETWEEN 2 PRECEDING AND CURRENT ROW"),
                 number.kind);
        break;
      case 4:
        w = call("count", &value, "", {"", ""}, Kind::kInt);
        break;
      case 5:
        // The default frame: every row up to the current one and its peers.
        w = call(Chance(50) ? "max" : "min", &value, "", by(number, false), value.kind);
        break;
      case 6:
        w = call(Chance(50) ? "first_value" : "last_value", &value, "", unique_order, value.kind);
        break;
      case 7:
        w = call("avg", &number, "", unique_with(" ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING"),
                 Kind::kDouble);
        break;
      default: {
        const std::string name =
            OneOf(std::vector<std::string>{"ntile", "percent_rank", "cume_dist"});
        // ntile over ties is not defined by the order of equal rows alone: order it uniquely.
        w = name == "ntile" ? call("ntile", nullptr, "3", unique_order, Kind::kInt)
                            : call(name, nullptr, "", by(number, false), Kind::kDouble);
        break;
      }
    }
    DialectPair q =
        Select({Same("host", Kind::kText), Same("measure_name", Kind::kText), Minute(), w});
    AddFilter(q);
    return q;
  }

  // Joins with derived tables: inner, left, right and full, on keys with NULLs.
  DialectPair Joined() {
    const auto [inner_a, inner_b] = Filter();
    const Expr agg = Aggregate();
    switch (Pick(4)) {
      case 1: {
        // Each row beside its zone's aggregate: rows of no zone (and zones the filter left
        // out) keep NULL.
        const Expr p = Bool(1);
        DialectPair q;
        q.strata = absl::StrCat("SELECT host, ", Minute().strata, ", r.v FROM ", table_,
                                " LEFT JOIN (SELECT zone AS z, ", agg.strata, " AS v FROM ", table_,
                                inner_a, " GROUP BY zone) r ON zone = r.z WHERE ", p.strata);
        q.sqlite =
            absl::StrCat("SELECT host, ", Minute().sqlite,
                         ", r.v FROM t LEFT JOIN (SELECT zone AS z, ", agg.sqlite, " AS v FROM t",
                         inner_b, " GROUP BY zone) r ON zone = r.z WHERE ", p.sqlite);
        q.kinds = {Kind::kText, Kind::kInt, agg.kind};
        return q;
      }
      case 0: {
        const Expr p = Bool(1);
        DialectPair q;
        q.strata = absl::StrCat("SELECT host, r.v, count(*) FROM ", table_,
                                " l JOIN (SELECT host AS h, ", agg.strata, " AS v FROM ", table_,
                                inner_a, " GROUP BY host) r ON l.host = r.h WHERE ", p.strata,
                                " GROUP BY host, r.v");
        q.sqlite =
            absl::StrCat("SELECT host, r.v, count(*) FROM t l JOIN (SELECT host AS h, ", agg.sqlite,
                         " AS v FROM t", inner_b, " GROUP BY host) r ON l.host = r.h WHERE ",
                         p.sqlite, " GROUP BY host, r.v");
        q.kinds = {Kind::kText, agg.kind, Kind::kInt};
        return q;
      }
      default: {
        static const std::vector<std::string> kJoins = {"LEFT JOIN", "RIGHT JOIN", "FULL JOIN",
                                                        "JOIN"};
        const std::string join = OneOf(kJoins);
        const Expr k = Key();
        const auto [outer_a, outer_b] = Filter();
        // A condition in ON (it only decides which rows match) or in WHERE after the join
        // (it sees the NULLs an outer join makes): the two must not be confused.
        static const std::vector<std::string> kOn = {"", "", " AND l.n > 20",
                                                     " AND r.v IS NOT NULL", " AND l.n < r.n"};
        static const std::vector<std::string> kAfter = {"",
                                                        "",
                                                        " WHERE r.k IS NULL",
                                                        " WHERE l.k IS NULL",
                                                        " WHERE coalesce(r.n, 0) < 30",
                                                        " WHERE l.n > 10 OR r.v IS NULL"};
        const std::string condition = absl::StrCat(" ON l.k = r.k", OneOf(kOn), OneOf(kAfter));
        DialectPair q;
        q.strata = absl::StrCat(
            "SELECT l.k, l.n, r.v FROM (SELECT ", k.strata, " AS k, count(*) AS n FROM ", table_,
            outer_a, " GROUP BY 1) l ", join, " (SELECT ", k.strata, " AS k, ", agg.strata,
            " AS v, count(*) AS n FROM ", table_, inner_a, " GROUP BY 1) r", condition);
        q.sqlite = absl::StrCat(
            "SELECT l.k, l.n, r.v FROM (SELECT ", k.sqlite, " AS k, count(*) AS n FROM t", outer_b,
            " GROUP BY 1) l ", join, " (SELECT ", k.sqlite, " AS k, ", agg.sqlite,
            " AS v, count(*) AS n FROM t", inner_b, " GROUP BY 1) r", condition);
        q.kinds = {k.kind, Kind::kInt, agg.kind};
        return q;
      }
    }
  }

  // Shapes that combine clauses: windows over groups, joins on inequalities and of three
  // inputs, an order by what is not selected.
  DialectPair Mixed() {
    DialectPair q;
    const auto [where_a, where_b] = Filter();
    switch (Pick(4)) {
      case 0: {
        const Expr k = Key(), agg = Aggregate();
        const std::string rank = Chance(50) ? "rank()" : "dense_rank()";
        q.strata = absl::StrCat("SELECT ", k.strata, ", ", agg.strata, ", ", rank,
                                " OVER (ORDER BY count(*) DESC), sum(count(*)) OVER () FROM ",
                                table_, where_a, " GROUP BY 1");
        q.sqlite = absl::StrCat("SELECT ", k.sqlite, ", ", agg.sqlite, ", ", rank,
                                " OVER (ORDER BY count(*) DESC), sum(count(*)) OVER () FROM t",
                                where_b, " GROUP BY 1");
        q.kinds = {k.kind, agg.kind, Kind::kInt, Kind::kInt};
        return q;
      }
      case 1: {
        // A join on an inequality: every pair of the two sides' values that satisfies it.
        static const std::vector<std::string> kConditions = {"l.v < r.w", "l.v >= r.w - 3",
                                                             "l.v BETWEEN r.w - 2 AND r.w + 2",
                                                             "l.v = r.w OR l.v = -r.w"};
        const std::string join = Chance(50) ? "JOIN" : "LEFT JOIN";
        const std::string on = OneOf(kConditions);
        q.strata =
            absl::StrCat("SELECT l.v, count(r.w), min(r.w) FROM (SELECT DISTINCT a AS v FROM ",
                         table_, where_a, ") l ", join, " (SELECT DISTINCT (b % 40) AS w FROM ",
                         table_, " WHERE measure_name = 'n') r ON ", on, " GROUP BY l.v");
        q.sqlite =
            absl::StrCat("SELECT l.v, count(r.w), min(r.w) FROM (SELECT DISTINCT a AS v FROM t",
                         where_b, ") l ", join,
                         " (SELECT DISTINCT (b % 40) AS w FROM t WHERE measure_name = 'n') "
                         "r ON ",
                         on, " GROUP BY l.v");
        q.kinds = {Kind::kInt, Kind::kInt, Kind::kInt};
        return q;
      }
      case 2: {
        // Three inputs: each host's rows, its zone's count and its measure names' count.
        q.strata =
            absl::StrCat("SELECT h.host, z.n, m.n FROM (SELECT DISTINCT host, zone FROM ", table_,
                         where_a, ") h LEFT JOIN (SELECT zone, count(*) AS n FROM ", table_,
                         " GROUP BY zone) z ON h.zone = z.zone JOIN (SELECT host, count(DISTINCT "
                         "measure_name) AS n FROM ",
                         table_, " GROUP BY host) m ON m.host = h.host");
        q.sqlite = absl::StrCat(
            "SELECT h.host, z.n, m.n FROM (SELECT DISTINCT host, zone FROM t", where_b,
            ") h LEFT JOIN (SELECT zone, count(*) AS n FROM t GROUP BY zone) z ON h.zone = "
            "z.zone JOIN (SELECT host, count(DISTINCT measure_name) AS n FROM t GROUP BY host) m "
            "ON m.host = h.host");
        q.kinds = {Kind::kText, Kind::kInt, Kind::kInt};
        return q;
      }
      default: {
        // Ordered by columns not selected (a total order: time, host and measure name).
        const Expr e = Of(OneOf(kAllKinds), 1);
        Expr order = Number(1);
        // A bare integer would be an ordinal.
        if (order.strata.find_first_not_of("-0123456789") == std::string::npos) {
          order = Same("b", Kind::kInt);
        }
        const bool desc = Chance(50);
        const std::string cut = absl::StrCat(" LIMIT ", 1 + Pick(30),
                                             Chance(30) ? absl::StrCat(" OFFSET ", Pick(40)) : "");
        q.strata =
            absl::StrCat("SELECT ", e.strata, " FROM ", table_, where_a, " ORDER BY ", order.strata,
                         desc ? " DESC" : "", ", time, host, measure_name", cut);
        q.sqlite = absl::StrCat("SELECT ", e.sqlite, " FROM t", where_b, " ORDER BY ", order.sqlite,
                                desc ? " DESC" : "", " NULLS LAST, time, host, measure_name", cut);
        q.kinds = {e.kind};
        q.ordered = true;
        return q;
      }
    }
  }

  DialectPair SetOperation() {
    static const std::vector<std::string> kOperators = {"UNION", "UNION ALL", "INTERSECT",
                                                        "EXCEPT"};
    const Kind kind = OneOf(kValueKinds);
    DialectPair left = Select({Of(kind, 1)});
    AddFilter(left);
    DialectPair right = Select({Of(kind, 1)});
    AddFilter(right);
    const std::string op = OneOf(kOperators);
    left.strata += " " + op + " " + right.strata;
    left.sqlite += " " + op + " " + right.sqlite;
    if (Chance(30)) OrderAll(1, left, /*limit=*/true);  // of the whole result
    return left;
  }

  // IN, EXISTS and scalar subqueries, correlated and not. Inside a subquery a bare column is
  // the subquery's own table's.
  DialectPair Subquery() {
    const auto [inner_a, inner_b] = Filter();
    const std::string and_a = inner_a.empty() ? "" : " AND " + inner_a.substr(7);
    const std::string and_b = inner_b.empty() ? "" : " AND " + inner_b.substr(7);
    DialectPair q;
    switch (Pick(6)) {
      case 4: {
        // The first rows of an ordered derived table, aggregated.
        const Expr e = Of(OneOf(kValueKinds), 1);
        const std::string cut = absl::StrCat(" LIMIT ", 1 + Pick(60));
        q.strata = absl::StrCat("SELECT count(*), count(v), min(v), max(v) FROM (SELECT ", e.strata,
                                " AS v FROM ", table_, inner_a,
                                " ORDER BY time DESC, host, measure_name", cut, ")");
        q.sqlite = absl::StrCat("SELECT count(*), count(v), min(v), max(v) FROM (SELECT ", e.sqlite,
                                " AS v FROM t", inner_b, " ORDER BY time DESC, host, measure_name",
                                cut, ")");
        q.kinds = {Kind::kInt, Kind::kInt, e.kind, e.kind};
        break;
      }
      case 5: {
        // A CTE of groups, filtered and counted again.
        const Expr k = Key(), agg = Aggregate();
        q.strata = absl::StrCat("WITH g AS (SELECT ", k.strata, " AS k, ", agg.strata,
                                " AS v FROM ", table_, inner_a,
                                " GROUP BY 1) SELECT count(*), count(v), min(v), max(k) FROM g "
                                "WHERE k IS NOT NULL");
        q.sqlite = absl::StrCat("WITH g AS (SELECT ", k.sqlite, " AS k, ", agg.sqlite,
                                " AS v FROM t", inner_b,
                                " GROUP BY 1) SELECT count(*), count(v), min(v), max(k) FROM g "
                                "WHERE k IS NOT NULL");
        q.kinds = {Kind::kInt, Kind::kInt, agg.kind, k.kind};
        break;
      }
      case 0:
        q.strata = absl::StrCat("SELECT host, b FROM ", table_, " o WHERE b > (SELECT avg(b) FROM ",
                                table_, " i WHERE i.host = o.host", and_a, ")");
        q.sqlite = absl::StrCat(
            "SELECT host, b FROM t o WHERE b > (SELECT avg(b) FROM t i WHERE "
            "i.host = o.host",
            and_b, ")");
        q.kinds = {Kind::kText, Kind::kInt};
        break;
      case 1: {
        const std::string exists = Chance(50) ? "NOT EXISTS" : "EXISTS";
        q.strata = absl::StrCat("SELECT DISTINCT zone, s FROM ", table_, " o WHERE ", exists,
                                " (SELECT 1 FROM ", table_, " i WHERE i.s = o.s", and_a, ")");
        q.sqlite = absl::StrCat("SELECT DISTINCT zone, s FROM t o WHERE ", exists,
                                " (SELECT 1 FROM t i WHERE i.s = o.s", and_b, ")");
        q.kinds = {Kind::kText, Kind::kText};
        break;
      }
      case 2: {
        const Expr agg = Aggregate();
        q.strata = absl::StrCat("SELECT host, (SELECT ", agg.strata, " FROM ", table_,
                                " i WHERE i.host = o.host", and_a,
                                ") FROM (SELECT DISTINCT host FROM ", table_, ") o");
        q.sqlite =
            absl::StrCat("SELECT host, (SELECT ", agg.sqlite, " FROM t i WHERE i.host = o.host",
                         and_b, ") FROM (SELECT DISTINCT host FROM t) o");
        q.kinds = {Kind::kText, agg.kind};
        break;
      }
      default: {
        const Kind kind = OneOf(std::vector<Kind>{Kind::kInt, Kind::kText});
        const Expr e = Of(kind, 1), inner = Of(kind, 1);
        const bool negated = Chance(40);
        q.strata = absl::StrCat("SELECT host, minute_of_day FROM (SELECT host, ", Minute().strata,
                                " AS minute_of_day, ", e.strata, " AS e FROM ", table_, ") WHERE e",
                                negated ? " NOT" : "", " IN (SELECT ", inner.strata, " FROM ",
                                table_, inner_a, ")");
        q.sqlite = absl::StrCat("SELECT host, minute_of_day FROM (SELECT host, ", Minute().sqlite,
                                " AS minute_of_day, ", e.sqlite, " AS e FROM t) WHERE e",
                                negated ? " NOT" : "", " IN (SELECT ", inner.sqlite, " FROM t",
                                inner_b, ")");
        q.kinds = {Kind::kText, Kind::kInt};
        break;
      }
    }
    return q;
  }

  std::string table_;
};

}  // namespace strata::testing
