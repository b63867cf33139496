// Expressions generated in two dialects at once: Strata's (Timestream's Presto SQL over a
// table with a `time` TIMESTAMP) and SQLite's (the same rows in a plain table whose `time` is
// epoch milliseconds), the parts of tests/sql/two_dialect_grammar.h's statements. They keep to
// what the two define alike: no division by anything that may be zero, no integer overflow, no
// casts whose rounding differs.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace strata::testing {

// What a generated expression or result column holds; SQLite's answers are printed as Strata
// prints that type (a BOOLEAN's 1 as true, a TIMESTAMP's epoch milliseconds as its text).
enum class Kind { kInt, kDouble, kText, kBool, kTime };

// One expression in both dialects.
struct Expr {
  std::string strata, sqlite;
  Kind kind;
};

// The oracle table's first point, 2024-03-10T06:00:00Z.
inline constexpr int64_t kOracleStartMillis = 1710050400000;

// Expressions of every kind over the oracle table's columns (host, zone, measure_name, time,
// a, b, x, y, s, u, f), conditions, aggregates and keys.
class TwoDialectExpressions {
 public:
  explicit TwoDialectExpressions(uint32_t seed) : random_(seed) {}

  Expr Of(Kind kind, int depth = 0) {
    switch (kind) {
      case Kind::kInt:
        return Int(depth);
      case Kind::kDouble:
        return Double(depth);
      case Kind::kText:
        return Text(depth);
      case Kind::kBool:
        return Bool(depth);
      case Kind::kTime:
        return Time(depth);
    }
    return Int(depth);
  }

  Expr Bool(int depth = 0) {
    Expr e = BoolOf(depth);
    e.kind = Kind::kBool;
    return e;
  }

 protected:
  Expr BoolOf(int depth) {
    if (depth >= 2 || Chance(35)) return Atom(depth);
    switch (Pick(4)) {
      case 0:
        return Join2(Bool(depth + 1), " AND ", Bool(depth + 1), Kind::kBool);
      case 1:
        return Join2(Bool(depth + 1), " OR ", Bool(depth + 1), Kind::kBool);
      case 2:
        return Wrap("NOT (", Bool(depth + 1), ")");
      default:
        return Atom(depth);
    }
  }

  size_t Pick(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(random_); }
  bool Chance(int percent) { return static_cast<int>(Pick(100)) < percent; }
  template <typename T>
  const T& OneOf(const std::vector<T>& options) {
    return options[Pick(options.size())];
  }
  static Expr Same(const std::string& text, Kind kind) { return {text, text, kind}; }
  static Expr Join2(const Expr& a, const std::string& op, const Expr& b, Kind kind) {
    return {absl::StrCat("(", a.strata, op, b.strata, ")"),
            absl::StrCat("(", a.sqlite, op, b.sqlite, ")"), kind};
  }
  static Expr Wrap(const std::string& before, const Expr& e, const std::string& after) {
    return {before + e.strata + after, before + e.sqlite + after, e.kind};
  }
  static Expr Call(const std::string& name, const std::vector<Expr>& args, Kind kind,
                   const std::string& sqlite_name = "") {
    std::vector<std::string> a, b;
    for (const Expr& e : args) {
      a.push_back(e.strata);
      b.push_back(e.sqlite);
    }
    return {
        absl::StrCat(name, "(", absl::StrJoin(a, ", "), ")"),
        absl::StrCat(sqlite_name.empty() ? name : sqlite_name, "(", absl::StrJoin(b, ", "), ")"),
        kind};
  }

  // Minutes since the first point: the time as an integer both sides compute alike.
  static Expr Minute() {
    return {absl::StrCat("((to_milliseconds(time) - ", kOracleStartMillis, ") / 60000)"),
            absl::StrCat("((time - ", kOracleStartMillis, ") / 60000)"), Kind::kInt};
  }

  // A TIMESTAMP: the time, moved, truncated or binned (SQLite computes its milliseconds).
  Expr Time(int depth) {
    if (depth >= 2 || Chance(50)) {
      static const std::vector<std::pair<std::string, std::string>> kTimes = {
          {"time", "time"},
          {"bin(time, 15m)", "(time / 900000 * 900000)"},
          {"date_trunc('hour', time)", "(time / 3600000 * 3600000)"},
          {"date_add('minute', 5, time)", "(time + 300000)"},
          {"(time - 90s)", "(time - 90000)"},
          {"TIMESTAMP '2024-03-10 07:30:00'", "1710055800000"},
      };
      const auto& [strata, sqlite] = OneOf(kTimes);
      return {strata, sqlite, Kind::kTime};
    }
    switch (Pick(3)) {
      case 0:
        return Case(Kind::kTime, depth);
      case 1:
        return Call("coalesce", {Time(depth + 1), Time(depth + 1)}, Kind::kTime);
      default:
        return Call("greatest", {Time(depth + 1), Time(depth + 1)}, Kind::kTime, "max");
    }
  }

  // A part of the time as a small integer (minutes or seconds from the first point: products
  // of two stay far from overflow), through Strata's date and time functions.
  Expr TimePart() {
    static const std::vector<std::pair<std::string, std::string>> kParts = {
        {"minute(time)", "((time / 60000) % 60)"},
        {"hour(time)", "((time / 3600000) % 24)"},
        {"date_diff('minute', TIMESTAMP '2024-03-10 06:00:00', time)",
         "((time - 1710050400000) / 60000)"},
        {"((to_milliseconds(date_add('minute', 5, time)) - 1710050400000) / 60000)",
         "((time + 300000 - 1710050400000) / 60000)"},
        {"((to_milliseconds(time - 90s) - 1710050400000) / 1000)",
         "((time - 90000 - 1710050400000) / 1000)"},
        {"((to_milliseconds(date_trunc('hour', time)) - 1710050400000) / 60000)",
         "((time / 3600000 * 3600000 - 1710050400000) / 60000)"},
        {"((to_milliseconds(bin(time, 10m)) - 1710050400000) / 60000)",
         "((time / 600000 * 600000 - 1710050400000) / 60000)"},
        {"second(time)", "((time / 1000) % 60)"},
    };
    const auto& [strata, sqlite] = OneOf(kParts);
    return {strata, sqlite, Kind::kInt};
  }

  Expr Int(int depth) {
    if (depth >= 2 || Chance(40)) {
      switch (Pick(6)) {
        case 0:
          return Same("a", Kind::kInt);
        case 1:
          return Same("b", Kind::kInt);
        case 2:
          return Minute();
        case 5:
          return TimePart();
        case 3:
          return Same(std::to_string(static_cast<int>(Pick(40)) - 8), Kind::kInt);
        default:
          return Call("length", {Text(depth + 1)}, Kind::kInt);
      }
    }
    switch (Pick(10)) {
      case 0:
        return Join2(Int(depth + 1), " + ", Int(depth + 1), Kind::kInt);
      case 1:
        return Join2(Int(depth + 1), " - ", Int(depth + 1), Kind::kInt);
      case 2:
        return Join2(Int(depth + 1), " * ", Int(depth + 1), Kind::kInt);
      case 3:
        return Join2(Int(depth + 1), " / ", Same(OneOf(kDivisors), Kind::kInt), Kind::kInt);
      case 4:
        return Join2(Int(depth + 1), " % ", Same(OneOf(kDivisors), Kind::kInt), Kind::kInt);
      case 5:
        return Call("abs", {Int(depth + 1)}, Kind::kInt);
      case 6:
        return Case(Kind::kInt, depth);
      case 7:
        return Call("coalesce", {Int(depth + 1), Int(depth + 1)}, Kind::kInt);
      case 8:
        switch (Pick(4)) {
          case 0:
            return Call("nullif", {Int(depth + 1), Int(depth + 1)}, Kind::kInt);
          case 1: {
            const Expr e = Int(depth + 1), d = Same(OneOf(kDivisors), Kind::kInt);
            return {absl::StrCat("mod(", e.strata, ", ", d.strata, ")"),
                    absl::StrCat("(", e.sqlite, " % ", d.sqlite, ")"), Kind::kInt};
          }
          case 2:
            return Call("strpos", {Text(depth + 1), Same("'p'", Kind::kText)}, Kind::kInt, "instr");
          default:
            return Call("sign", {Int(depth + 1)}, Kind::kInt);
        }
      default:
        // Presto's greatest and SQLite's max of several arguments: NULL if any is.
        if (Chance(50))
          return Call("greatest", {Int(depth + 1), Int(depth + 1)}, Kind::kInt, "max");
        return Call("least", {Int(depth + 1), Int(depth + 1)}, Kind::kInt, "min");
    }
  }

  Expr Double(int depth) {
    if (depth >= 2 || Chance(40)) {
      switch (Pick(4)) {
        case 0:
          return Same("x", Kind::kDouble);
        case 1:
          return Same("y", Kind::kDouble);
        case 2:
          return Same(OneOf(std::vector<std::string>{"2.5", "-0.75", "10.0", "0.01"}),
                      Kind::kDouble);
        default: {
          const Expr i = Int(depth + 1);
          return {"CAST(" + i.strata + " AS double)", "CAST(" + i.sqlite + " AS REAL)",
                  Kind::kDouble};
        }
      }
    }
    switch (Pick(9)) {
      case 0:
        return Join2(Double(depth + 1), " + ", Double(depth + 1), Kind::kDouble);
      case 1:
        return Join2(Double(depth + 1), " - ", Int(depth + 1), Kind::kDouble);
      case 2:
        return Join2(Double(depth + 1), " * ", Double(depth + 1), Kind::kDouble);
      case 3:
        return Join2(Double(depth + 1), " / ", Same(OneOf(kDoubleDivisors), Kind::kDouble),
                     Kind::kDouble);
      case 4:
        return Call("abs", {Double(depth + 1)}, Kind::kDouble);
      case 5:
        return Case(Kind::kDouble, depth);
      case 6:
        return Call("coalesce", {Double(depth + 1), Double(depth + 1)}, Kind::kDouble);
      case 7:
        switch (Pick(5)) {
          case 0:
            return Call(Chance(50) ? "floor" : "ceil", {Double(depth + 1)}, Kind::kDouble);
          case 1:
            return Call("sqrt", {Call("abs", {Double(depth + 1)}, Kind::kDouble)}, Kind::kDouble);
          case 2:
            return Call("power", {Double(depth + 1), Same("2", Kind::kInt)}, Kind::kDouble, "pow");
          case 3:
            return Call("sign", {Double(depth + 1)}, Kind::kDouble);
          default:
            return Call("ln", {Wrap("(abs(", Double(depth + 1), ") + 1)")}, Kind::kDouble);
        }
      default:
        return Wrap("-(", Double(depth + 1), ")");
    }
  }

  Expr Text(int depth) {
    if (depth >= 2 || Chance(45)) {
      switch (Pick(6)) {
        case 0:
          return Same("host", Kind::kText);
        case 1:
          return Same("zone", Kind::kText);
        case 2:
          return Same("measure_name", Kind::kText);
        case 3:
          return Same("s", Kind::kText);
        case 4:
          // Text beyond ASCII counts characters, not bytes, in both; but only Strata
          // upper-cases it (SQLite's upper() knows ASCII only).
          return Same(ascii_only_ ? "s" : "u", Kind::kText);
        default:
          if (!ascii_only_ && Chance(30)) {
            return Same(OneOf(std::vector<std::string>{"'café'", "'日本'"}), Kind::kText);
          }
          return Same(OneOf(std::vector<std::string>{"'apple'", "'Apple'", "'b_n%x'", "'z1'"}),
                      Kind::kText);
      }
    }
    switch (Pick(9)) {
      case 7: {
        // A member of a JSON text made around two texts (none has a quote or a backslash):
        // Presto's json_extract_scalar and SQLite's json_extract unescape strings alike.
        const Expr k = Text(depth + 1), l = Text(depth + 1);
        const std::string path = OneOf(std::vector<std::string>{"'$.k'", "'$.l[0]'", "'$.z'"});
        return {absl::StrCat("json_extract_scalar('{\"k\": \"' || ", k.strata,
                             " || '\", \"l\": [\"' || ", l.strata, " || '\", 7]}', ", path, ")"),
                absl::StrCat("json_extract('{\"k\": \"' || ", k.sqlite, " || '\", \"l\": [\"' || ",
                             l.sqlite, " || '\", 7]}', ", path, ")"),
                Kind::kText};
      }
      case 0: {
        const bool outer = ascii_only_;
        ascii_only_ = true;
        const Expr e = Text(depth + 1);
        ascii_only_ = outer;
        return Call(Chance(50) ? "upper" : "lower", {e}, Kind::kText);
      }
      case 1:
        return Call("substr", {Text(depth + 1), Same(OneOf(kStarts), Kind::kInt)}, Kind::kText);
      case 2:
        return Call("substr",
                    {Text(depth + 1), Same(OneOf(kStarts), Kind::kInt),
                     Same(std::to_string(Pick(4)), Kind::kInt)},
                    Kind::kText);
      case 3:
        return Join2(Text(depth + 1), " || ", Text(depth + 1), Kind::kText);
      case 4:
        return Call("replace",
                    {Text(depth + 1), Same("'p'", Kind::kText), Same("'P'", Kind::kText)},
                    Kind::kText);
      case 5:
        return Call("coalesce", {Text(depth + 1), Text(depth + 1)}, Kind::kText);
      case 6: {
        if (Chance(50)) return Case(Kind::kText, depth);
        // The simple CASE: its operand compared with each WHEN (a NULL operand matches none).
        const Expr operand = Int(depth + 1), then = Text(depth + 1), otherwise = Text(depth + 1);
        return {absl::StrCat("CASE ", operand.strata, " WHEN 1 THEN ", then.strata,
                             " WHEN 2 THEN 'two' ELSE ", otherwise.strata, " END"),
                absl::StrCat("CASE ", operand.sqlite, " WHEN 1 THEN ", then.sqlite,
                             " WHEN 2 THEN 'two' ELSE ", otherwise.sqlite, " END"),
                Kind::kText};
      }
      default:
        return Call(OneOf(std::vector<std::string>{"trim", "ltrim", "rtrim"}),
                    {Wrap("(' ' || ", Text(depth + 1), " || ' ')")}, Kind::kText);
    }
  }

  Expr Case(Kind kind, int depth) {
    Expr c = Bool(depth + 1), then = Of(kind, depth + 1), otherwise = Of(kind, depth + 1);
    if (Chance(30)) {
      return {absl::StrCat("CASE WHEN ", c.strata, " THEN ", then.strata, " END"),
              absl::StrCat("CASE WHEN ", c.sqlite, " THEN ", then.sqlite, " END"), kind};
    }
    return {absl::StrCat("CASE WHEN ", c.strata, " THEN ", then.strata, " ELSE ", otherwise.strata,
                         " END"),
            absl::StrCat("CASE WHEN ", c.sqlite, " THEN ", then.sqlite, " ELSE ", otherwise.sqlite,
                         " END"),
            kind};
  }

  Expr Number(int depth) { return Chance(50) ? Int(depth) : Double(depth); }

  Expr Atom(int depth) {
    static const std::vector<std::string> kComparisons = {" = ",  " <> ", " < ",
                                                          " <= ", " > ",  " >= "};
    switch (Pick(12)) {
      case 11:
        return Join2(Time(depth + 1), OneOf(kComparisons), Time(depth + 1), Kind::kBool);
      case 0:
      case 1:
        return Join2(Number(depth + 1), OneOf(kComparisons), Number(depth + 1), Kind::kBool);
      case 2:
        return Join2(Text(depth + 1), OneOf(kComparisons), Text(depth + 1), Kind::kBool);
      case 3: {
        const Kind kind = OneOf(std::vector<Kind>{Kind::kInt, Kind::kDouble, Kind::kText});
        return Wrap("(", Of(kind, depth + 1), Chance(50) ? " IS NULL)" : " IS NOT NULL)");
      }
      case 4: {
        const Expr e = Number(depth + 1);
        const int lo = static_cast<int>(Pick(60)) - 20;
        const std::string range =
            absl::StrCat(" BETWEEN ", lo, " AND ", lo + static_cast<int>(Pick(40)));
        return Wrap("(", e, (Chance(25) ? " NOT" : "") + range + ")");
      }
      case 5: {
        const Expr e = Int(depth + 1);
        const std::string list = Chance(20) ? "(1, 2, NULL)" : "(0, 1, 2, 3, 5, 8, 13)";
        return Wrap("(", e, (Chance(30) ? " NOT IN " : " IN ") + list + ")");
      }
      case 6: {
        const Expr e = Text(depth + 1);
        return Wrap(
            "(", e,
            Chance(30) ? " NOT IN ('apple', 'h1', 'z0'))" : " IN ('apple', 'h1', 'z0', 'm'))");
      }
      case 7: {
        static const std::vector<std::string> kPatterns = {"'a%'",  "'%an%'", "'_pple'", "'A%'",
                                                           "'%_%'", "'h1%'",  "'%e'",    "'caf_'",
                                                           "'%ï%'", "'__'"};
        return Wrap("(", Text(depth + 1),
                    (Chance(25) ? " NOT LIKE " : " LIKE ") + OneOf(kPatterns) + ")");
      }
      case 8:
        return Same(Chance(70) ? "f" : "(f IS NULL)", Kind::kBool);
      case 9: {
        // Presto's IS DISTINCT FROM is SQLite's IS NOT.
        const Kind kind = OneOf(std::vector<Kind>{Kind::kInt, Kind::kText});
        const Expr a = Of(kind, depth + 1), b = Of(kind, depth + 1);
        const bool distinct = Chance(50);
        return {
            absl::StrCat("(", a.strata, distinct ? " IS DISTINCT FROM " : " IS NOT DISTINCT FROM ",
                         b.strata, ")"),
            absl::StrCat("(", a.sqlite, distinct ? " IS NOT " : " IS ", b.sqlite, ")"),
            Kind::kBool};
      }
      default: {
        const std::vector<std::pair<std::string, std::string>> kTimes = {
            {"time >= TIMESTAMP '2024-03-10 07:00:00'", "time >= 1710054000000"},
            {"time < TIMESTAMP '2024-03-10 06:45:00'", "time < 1710053100000"},
            {"time BETWEEN TIMESTAMP '2024-03-10 06:30:00' AND TIMESTAMP '2024-03-10 08:10:00'",
             "time BETWEEN 1710052200000 AND 1710058200000"},
            {"hour(time) = 8", "(time / 3600000) % 24 = 8"},
        };
        const auto& [strata, sqlite] = OneOf(kTimes);
        return {strata, sqlite, Kind::kBool};
      }
    }
  }

  // An aggregate over the table's rows: its two texts and its result's kind.
  Expr Aggregate() {
    switch (Pick(13)) {
      case 0:
        return Same("count(*)", Kind::kInt);
      case 1:
        return Call("count", {Of(OneOf(kValueKinds), 1)}, Kind::kInt);
      case 2:
        return Call("sum", {Int(1)}, Kind::kInt);
      case 3:
        return Call("sum", {Double(1)}, Kind::kDouble);
      case 4:
        return Call("avg", {Number(1)}, Kind::kDouble);
      case 5:
      case 6: {
        const Expr e = Of(OneOf(kValueKinds), 1);
        return Call(Chance(50) ? "min" : "max", {e}, e.kind);
      }
      case 7: {
        const Expr e = Of(OneOf(kValueKinds), 2);
        return {absl::StrCat("count(DISTINCT ", e.strata, ")"),
                absl::StrCat("count(DISTINCT ", e.sqlite, ")"), Kind::kInt};
      }
      case 8: {
        const Expr p = Bool(1);
        return {absl::StrCat("count_if(", p.strata, ")"),
                absl::StrCat("count(CASE WHEN ", p.sqlite, " THEN 1 END)"), Kind::kInt};
      }
      case 9: {
        const Expr e = Int(1), p = Bool(1);
        return {absl::StrCat("sum(", e.strata, ") FILTER (WHERE ", p.strata, ")"),
                absl::StrCat("sum(", e.sqlite, ") FILTER (WHERE ", p.sqlite, ")"), Kind::kInt};
      }
      case 10: {
        // bool_and and bool_or are min and max of SQLite's 0 and 1 (NULLs ignored alike).
        const bool all = Chance(50);
        return {all ? "bool_and(f)" : "bool_or(f)", all ? "min(f)" : "max(f)", Kind::kBool};
      }
      case 11: {
        const Expr e = Int(2);
        return {absl::StrCat("sum(DISTINCT ", e.strata, ")"),
                absl::StrCat("sum(DISTINCT ", e.sqlite, ")"), Kind::kInt};
      }
      default: {
        const Expr e = Number(1);
        return Wrap("(", Call(Chance(50) ? "max" : "min", {e}, e.kind), " - 1)");
      }
    }
  }

  // A key to group or partition by.
  Expr Key() {
    switch (Pick(7)) {
      case 0:
        return Same("host", Kind::kText);
      case 1:
        return Same("zone", Kind::kText);
      case 2:
        return Same("s", Kind::kText);
      case 3:
        return Chance(50)
                   ? Expr{"to_milliseconds(bin(time, 15m))", "(time / 900000 * 900000)", Kind::kInt}
                   : TimePart();
      case 4:
        return Same("a", Kind::kInt);
      case 5:
        return Same("f", Kind::kBool);
      default: {
        // Not a bare integer: SQLite reads the item GROUP BY 1 names as an ordinal again.
        const Expr e = Of(OneOf(kValueKinds), 1);
        if (e.strata.find_first_not_of("-0123456789") == std::string::npos) {
          return Same("a", Kind::kInt);
        }
        return e;
      }
    }
  }

  // " WHERE p" in both dialects, or nothing.
  std::pair<std::string, std::string> Filter() {
    if (Chance(25)) return {"", ""};
    const Expr p = Bool();
    return {" WHERE " + p.strata, " WHERE " + p.sqlite};
  }

  inline static const std::vector<std::string> kDivisors = {"1", "2", "3", "7", "-4"};
  inline static const std::vector<std::string> kDoubleDivisors = {"2.0", "0.5", "-4.0", "3.0"};
  // Not -2 and below: a start before the text's beginning is '' in Presto, the text in SQLite.
  inline static const std::vector<std::string> kStarts = {"1", "2", "-1", "3"};
  inline static const std::vector<Kind> kValueKinds = {Kind::kInt, Kind::kDouble, Kind::kText,
                                                       Kind::kTime};
  inline static const std::vector<Kind> kAllKinds = {Kind::kInt, Kind::kDouble, Kind::kText,
                                                     Kind::kBool, Kind::kTime};

  std::mt19937 random_;
  bool ascii_only_ = false;  // while generating the argument of upper() or lower()
};

}  // namespace strata::testing
