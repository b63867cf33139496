// Arrays and rows (Presto semantics): constructors, subscripts and the array
// functions of Timestream's reference, and the array_agg aggregate.
#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "common/status.h"
#include "common/strings.h"
#include "query/functions/function_families.h"

namespace strata::query {
namespace {

using Types = std::vector<DataType>;
using Args = std::vector<Datum>;

Datum ArrayOfValues(DataType type, std::vector<Datum> values) {
  return Datum::Composite(type, std::move(values));
}

// The binder of f(array(T), ...) -> result(T): checks the first argument is
// an array and the rest with `rest`.
template <typename Result>
auto OnArray(std::string signature, size_t min_args, size_t max_args, Result result) {
  return [=](const Types& t) -> absl::StatusOr<DataType> {
    if (t.size() < min_args || t.size() > max_args || !IsArrayOrNull(t[0])) {
      return WrongArguments(signature);
    }
    return result(t);
  };
}

// The binder of f(array, i) (by `array`) or f(map, key): a map's value type
// for a key of its key type.
template <typename Array>
auto OnArrayOrMap(std::string signature, Array array) {
  return [=](const Types& t) -> absl::StatusOr<DataType> {
    if (t.size() == 2 && KindOf(t[0]) == TypeKind::kMap) {
      if (!MapKeyFits(t[0], t[1])) {
        return absl::InvalidArgumentError(StrCat("the map's keys are ", TypeName(MapKeyType(t[0])),
                                                 ", not ", TypeName(t[1])));
      }
      return ElementType(t[0]);
    }
    return OnArray(signature, 2, 2, array)(t);
  };
}

// 1-based index `i` (negative: from the end) into `n` values, or -1.
int64_t Position(int64_t i, size_t n) {
  const auto size = static_cast<int64_t>(n);
  if (i > 0) return i <= size ? i - 1 : -1;
  return -i <= size ? size + i : -1;
}

class ArrayAggAcc : public Accumulator {
 public:
  explicit ArrayAggAcc(DataType type) : type_(type) {}
  void Add(const Args& a) override {
    if (values_.size() == kMaxNestedValues) {
      overflow_ = true;
      return;
    }
    values_.push_back(a[0]);
    Kept(static_cast<int64_t>(sizeof(Datum)) + a[0].HeapBytes());
  }
  absl::StatusOr<Datum> Finish() override {
    if (overflow_) {
      return absl::ResourceExhaustedError(StrCat(
          "array_agg(): a group has more than ", kMaxNestedValues,
          " values, the most one array holds; group by more columns or a narrower time range"));
    }
    // No rows: NULL, as Presto's (and Timestream's) aggregates other than count answer.
    if (values_.empty()) return Datum::Null(type_);
    return ArrayOfValues(type_, values_);  // a copy: more rows may come (Finish)
  }

 private:
  DataType type_;
  std::vector<Datum> values_;
  bool overflow_ = false;
};

}  // namespace

void AddArrayFunctions(std::vector<ScalarFunction>* scalars,
                       std::vector<AggregateFunction>* aggregates) {
  auto add = [scalars](ScalarFunction f) { scalars->push_back(std::move(f)); };
  static constexpr DataType kBig = DataType::kBigint, kStr = DataType::kVarchar,
                            kBool = DataType::kBoolean;

  add({"array", "ARRAY[x, ...] -> array(type of x)",
       "An array of the values (NULLs included): ARRAY[1, 2, 3].",
       [](const Types& t) -> absl::StatusOr<DataType> {
         DataType element = DataType::kUnknown;
         if (!t.empty()) {
           ASSIGN_OR_RETURN(element, CommonElementType(t, "ARRAY[values of one type]"));
         }
         return Interned(ArrayOf(element));
       },
       nullptr, false});
  scalars->back().eval_typed = [](const Args& a, DataType type, const EvalContext& c) {
    // Each element is a copy: ARRAY[t, t, ...] of a long text t holds it that many times.
    ArrayBytes bytes("ARRAY[...]", c);
    for (const Datum& v : a) {
      if (!bytes.Add(v)) return Datum::Null(type);
    }
    c.Charge(static_cast<size_t>(bytes.bytes()));
    std::vector<Datum> values;
    values.reserve(a.size());
    for (const Datum& v : a) values.push_back(CoerceTo(v, ElementType(type)));
    return ArrayOfValues(type, std::move(values));
  };
  // Not can_fail, though past the limit it fails the query: ARRAY[...] of literals or
  // dimensions (a few KiB) never reaches it, and can_fail would take a condition such as
  // contains(ARRAY['a', 'b'], host) out of the series the scan selects (planner.cc).

  add({"subscript", "array[i] | map[key] -> type of element",
       "The i-th element (from 1), or the key's value; an index outside the array or a key "
       "not in the map fails the query.",
       OnArrayOrMap("array[bigint] | map[key]", [](const Types& t) -> absl::StatusOr<DataType> {
         if (t[1] != kBig && t[1] != DataType::kUnknown) return WrongArguments("array[bigint]");
         return ElementType(t[0]);
       }),
       [](const Args& a, const EvalContext& c) {
         if (KindOf(a[0].type) == TypeKind::kMap) {
           const Datum* value = FindMapValue(a[0], a[1]);
           if (value) return *value;
           return FailQuery(c, StrCat("Key not present in map: ", a[1].ToString(),
                                      " (element_at gives NULL instead)"),
                            ElementType(a[0].type));
         }
         const std::vector<Datum>& v = a[0].items();
         if (a[1].i < 1 || a[1].i > static_cast<int64_t>(v.size())) {
           return FailQuery(c, StrCat("Array subscript ", a[1].i, " is out of bounds: the array has ",
                                 v.size(), " elements (indexes start at 1; element_at gives "
                                           "NULL instead)"),
                       ElementType(a[0].type));
         }
         return v[a[1].i - 1];
       }});
  scalars->back().can_fail = true;

  add({"element_at", "element_at(array, i) | element_at(map, key) -> type of element",
       "The i-th element (from 1; negative counts from the end), NULL outside the array; or "
       "the key's value, NULL for a key not in the map.",
       OnArrayOrMap("element_at(array, bigint) | element_at(map, key)",
                    [](const Types& t) -> absl::StatusOr<DataType> {
                      if (t[1] != kBig && t[1] != DataType::kUnknown) {
                        return WrongArguments("element_at(array, bigint)");
                      }
                      return ElementType(t[0]);
                    }),
       [](const Args& a, const EvalContext& c) {
         if (KindOf(a[0].type) == TypeKind::kMap) {
           const Datum* value = FindMapValue(a[0], a[1]);
           return value ? *value : Datum::Null(ElementType(a[0].type));
         }
         if (a[1].i == 0) {
           return FailQuery(c, "element_at(): SQL array indices start at 1", ElementType(a[0].type));
         }
         const std::vector<Datum>& v = a[0].items();
         const int64_t p = Position(a[1].i, v.size());
         return p < 0 ? Datum::Null(ElementType(a[0].type)) : v[p];
       }});
  scalars->back().can_fail = true;

  // array_upper is array_length for arrays whose first index is 1, as Strata's all are.
  for (const std::string name : {"array_length", "array_upper", "array_lower"}) {
    const bool lower = name == "array_lower";
    add({name, StrCat(name, "(array, dimension) -> bigint"),
         lower ? "PostgreSQL's: the first index along the dimension, 1, or NULL for an empty "
                 "array or a dimension it lacks."
               : StrCat("PostgreSQL's: the ",
                        name == "array_upper" ? "last index" : "number of elements",
                        " along the dimension, NULL for an empty array or a dimension it lacks "
                        "(Strata's arrays have one; cardinality counts an empty one 0)."),
         [name](const Types& t) -> absl::StatusOr<DataType> {
           if (t.size() != 2 || !IsArrayOrNull(t[0]) || !Accepts(Param::kBigint, t[1])) {
             return WrongArguments(StrCat(name, "(array, bigint)"));
           }
           return kBig;
         },
         [lower](const Args& a, const EvalContext&) {
           const size_t n = a[0].items().size();
           if (n == 0 || a[1].i != 1) return Datum::Null(kBig);
           return Datum::Bigint(lower ? 1 : static_cast<int64_t>(n));
         }});
  }
  add({"cardinality", "cardinality(array | map | timeseries) -> bigint",
       "The number of elements of an array, entries of a map, or points of a time series.",
       [](const Types& t) -> absl::StatusOr<DataType> {
         if (t.size() != 1 || !(IsArrayOrNull(t[0]) || KindOf(t[0]) == TypeKind::kTimeseries ||
                                KindOf(t[0]) == TypeKind::kMap)) {
           return WrongArguments("cardinality(array | map | timeseries)");
         }
         return kBig;
       },
       [](const Args& a, const EvalContext&) {
         return Datum::Bigint(static_cast<int64_t>(a[0].items().size()));
       }});

  add({"contains", "contains(array, x) -> boolean",
       "True if the array holds x; NULL if it does not but holds a NULL.",
       OnArray("contains(array, x)", 2, 2, [](const Types&) -> absl::StatusOr<DataType> {
         return kBool;
       }),
       [](const Args& a, const EvalContext&) {
         bool saw_null = false;
         for (const Datum& e : a[0].items()) {
           if (e.null) {
             saw_null = true;
           } else if (Compare(e, a[1]) == 0) {
             return Datum::Bool(true);
           }
         }
         return saw_null ? Datum::Null(kBool) : Datum::Bool(false);
       }});

  add({"array_position", "array_position(array, x) -> bigint",
       "The position (from 1) of x's first occurrence in the array, 0 if absent.",
       OnArray("array_position(array, x)", 2, 2, [](const Types&) -> absl::StatusOr<DataType> {
         return kBig;
       }),
       [](const Args& a, const EvalContext&) {
         const std::vector<Datum>& v = a[0].items();
         for (size_t i = 0; i < v.size(); ++i) {
           if (!v[i].null && Compare(v[i], a[1]) == 0) return Datum::Bigint(static_cast<int64_t>(i) + 1);
         }
         return Datum::Bigint(0);
       }});

  add({"array_positions", "array_positions(array, x) -> array(bigint)",
       "The positions (from 1) of every occurrence of x in the array (PostgreSQL's): "
       "array_positions(ARRAY[1, 2, 1], 1) is [1, 3]; a NULL x finds the NULLs.",
       OnArray("array_positions(array, x)", 2, 2,
               [](const Types&) -> absl::StatusOr<DataType> { return Interned(ArrayOf(kBig)); }),
       [](const Args& a, const EvalContext&) {
         if (a[0].null) return Datum::Null(*ArrayOf(kBig));
         std::vector<Datum> positions;
         const std::vector<Datum>& v = a[0].items();
         for (size_t i = 0; i < v.size(); ++i) {
           const bool same = a[1].null ? v[i].null : !v[i].null && Compare(v[i], a[1]) == 0;
           if (same) positions.push_back(Datum::Bigint(static_cast<int64_t>(i) + 1));
         }
         return Datum::Composite(*ArrayOf(kBig), std::move(positions));
       }});
  scalars->back().null_propagating = false;
  // array_to_string is PostgreSQL's name.
  for (const std::string name : {"array_join", "array_to_string"}) {
    const std::string usage = StrCat(name, "(array, varchar [, varchar])");
    add({name, StrCat(name, "(array, delimiter [, null_replacement]) -> varchar"),
         "The elements as text joined by the delimiter; NULLs are left out unless replaced.",
         OnArray(usage, 2, 3,
                 [usage](const Types& t) -> absl::StatusOr<DataType> {
                   for (size_t i = 1; i < t.size(); ++i) {
                     if (t[i] != kStr && t[i] != DataType::kUnknown) return WrongArguments(usage);
                   }
                   return kStr;
                 }),
         [name](const Args& a, const EvalContext& c) {
           std::string out;
           bool first = true;
           for (const Datum& e : a[0].items()) {
             if (e.null && a.size() < 3) continue;
             if (!first) out += a[1].s;
             out += e.null ? a[2].s : e.ToString();
             first = false;
             if (out.size() > kMaxTextBytes) {
               return FailQuery(c, TextTooLongMessage(StrCat(name, "()")), DataType::kVarchar);
             }
           }
           return Datum::Varchar(std::move(out));
         }});
    scalars->back().can_fail = true;
  }

  add({"array_sort", "array_sort(array) -> array",
       "The elements in ascending order, NULLs last.",
       OnArray("array_sort(array)", 1, 1, [](const Types& t) -> absl::StatusOr<DataType> {
         return t[0];
       }),
       [](const Args& a, const EvalContext&) {
         std::vector<Datum> v = a[0].items();
         std::stable_sort(v.begin(), v.end(),
                          [](const Datum& x, const Datum& y) { return Compare(x, y) < 0; });
         return ArrayOfValues(a[0].type, std::move(v));
       }});

  add({"array_distinct", "array_distinct(array) -> array",
       "The elements without repeats, in order of first occurrence.",
       OnArray("array_distinct(array)", 1, 1, [](const Types& t) -> absl::StatusOr<DataType> {
         return t[0];
       }),
       [](const Args& a, const EvalContext&) {
         std::vector<Datum> out;
         absl::flat_hash_set<std::string> seen;
         for (const Datum& e : a[0].items()) {
           std::string key;
           AppendKey(e, &key);
           if (seen.insert(std::move(key)).second) out.push_back(e);
         }
         return ArrayOfValues(a[0].type, std::move(out));
       }});

  for (auto [name, max] : {std::pair{"array_max", true}, std::pair{"array_min", false}}) {
    add({name, StrCat(name, "(array) -> type of element"),
         StrCat("The ", max ? "largest" : "smallest",
                " element; NULL for an empty array or one holding a NULL."),
         OnArray(StrCat(name, "(array)"), 1, 1, [](const Types& t) -> absl::StatusOr<DataType> {
           return ElementType(t[0]);
         }),
         [m = max](const Args& a, const EvalContext&) {
           const DataType type = ElementType(a[0].type);
           const std::vector<Datum>& v = a[0].items();
           Datum best = Datum::Null(type);
           for (const Datum& e : v) {
             if (e.null) return Datum::Null(type);
             if (best.null || (m ? Compare(e, best) > 0 : Compare(e, best) < 0)) best = e;
           }
           return best;
         }});
  }

  add({"slice", "slice(array, start, length) -> array",
       "length elements from position start (from 1; negative counts from the end).",
       OnArray("slice(array, bigint, bigint)", 3, 3, [](const Types& t) -> absl::StatusOr<DataType> {
         for (size_t i = 1; i < 3; ++i) {
           if (t[i] != kBig && t[i] != DataType::kUnknown) {
             return WrongArguments("slice(array, bigint, bigint)");
           }
         }
         return t[0];
       }),
       [](const Args& a, const EvalContext& c) {
         if (a[1].i == 0) return FailQuery(c, "slice(): SQL array indices start at 1", a[0].type);
         if (a[2].i < 0) return FailQuery(c, "slice(): the length must not be negative", a[0].type);
         const std::vector<Datum>& v = a[0].items();
         const int64_t start = Position(a[1].i, v.size());
         std::vector<Datum> out;
         if (start >= 0) {
           const int64_t available = static_cast<int64_t>(v.size()) - start;
           const int64_t length = std::min(a[2].i, available);
           out.assign(v.begin() + start, v.begin() + start + length);
         }
         return ArrayOfValues(a[0].type, std::move(out));
       }});
  scalars->back().can_fail = true;

  add({"array_slice", "array_slice(array, lower, upper) -> array",
       "The elements from position lower to upper, both included (from 1; the bounds kept "
       "within the array): PostgreSQL's a[lower:upper], a[:upper] and a[lower:].",
       OnArray("array_slice(array, bigint, bigint)", 3, 3,
               [](const Types& t) -> absl::StatusOr<DataType> {
                 for (size_t i = 1; i < 3; ++i) {
                   if (t[i] != kBig && t[i] != DataType::kUnknown) {
                     return WrongArguments("array_slice(array, bigint, bigint)");
                   }
                 }
                 return t[0];
               }),
       [](const Args& a, const EvalContext&) {
         const std::vector<Datum>& v = a[0].items();
         const int64_t size = static_cast<int64_t>(v.size());
         const int64_t first = std::max<int64_t>(a[1].i, 1), last = std::min(a[2].i, size);
         std::vector<Datum> out;
         if (first <= last) out.assign(v.begin() + (first - 1), v.begin() + last);
         return ArrayOfValues(a[0].type, std::move(out));
       }});

  add({"flatten", "flatten(array(array)) -> array",
       "The elements of the inner arrays, one after another.",
       [](const Types& t) -> absl::StatusOr<DataType> {
         if (t.size() != 1 || !IsArrayOrNull(t[0]) || !IsArrayOrNull(ElementType(t[0]))) {
           return WrongArguments("flatten(array(array))");
         }
         const DataType inner = ElementType(t[0]);
         return inner == DataType::kUnknown ? Interned(ArrayOf(DataType::kUnknown)) : inner;
       },
       [](const Args& a, const EvalContext& c) {
         std::vector<Datum> out;
         const DataType type = ElementType(a[0].type);
         for (const Datum& inner : a[0].items()) {
           const std::vector<Datum>& v = inner.items();
           if (out.size() + v.size() > kMaxNestedValues) {
             return FailQuery(c, StrCat("flatten(): more than ", kMaxNestedValues,
                                   " elements, the most one array holds"), type);
           }
           out.insert(out.end(), v.begin(), v.end());
         }
         return ArrayOfValues(type, std::move(out));
       }});
  scalars->back().can_fail = true;

  add({"zip", "zip(array, array, ...) -> array(row)",
       "Rows of the arrays' i-th elements, as long as the longest array (NULL where one is "
       "shorter).",
       [](const Types& t) -> absl::StatusOr<DataType> {
         if (t.size() < 2 || t.size() > 5) return WrongArguments("zip(array, array [, ...]), 2 to 5 arrays");
         std::vector<RowField> fields;
         for (DataType a : t) {
           if (!IsArrayOrNull(a)) return WrongArguments("zip(array, array [, ...])");
           fields.push_back({.name = StrCat("field", fields.size()), .type = ElementType(a)});
         }
         ASSIGN_OR_RETURN(DataType row, Interned(RowOf(std::move(fields))));
         return Interned(ArrayOf(row));
       },
       nullptr});
  scalars->back().eval_typed = [](const Args& a, DataType type, const EvalContext&) {
    size_t n = 0;
    for (const Datum& array : a) n = std::max(n, array.items().size());
    const DataType row_type = ElementType(type);
    std::vector<Datum> rows;
    rows.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      std::vector<Datum> fields;
      for (const Datum& array : a) {
        const std::vector<Datum>& v = array.items();
        fields.push_back(i < v.size() ? v[i] : Datum::Null(RowFields(row_type)[fields.size()].type));
      }
      rows.push_back(Datum::Composite(row_type, std::move(fields)));
    }
    return ArrayOfValues(type, std::move(rows));
  };

  add({"row", "row(x, ...) -> row", "A row of the values (fields field0, field1, ...).",
       [](const Types& t) -> absl::StatusOr<DataType> {
         if (t.empty()) return WrongArguments("row(x [, ...])");
         std::vector<RowField> fields;
         for (DataType type : t) fields.push_back({.name = StrCat("field", fields.size()), .type = type});
         return Interned(RowOf(std::move(fields)));
       },
       nullptr, false});
  scalars->back().eval_typed = [](const Args& a, DataType type, const EvalContext&) {
    return Datum::Composite(type, a);
  };

  // r.name: the binder rewrites a field reference into field(r, index); (expr).name is
  // parsed as field(expr, 'name'), whose name the binder makes the index.
  add({"field", "r.name -> type of the field", "A row's field (written r.name, or (expr).name).",
       [](const Types& t) -> absl::StatusOr<DataType> {
         if (t.size() != 2 || KindOf(t[0]) != TypeKind::kRow || t[1] != kBig) {
           return WrongArguments("row.field");
         }
         return DataType::kUnknown;  // the binder of the rewrite sets the field's type
       },
       [](const Args& a, const EvalContext&) {
         const std::vector<Datum>& v = a[0].items();
         return a[1].i >= 0 && a[1].i < static_cast<int64_t>(v.size()) ? v[a[1].i] : Datum::Null();
       }});

  aggregates->push_back(
      {"array_agg", "array_agg(x) -> array(type of x)",
       "The group's values (NULLs included) as an array, in the order rows arrive.",
       [](const Types& t) -> absl::StatusOr<DataType> {
         if (t.size() != 1) return WrongArguments("array_agg(x)");
         return Interned(ArrayOf(t[0]));
       },
       [](const Types& t) -> std::unique_ptr<Accumulator> {
         return std::make_unique<ArrayAggAcc>(*ArrayOf(t[0]));
       }});
  aggregates->back().keeps_json = true;  // an array of JSON values, as PostgreSQL's json[]
  aggregates->back().keeps_nulls = true;
}

}  // namespace strata::query
