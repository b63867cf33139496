#include "common/version.h"

namespace strata {

std::string_view VersionText() {
  return "PostgreSQL 15.0 (Strata " STRATA_VERSION_STRING
         "; Timestream SQL over the PostgreSQL wire protocol)";
}

}  // namespace strata
