#include "common/byte_size_text.h"

#include <iterator>
#include <string_view>

#include "common/strings.h"

namespace strata {

// PostgreSQL 15's pg_size_pretty (src/backend/utils/adt/dbsize.c): each unit is used below its
// limit; the divisions truncate, and a rounded unit is reached one bit early and then halved,
// rounding half away from zero, so negative sizes round as positive ones do.
std::string PrettyByteSize(int64_t size) {
  struct Unit {
    std::string_view name;
    int64_t limit;
    bool round;
    int bits;
  };
  static constexpr Unit kUnits[] = {
      {"bytes", 10 * 1024, false, 0},  {"kB", 20 * 1024 - 1, true, 10},
      {"MB", 20 * 1024 - 1, true, 20}, {"GB", 20 * 1024 - 1, true, 30},
      {"TB", 20 * 1024 - 1, true, 40}, {"PB", 20 * 1024 - 1, true, 50}};
  constexpr size_t kCount = std::size(kUnits);
  for (size_t i = 0;; ++i) {
    const Unit& unit = kUnits[i];
    // |size| < limit, written so that INT64_MIN has no absolute value to overflow.
    const bool below = size > -unit.limit && size < unit.limit;
    if (i + 1 == kCount || below) {
      if (unit.round) size = (size + (size < 0 ? -1 : 1)) / 2;
      return StrCat(size, " ", unit.name);
    }
    const Unit& next = kUnits[i + 1];
    size /= int64_t{1} << (next.bits - unit.bits - (next.round ? 1 : 0) + (unit.round ? 1 : 0));
  }
}

}  // namespace strata
