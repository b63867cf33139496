// The registry's entries of the functions that take lambdas (filter,
// transform, reduce, any_match, all_match, none_match, zip_with, map_filter,
// transform_keys, transform_values, map_zip_with): names and documentation. Binding and evaluation
// are the expression's (BindLambdaCall, EvalLambdaCall in query/expr/expr_lambdas.cc).
#include "query/functions/function_families.h"

namespace strata::query {

void AddLambdaFunctions(std::vector<ScalarFunction>* scalars) {
  struct Entry {
    const char* name;
    const char* signature;
    const char* doc;
  };
  for (const Entry& e :
       {Entry{"filter", "filter(array | timeseries, x -> boolean) -> same type",
              "The elements (or points, x.time and x.value) for which the lambda is true."},
        Entry{"transform", "transform(array | timeseries, x -> y) -> array | timeseries",
              "Each element mapped by the lambda; for a time series each point x (x.time, "
              "x.value) to a new value or a row(time, value)."},
        Entry{"reduce",
              "reduce(array | timeseries, initial, (s, x) -> state, s -> result) -> result",
              "Folds the elements into a state from the initial one, then maps the state to "
              "the result: reduce(a, 0, (s, x) -> s + x, s -> s)."},
        Entry{"any_match", "any_match(array, x -> boolean) -> boolean",
              "True if the lambda is true for some element (NULL if none is and one is NULL)."},
        Entry{"all_match", "all_match(array, x -> boolean) -> boolean",
              "True if the lambda is true for every element (NULL if none is false and one "
              "is NULL)."},
        Entry{"none_match", "none_match(array, x -> boolean) -> boolean",
              "True if the lambda is true for no element (NULL if none is true and one is "
              "NULL)."},
        Entry{"zip_with", "zip_with(array, array, (x, y) -> z) -> array",
              "The lambda over the arrays' i-th elements, as long as the longer (NULL past "
              "the shorter's end)."},
        Entry{"map_filter", "map_filter(map, (k, v) -> boolean) -> map",
              "The entries for which the lambda is true."},
        Entry{"transform_keys", "transform_keys(map, (k, v) -> k2) -> map",
              "Each entry's key replaced by the lambda's answer (a NULL or repeated key is an "
              "error)."},
        Entry{"transform_values", "transform_values(map, (k, v) -> v2) -> map",
              "Each entry's value replaced by the lambda's answer."},
        Entry{"map_zip_with", "map_zip_with(map, map, (k, v1, v2) -> v3) -> map",
              "The lambda over each key of either map with its value in each (NULL where a "
              "map lacks it)."}}) {
    ScalarFunction f{.name = e.name, .signature = e.signature, .doc = e.doc};
    f.bind = [](const std::vector<DataType>&) -> absl::StatusOr<DataType> {
      return absl::InternalError("bound by BindLambdaCall");
    };
    f.null_propagating = false;
    f.takes_lambdas = true;
    // Past EvalContext::max_value_bytes, the arrays and maps they make fail the query; a
    // map with a NULL or repeated key too.
    const std::string_view name = e.name;
    f.can_fail = name == "transform" || name == "zip_with" || name == "transform_keys" ||
                 name == "transform_values" || name == "map_zip_with";
    scalars->push_back(std::move(f));
  }
}

}  // namespace strata::query
