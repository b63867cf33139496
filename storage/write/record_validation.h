// Merging common attributes into records and validating the result, with
// Timestream's rules (docs/api.md, "Writing"). Pure functions: no I/O, no
// table state (time windows and measure types are checked by the Writer).
#pragma once

#include <vector>

#include "absl/status/statusor.h"
#include "storage/catalog/catalog_types.h"
#include "storage/rows/write_types.h"

namespace strata {

class NameMemo;  // storage/write/name_memo.h

// Checks the request as a whole. INVALID_ARGUMENT (the whole request is
// refused) for 0 or more than `max_records` records, or a dimension name
// present both in common_attributes and in a record.
absl::Status ValidateRequestShape(const WriteRequest& request,
                                  int max_records = kMaxRecordsPerWrite);

// Merges `common` (the request's common_attributes) into `record` —
// dimensions are concatenated, for every other field the record's own value
// wins — then validates the result and brings it to normal form (time in
// nanoseconds, dimensions sorted, version defaulted). `record`'s strings are
// moved into the result (the write path's copy of them is not needed after).
// INVALID_ARGUMENT's message is the rejection reason reported for that record.
// NormalizeRecord of `request`'s record `i` into `out`, its names memoized in
// `names` (InputWriteSource, write_source.h).
absl::Status NormalizeRequestRecord(WriteRequest& request, int i,
                                    const PartitionKey& partition_key, NameMemo* names,
                                    NormalizedRecord* out);

absl::StatusOr<NormalizedRecord> NormalizeRecord(const InputRecord& common, InputRecord record,
                                                 const PartitionKey& partition_key);

}  // namespace strata
