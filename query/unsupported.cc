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
    {"correlate_kendall", "Kendall's correlation"},
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
