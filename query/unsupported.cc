#include "query/unsupported.h"

#include "common/strings.h"
#include "query/functions.h"

namespace strata::query {
namespace {

struct Missing {
  std::string_view function;
  std::string_view feature;
};

constexpr Missing kMissing[] = {
    // The timeseries type and its functions.
    {"create_time_series", "time series functions"}, {"unnest", "UNNEST"},
    {"interpolate_linear", "time series functions"},
    {"interpolate_spline_cubic", "time series functions"},
    {"interpolate_locf", "time series functions"}, {"interpolate_fill", "time series functions"},
    {"derivative_linear", "time series functions"},
    {"integral_trapezoidal", "time series functions"},
    {"correlate_pearson", "time series functions"},
    {"correlate_spearman", "time series functions"},
    {"correlate_kendall", "time series functions"}, {"sequence", "arrays"},
    // Arrays and lambdas.
    {"array_agg", "arrays"}, {"cardinality", "arrays"}, {"element_at", "arrays"},
    {"contains", "arrays"}, {"array_join", "arrays"}, {"array_sort", "arrays"},
    {"array_distinct", "arrays"}, {"array_max", "arrays"}, {"array_min", "arrays"},
    {"array_position", "arrays"}, {"slice", "arrays"}, {"flatten", "arrays"}, {"zip", "arrays"},
    {"filter", "lambdas"}, {"transform", "lambdas"}, {"reduce", "lambdas"},
    {"zip_with", "lambdas"},
};

}  // namespace

std::optional<std::string> UnsupportedFunctionMessage(std::string_view function) {
  const FunctionRegistry& registry = FunctionRegistry::Get();
  if (registry.FindScalar(function) != nullptr || registry.FindAggregate(function) != nullptr) {
    return std::nullopt;
  }
  for (const Missing& m : kMissing) {
    if (m.function == function) {
      return StrCat(function, "() is not supported yet: Strata does not have ", m.feature,
                    " yet (docs/sql.md lists what is missing)");
    }
  }
  return std::nullopt;
}

}  // namespace strata::query
