// The functions that exist only with OVER (row_number, rank, lag, ...): their
// names, which the parser accepts without a registry entry, and their
// reference (query/exec/window.h binds and runs them).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace strata::query {

// True for the functions that exist only with OVER.
bool IsWindowOnlyFunction(std::string_view name);

// The window-only functions: name, signature, description.
struct WindowOnlyFunction {
  std::string_view name;
  std::string_view signature;
  std::string_view doc;
};
const std::vector<WindowOnlyFunction>& WindowOnlyFunctions();

// The window-only functions as the table of docs/sql.md (checked by
// sql_docs_test, printed by build/tests/sql_reference window).
std::string WindowFunctionReferenceMarkdown();

}  // namespace strata::query
