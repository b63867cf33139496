// SHOW FUNCTIONS: the function registry as rows, for people and for
// editors' completion (the HTTP console, the shell).
#include <algorithm>
#include <tuple>

#include "query/functions/functions.h"
#include "query/functions/window_functions.h"
#include "query/statements.h"

namespace strata::query {

absl::Status ShowFunctions(const Statement& stmt, const StatementRun& run) {
  struct Entry {
    std::string_view name, kind, signature, doc;
  };
  std::vector<Entry> entries;
  const FunctionRegistry& registry = FunctionRegistry::Get();
  for (const ScalarFunction& f : registry.scalars()) {
    entries.push_back({f.name, "scalar", f.signature, f.doc});
  }
  for (const AggregateFunction& f : registry.aggregates()) {
    entries.push_back({f.name, "aggregate", f.signature, f.doc});
  }
  for (const WindowOnlyFunction& f : WindowOnlyFunctions()) {
    entries.push_back({f.name, "window", f.signature, f.doc});
  }
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return std::tie(a.name, a.kind, a.signature) < std::tie(b.name, b.kind, b.signature);
  });
  std::vector<Row> rows;
  for (const Entry& e : entries) {
    if (stmt.like && !LikeMatch(e.name, *stmt.like)) continue;
    rows.push_back({Datum::Varchar(std::string(e.name)), Datum::Varchar(std::string(e.kind)),
                    Datum::Varchar(std::string(e.signature)), Datum::Varchar(std::string(e.doc))});
  }
  return run.Emit({{"Function", DataType::kVarchar},
                   {"Kind", DataType::kVarchar},
                   {"Signature", DataType::kVarchar},
                   {"Description", DataType::kVarchar}},
                  std::move(rows));
}

}  // namespace strata::query
