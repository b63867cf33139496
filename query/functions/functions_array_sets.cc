// Arrays as sets and sequences (Presto semantics): array_intersect, array_union, array_except,
// arrays_overlap, array_has_all, array_remove, repeat, ngrams and shuffle. Elements are the same
// value when Compare calls them equal (as array_distinct and GROUP BY have it: a NULL is one value,
// a NaN one), except in array_remove, which removes what `=` finds (never a NaN).
#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "common/strings.h"
#include "query/functions/function_families.h"

namespace strata::query {
namespace {

using Types = std::vector<DataType>;
using Args = std::vector<Datum>;

// The binder of f(array, array): the arrays' common element type to `result`.
template <typename Result>
auto OnTwoArrays(std::string signature, Result result) {
  return [=](const Types& t) -> absl::StatusOr<DataType> {
    if (t.size() != 2 || !IsArrayOrNull(t[0]) || !IsArrayOrNull(t[1])) {
      return WrongArguments(signature);
    }
    ASSIGN_OR_RETURN(DataType element,
                     CommonElementType({ElementType(t[0]), ElementType(t[1])}, signature));
    return result(element);
  };
}

absl::StatusOr<DataType> ArrayOfElement(DataType element) { return Interned(ArrayOf(element)); }

// An element's byte form in `*key` (equal for elements Compare calls equal: 1 and 1.0 too).
const std::string& KeyOf(const Datum& e, std::string* key) {
  key->clear();
  AppendKey(e, key);
  return *key;
}

enum class SetOp { kIntersect, kUnion, kExcept };

// The elements of a[0] (and, for a union, then a[1]) without repeats, in order of first
// occurrence, those of a[0] kept by whether a[1] holds them.
Datum ArraySetOp(SetOp op, const Args& a, DataType type, const EvalContext& c) {
  const DataType element = ElementType(type);
  std::string key;
  absl::flat_hash_set<std::string> second;
  if (op != SetOp::kUnion) {
    for (const Datum& e : a[1].items()) second.insert(KeyOf(e, &key));
  }
  absl::flat_hash_set<std::string> seen;
  std::vector<Datum> out;
  auto offer = [&](const Datum& e) {
    KeyOf(e, &key);
    const bool wanted = op == SetOp::kUnion || second.contains(key) == (op == SetOp::kIntersect);
    if (wanted && seen.insert(key).second) out.push_back(CoerceTo(e, element));
  };
  for (const Datum& e : a[0].items()) offer(e);
  if (op == SetOp::kUnion) {
    for (const Datum& e : a[1].items()) offer(e);
    if (out.size() > kMaxNestedValues) {
      return FailQuery(c,
                       StrCat("array_union(): more than ", kMaxNestedValues,
                              " elements, the most one array holds"),
                       type);
    }
  }
  return Datum::Composite(type, std::move(out));
}

// Presto's limit on repeat's count.
constexpr int64_t kMaxRepeat = 10'000;

}  // namespace

void AddArraySetFunctions(std::vector<ScalarFunction>* scalars) {
  auto add = [scalars](ScalarFunction f) { scalars->push_back(std::move(f)); };

  struct SetFunction {
    const char* name;
    SetOp op;
    const char* doc;
  };
  for (const SetFunction& f :
       {SetFunction{"array_intersect", SetOp::kIntersect,
                    "The elements of x that y holds too, without repeats, in x's order."},
        SetFunction{"array_union", SetOp::kUnion,
                    "The elements of x, then those of y, without repeats."},
        SetFunction{"array_except", SetOp::kExcept,
                    "The elements of x that y does not hold, without repeats, in x's order."}}) {
    const std::string signature = StrCat(f.name, "(x array, y array) -> array");
    add({f.name, signature, f.doc, OnTwoArrays(signature, ArrayOfElement), nullptr});
    scalars->back().eval_typed = [op = f.op](const Args& a, DataType type, const EvalContext& c) {
      return ArraySetOp(op, a, type, c);
    };
    scalars->back().can_fail = f.op == SetOp::kUnion;
  }

  add({"arrays_overlap", "arrays_overlap(x array, y array) -> boolean",
       "True if x and y share an element that is not NULL; NULL if they share none but one "
       "holds a NULL; false otherwise.",
       OnTwoArrays("arrays_overlap(array, array)",
                   [](DataType) -> absl::StatusOr<DataType> { return kBool; }),
       nullptr});
  scalars->back().eval_typed = [](const Args& a, DataType, const EvalContext&) {
    std::string key;
    bool saw_null = false;
    absl::flat_hash_set<std::string> first;
    for (const Datum& e : a[0].items()) {
      if (e.null) {
        saw_null = true;
      } else {
        first.insert(KeyOf(e, &key));
      }
    }
    for (const Datum& e : a[1].items()) {
      if (e.null) {
        saw_null = true;
      } else if (first.contains(KeyOf(e, &key))) {
        return Datum::Bool(true);
      }
    }
    return saw_null ? Datum::Null(kBool) : Datum::Bool(false);
  };

  // PostgreSQL's x @> y (and y <@ x), which the parser writes as this call: DuckDB's name.
  add({"array_has_all", "array_has_all(x array, y array) -> boolean",
       "True if x holds every element of y (an empty y included), as PostgreSQL's x @> y; a "
       "NULL element of y is held by no array, so y with a NULL answers false.",
       OnTwoArrays("array_has_all(array, array)",
                   [](DataType) -> absl::StatusOr<DataType> { return kBool; }),
       nullptr});
  scalars->back().eval_typed = [](const Args& a, DataType, const EvalContext&) {
    std::string key;
    absl::flat_hash_set<std::string> held;
    for (const Datum& e : a[0].items()) {
      if (!e.null) held.insert(KeyOf(e, &key));
    }
    for (const Datum& e : a[1].items()) {
      if (e.null || !held.contains(KeyOf(e, &key))) return Datum::Bool(false);
    }
    return Datum::Bool(true);
  };

  add({"array_remove", "array_remove(array, x) -> array",
       "The array without the elements equal to x (NULL elements stay; a NaN equals nothing).",
       [](const Types& t) -> absl::StatusOr<DataType> {
         constexpr std::string_view kSignature = "array_remove(array, x of the element type)";
         if (t.size() != 2 || !IsArrayOrNull(t[0])) return WrongArguments(kSignature);
         RETURN_IF_ERROR(CommonElementType({ElementType(t[0]), t[1]}, kSignature).status());
         return t[0];
       },
       [](const Args& a, const EvalContext&) {
         std::vector<Datum> out;
         for (const Datum& e : a[0].items()) {
           if (e.null || !SqlEquals(e, a[1])) out.push_back(e);
         }
         return Datum::Composite(a[0].type, std::move(out));
       }});

  add({"repeat", "repeat(x, n) -> array(type of x)",
       StrCat("An array of n copies of x (a NULL x too); n from 0 to ", kMaxRepeat, "."),
       [](const Types& t) -> absl::StatusOr<DataType> {
         if (t.size() != 2 || !Accepts(Param::kBigint, t[1])) {
           return WrongArguments("repeat(x, bigint)");
         }
         return Interned(ArrayOf(t[0]));
       },
       nullptr, false});
  scalars->back().can_fail = true;
  scalars->back().eval_typed = [](const Args& a, DataType type, const EvalContext& c) {
    if (a[1].null) return Datum::Null(type);
    if (a[1].i < 0 || a[1].i > kMaxRepeat) {
      return FailQuery(
          c, StrCat("repeat(): the count ", a[1].i, " is not between 0 and ", kMaxRepeat), type);
    }
    ArrayBytes bytes("repeat()", c);
    for (int64_t i = 0; i < a[1].i; ++i) {
      if (!bytes.Add(a[0])) return Datum::Null(type);
    }
    c.Charge(static_cast<size_t>(bytes.bytes()));
    return Datum::Composite(
        type, std::vector<Datum>(static_cast<size_t>(a[1].i), CoerceTo(a[0], ElementType(type))));
  };

  add({"ngrams", "ngrams(array, n) -> array(array)",
       "The runs of n neighbouring elements, in order; the whole array when it has n or fewer.",
       [](const Types& t) -> absl::StatusOr<DataType> {
         if (t.size() != 2 || !IsArrayOrNull(t[0]) || !Accepts(Param::kBigint, t[1])) {
           return WrongArguments("ngrams(array, bigint)");
         }
         DataType gram = t[0];
         if (gram == DataType::kUnknown) {
           ASSIGN_OR_RETURN(gram, Interned(ArrayOf(gram)));
         }
         return Interned(ArrayOf(gram));
       },
       nullptr});
  scalars->back().can_fail = true;
  scalars->back().eval_typed = [](const Args& a, DataType type, const EvalContext& c) {
    if (a[1].i <= 0) {
      return FailQuery(c, StrCat("ngrams(): n must be 1 or more, not ", a[1].i), type);
    }
    const std::vector<Datum>& v = a[0].items();
    const size_t n = static_cast<size_t>(std::min<int64_t>(a[1].i, std::max<size_t>(v.size(), 1)));
    const size_t grams = v.size() <= n ? 1 : v.size() - n + 1;
    // Each gram is a copy of its elements: n × grams of them in all.
    ArrayBytes bytes("ngrams()", c);
    std::vector<Datum> out;
    out.reserve(grams);
    for (size_t g = 0; g < grams; ++g) {
      const auto from = v.begin() + static_cast<std::ptrdiff_t>(g);
      const auto to = v.begin() + static_cast<std::ptrdiff_t>(std::min(v.size(), g + n));
      for (auto it = from; it != to; ++it) {
        if (!bytes.Add(*it)) return Datum::Null(type);
      }
      out.push_back(Datum::Composite(ElementType(type), std::vector<Datum>(from, to)));
    }
    c.Charge(static_cast<size_t>(bytes.bytes()));
    return Datum::Composite(type, std::move(out));
  };

  add({"shuffle", "shuffle(array) -> array", "The elements in a random order; a new order per row.",
       [](const Types& t) -> absl::StatusOr<DataType> {
         if (t.size() != 1 || !IsArrayOrNull(t[0])) return WrongArguments("shuffle(array)");
         return t[0];
       },
       [](const Args& a, const EvalContext&) {
         std::vector<Datum> v = a[0].items();
         std::shuffle(v.begin(), v.end(), ThreadRandom());
         return Datum::Composite(a[0].type, std::move(v));
       }});
  scalars->back().volatile_value = true;
}

}  // namespace strata::query
