// Naming rules of Timestream that Strata keeps (docs/api.md): what a database,
// table, dimension or measure may be called. Each check returns
// INVALID_ARGUMENT with a message naming the offending value and the rule.
#pragma once

#include <string_view>

#include "absl/status/status.h"

namespace strata {

inline constexpr size_t kMaxResourceNameBytes = 256;
inline constexpr size_t kMaxDimensionNameBytes = 60;
inline constexpr size_t kMaxMeasureNameBytes = 256;

inline constexpr size_t kMinNewResourceNameBytes = 3;

// `kind` is "database" or "table": [a-zA-Z0-9_.-]+, 1..256 bytes. The rule for
// naming an existing object (data directories from before the 3-byte minimum
// hold names such as `db`, and those keep working).
absl::Status ValidateResourceName(std::string_view kind, std::string_view name);
// The rule for a new database or table: as above and at least 3 bytes
// (Timestream's 3..256).
absl::Status ValidateNewResourceName(std::string_view kind, std::string_view name);
// Dimension names: 1..60 bytes, not reserved.
absl::Status ValidateDimensionName(std::string_view name);
// Measure names (and MULTI attribute names): 1..256 bytes, not reserved.
absl::Status ValidateMeasureName(std::string_view kind, std::string_view name);
// `time`, `measure_name`, `measure_value`, or any name starting with `ts_`.
bool IsReservedColumnName(std::string_view name);

}  // namespace strata
