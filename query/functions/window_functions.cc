#include "query/functions/window_functions.h"

#include <algorithm>
#include <iterator>

#include "common/strings.h"

namespace strata::query {
namespace {

constexpr WindowOnlyFunction kWindowOnly[] = {
    {"row_number", "row_number() -> bigint", "the row's number in its partition, from 1"},
    {"rank", "rank() -> bigint", "1 + the rows ordered before the row's peers (gaps after ties)"},
    {"dense_rank", "dense_rank() -> bigint", "the number of the row's peer group (no gaps)"},
    {"percent_rank", "percent_rank() -> double",
     "(rank - 1) / (partition rows - 1); 0 for one row"},
    {"cume_dist", "cume_dist() -> double",
     "rows ordered before or with the row, over the partition's rows"},
    {"ntile", "ntile(n) -> bigint", "the bucket 1..n of the row when the partition is cut in n"},
    {"lag", "lag(x [, offset [, default]]) -> type of x",
     "x of the row `offset` (1) rows before, else default (NULL)"},
    {"lead", "lead(x [, offset [, default]]) -> type of x",
     "x of the row `offset` (1) rows after, else default (NULL)"},
    {"first_value", "first_value(x) -> type of x", "x of the frame's first row"},
    {"last_value", "last_value(x) -> type of x", "x of the frame's last row"},
    {"nth_value", "nth_value(x, n) -> type of x", "x of the frame's n-th row (from 1), else NULL"},
};

}  // namespace

bool IsWindowOnlyFunction(std::string_view name) {
  return std::any_of(std::begin(kWindowOnly), std::end(kWindowOnly),
                     [&](const WindowOnlyFunction& w) { return w.name == name; });
}

const std::vector<WindowOnlyFunction>& WindowOnlyFunctions() {
  static const auto* functions =
      new std::vector<WindowOnlyFunction>(std::begin(kWindowOnly), std::end(kWindowOnly));
  return *functions;
}

std::string WindowFunctionReferenceMarkdown() {
  std::string out = "| function | description |\n|---|---|\n";
  for (const WindowOnlyFunction& w : kWindowOnly)
    out += StrCat("| `", w.signature, "` | ", w.doc, " |\n");
  return out;
}

}  // namespace strata::query
