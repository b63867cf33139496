// Prints the function reference of docs/sql.md from the function registry:
//   build/tests/sql_reference > /tmp/f.md   (then paste between the markers)
// sql_docs_test fails when docs/sql.md and the registry disagree.
#include <cstdio>

#include "query/functions.h"

int main() {
  std::fputs(strata::query::FunctionReferenceMarkdown().c_str(), stdout);
  return 0;
}
