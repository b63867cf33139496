// Merging common attributes into records and validating the result, with
// Timestream's rules (docs/api.md, "Writing"). Pure functions: no I/O, no
// table state (time windows and measure types are checked by the Writer).
#pragma once

#include <vector>

#include "absl/status/statusor.h"
#include "storage/catalog_types.h"
#include "storage/write_types.h"

namespace strata {

// Checks the request as a whole and merges common_attributes into each
// record: dimensions are concatenated, and for every other field the
// record's own value wins. INVALID_ARGUMENT (the whole request is refused)
// for 0 or more than 100 records, or a dimension name present both in
// common_attributes and in a record.
absl::StatusOr<std::vector<InputRecord>> MergeCommonAttributes(const WriteRequest& request);

// Validates one merged record and brings it to normal form (time in
// nanoseconds, dimensions sorted, version defaulted). INVALID_ARGUMENT's
// message is the rejection reason reported for that record.
absl::StatusOr<NormalizedRecord> NormalizeRecord(const InputRecord& record,
                                                 const PartitionKey& partition_key);

}  // namespace strata
