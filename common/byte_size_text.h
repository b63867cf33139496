// A number of bytes as PostgreSQL writes it for people (its pg_size_pretty): what SQL's
// pg_size_pretty answers and what psql's \dt+ shows as a table's size.
#pragma once

#include <cstdint>
#include <string>

namespace strata {

// In bytes below 10 kB, else in the largest of kB, MB, GB, TB and PB (powers of 1,024) that
// leaves at least 10 of it, rounded half away from zero: 123456789 is "118 MB".
std::string PrettyByteSize(int64_t bytes);

}  // namespace strata
