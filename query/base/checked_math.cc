#include "query/base/checked_math.h"

#include "common/strings.h"

namespace strata::query {
namespace {

std::string_view Hint(DataType type) {
  return type == DataType::kBigint
             ? " does not fit in 64 bits; CAST to double for an approximate result"
             : " is outside the range of timestamps (1677-09-21 to 2262-04-11)";
}

}  // namespace

std::string OverflowMessage(DataType type, char op, int64_t x, int64_t y) {
  std::string_view name = op == '+'   ? "addition"
                          : op == '-' ? "subtraction"
                          : op == '*' ? "multiplication"
                          : op == '/' ? "division"
                                      : "remainder";
  return StrCat(TypeName(type), " ", name, " overflow: ", x, " ", op, " ", y, Hint(type));
}

std::string NegationOverflowMessage(DataType type, std::string_view function, int64_t x) {
  return StrCat(TypeName(type), " overflow: ", function, "(", x, ")", Hint(type));
}

}  // namespace strata::query
