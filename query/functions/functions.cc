#include "query/functions/functions.h"

#include <algorithm>
#include <type_traits>

#include "common/strings.h"

namespace strata::query {

const FunctionRegistry& FunctionRegistry::Get() {
  static const FunctionRegistry* registry = new FunctionRegistry();
  return *registry;
}

const ScalarFunction* FunctionRegistry::FindScalar(std::string_view name) const {
  for (const ScalarFunction& f : scalars_) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

const AggregateFunction* FunctionRegistry::FindAggregate(std::string_view name) const {
  for (const AggregateFunction& f : aggregates_) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

std::vector<std::string_view> FunctionRegistry::Names() const {
  std::vector<std::string_view> names;
  for (const auto& f : scalars_) names.push_back(f.name);
  for (const auto& f : aggregates_) names.push_back(f.name);
  return names;
}

std::string FunctionReferenceMarkdown() {
  const FunctionRegistry& r = FunctionRegistry::Get();
  // By name, so a reader finds a function where the alphabet puts it.
  auto sorted = [](const auto& functions) {
    std::vector<const std::decay_t<decltype(functions[0])>*> out;
    for (const auto& f : functions) out.push_back(&f);
    std::stable_sort(out.begin(), out.end(), [](auto* a, auto* b) { return a->name < b->name; });
    return out;
  };
  std::string out = "### Scalar functions\n\n| function | description |\n|---|---|\n";
  for (const auto* f : sorted(r.scalars())) {
    out += StrCat("| `", f->signature, "` | ", f->doc, " |\n");
  }
  out +=
      "\n### Aggregate functions\n\nEach also takes `DISTINCT`, e.g. `count(DISTINCT x)`, and "
      "an order to read its rows in, `agg(x ORDER BY k [DESC], ...)` or the standard's "
      "`agg(x) WITHIN GROUP (ORDER BY k)` (it matters to array_agg, string_agg and listagg). "
      "Over no rows (or only NULLs, where NULLs are left out) each answers NULL, as in Presto "
      "and Timestream, except `count`, `count_if` and `approx_distinct` (0).\n\n"
      "| function | description |\n|---|---|\n";
  for (const auto* f : sorted(r.aggregates())) {
    out += StrCat("| `", f->signature, "` | ", f->doc, " |\n");
  }
  out +=
      "\n### Not supported\n\nFunctions of Timestream's reference, and PostgreSQL's size "
      "functions, that Strata refuses "
      "(SQLSTATE 0A000 on the PostgreSQL wire, UNIMPLEMENTED over gRPC), and why.\n\n"
      "| function | why, and what to write instead |\n|---|---|\n";
  for (const auto& f : RefusedFunctions()) out += StrCat("| `", f.name, "` | ", f.reason, " |\n");
  return out;
}

}  // namespace strata::query
