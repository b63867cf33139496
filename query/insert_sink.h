// InsertSink: where an INSERT's records go. A server hands them to its ingest door
// (server/runner/ingest.h) for the statement's caller: their write grant, the write path's
// validation and version rules, a cluster's shard logs. Without one (tests, tools) they go to
// the storage engine's writer.
#pragma once

#include "absl/status/statusor.h"
#include "storage/rows/write_types.h"

namespace strata::query {

class InsertSink {
 public:
  virtual ~InsertSink() = default;
  // Writes `request` (at most 100 records) as WriteRecords would: what was written and
  // what was rejected, or an error for the whole request. Blocks until it is committed.
  virtual absl::StatusOr<WriteResult> Write(WriteRequest request) = 0;
};

}  // namespace strata::query
