// Prints the function reference of docs/sql.md from the function registry:
//   build/tests/sql_reference > /tmp/f.md   (then paste between the markers)
//   build/tests/sql_reference window        (the window functions' table)
// sql_docs_test fails when docs/sql.md and the registry disagree.
#include <cstdio>

#include <string_view>

#include "query/functions/functions.h"
#include "query/functions/window_functions.h"

int main(int argc, char** argv) {
  const bool window = argc > 1 && std::string_view(argv[1]) == "window";
  std::fputs(window ? strata::query::WindowFunctionReferenceMarkdown().c_str()
                    : strata::query::FunctionReferenceMarkdown().c_str(),
             stdout);
  return 0;
}
