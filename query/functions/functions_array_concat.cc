// Arrays joined and edited, by PostgreSQL's names: array_cat, array_append, array_prepend
// (what `||` of an array is: query/expr/expr.cc) and array_replace. A NULL array joined with
// another is the other, as in PostgreSQL.
#include "common/strings.h"
#include "query/functions/function_families.h"

namespace strata::query {
namespace {

using Types = std::vector<DataType>;
using Args = std::vector<Datum>;

// `parts` (arrays, or single elements where `whole` says not) as one array of `type`, each
// element converted to its element type; NULL with the query failed past the value limit.
Datum Joined(std::string_view function, DataType type,
             std::initializer_list<std::pair<const Datum*, bool>> parts, const EvalContext& c) {
  const DataType element = ElementType(type);
  ArrayBytes bytes(function, c);
  std::vector<Datum> out;
  for (const auto& [part, whole] : parts) {
    if (!whole) {
      if (!bytes.Add(*part)) return Datum::Null(type);
      out.push_back(CoerceTo(*part, element));
      continue;
    }
    if (part->null) continue;  // a NULL array adds nothing
    for (const Datum& item : part->items()) {
      if (!bytes.Add(item)) return Datum::Null(type);
      out.push_back(CoerceTo(item, element));
    }
  }
  c.Charge(static_cast<size_t>(bytes.bytes()));
  return Datum::Composite(type, std::move(out));
}

// The binder of f(array, element) or f(element, array): the array of their common type.
auto OnArrayAndElement(std::string signature, size_t array_at) {
  return [signature = std::move(signature), array_at](const Types& t) -> absl::StatusOr<DataType> {
    if (t.size() != 2 || !IsArrayOrNull(t[array_at])) return WrongArguments(signature);
    ASSIGN_OR_RETURN(DataType element,
                     CommonElementType({ElementType(t[array_at]), t[1 - array_at]}, signature));
    return Interned(ArrayOf(element));
  };
}

}  // namespace

void AddArrayConcatFunctions(std::vector<ScalarFunction>* scalars) {
  // Each can fail: past the value limit, the array it makes fails the query.
  auto add = CanFailAdder(scalars);
  add({"array_cat", "array_cat(array, array) -> array",
       "The elements of both arrays, in order; a NULL array adds none (NULL if both are). "
       "a || b of two arrays is this call.",
       [](const Types& t) -> absl::StatusOr<DataType> {
         constexpr std::string_view kSignature = "array_cat(array, array of the element type)";
         if (t.size() != 2 || !IsArrayOrNull(t[0]) || !IsArrayOrNull(t[1])) {
           return WrongArguments(kSignature);
         }
         ASSIGN_OR_RETURN(DataType element,
                          CommonElementType({ElementType(t[0]), ElementType(t[1])}, kSignature));
         return Interned(ArrayOf(element));
       },
       nullptr, false});
  scalars->back().eval_typed = [](const Args& a, DataType type, const EvalContext& c) {
    if (a[0].null && a[1].null) return Datum::Null(type);
    return Joined("array_cat()", type, {{&a[0], true}, {&a[1], true}}, c);
  };
  add({"array_append", "array_append(array, x) -> array",
       "The array with x added at its end (a NULL array: [x]). array || x is "
       "this call.",
       OnArrayAndElement("array_append(array, x of the element type)", 0), nullptr, false});
  scalars->back().eval_typed = [](const Args& a, DataType type, const EvalContext& c) {
    return Joined("array_append()", type, {{&a[0], true}, {&a[1], false}}, c);
  };
  add({"array_prepend", "array_prepend(x, array) -> array",
       "The array with x added at its start (a NULL array: [x]). x || array is "
       "this call.",
       OnArrayAndElement("array_prepend(x of the element type, array)", 1), nullptr, false});
  scalars->back().eval_typed = [](const Args& a, DataType type, const EvalContext& c) {
    return Joined("array_prepend()", type, {{&a[0], false}, {&a[1], true}}, c);
  };
  add({"array_replace", "array_replace(array, from, to) -> array",
       "The array with each element equal to `from` replaced by `to`; a NULL `from` replaces "
       "the NULL elements, as in PostgreSQL.",
       [](const Types& t) -> absl::StatusOr<DataType> {
         constexpr std::string_view kSignature = "array_replace(array, from, to)";
         if (t.size() != 3 || !IsArrayOrNull(t[0])) return WrongArguments(kSignature);
         ASSIGN_OR_RETURN(DataType element,
                          CommonElementType({ElementType(t[0]), t[1], t[2]}, kSignature));
         return Interned(ArrayOf(element));
       },
       nullptr, false});
  scalars->back().eval_typed = [](const Args& a, DataType type, const EvalContext& c) {
    if (a[0].null) return Datum::Null(type);
    const DataType element = ElementType(type);
    ArrayBytes bytes("array_replace()", c);
    std::vector<Datum> out;
    out.reserve(a[0].items().size());
    for (const Datum& item : a[0].items()) {
      const bool match = item.null ? a[1].null : !a[1].null && SqlEquals(item, a[1]);
      const Datum& kept = match ? a[2] : item;
      if (!bytes.Add(kept)) return Datum::Null(type);
      out.push_back(CoerceTo(kept, element));
    }
    c.Charge(static_cast<size_t>(bytes.bytes()));
    return Datum::Composite(type, std::move(out));
  };
}

}  // namespace strata::query
