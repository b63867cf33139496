#include "query/checked_math.h"

#include "common/strings.h"

namespace strata::query {

std::string OverflowMessage(DataType type, char op, int64_t x, int64_t y) {
  std::string_view name = op == '+'   ? "addition"
                          : op == '-' ? "subtraction"
                          : op == '*' ? "multiplication"
                          : op == '/' ? "division"
                                      : "remainder";
  return StrCat(TypeName(type), " ", name, " overflow: ", x, " ", op, " ", y,
                " does not fit in 64 bits; CAST to double for an approximate result");
}

std::string NegationOverflowMessage(DataType type, std::string_view function, int64_t x) {
  return StrCat(TypeName(type), " overflow: ", function, "(", x,
                ") does not fit in 64 bits; CAST to double for an approximate result");
}

}  // namespace strata::query
