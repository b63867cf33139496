// WriteSink: where the ingest door (server/runner/ingest.h) sends a write once the caller
// may make it. A single node's sink is its engine's writer; a cluster node's is the shard
// router (cluster/shard_router.h), which sends each shard's records to that shard's leader.
#pragma once

#include <functional>

#include "absl/status/statusor.h"
#include "storage/rows/write_types.h"
#include "storage/write/write_source.h"

namespace strata {

class WriteSink {
 public:
  using WriteDone = std::function<void(absl::StatusOr<WriteResult>)>;
  virtual ~WriteSink() = default;
  // Reads `source` before it returns; `done` runs once the write is committed (or refused),
  // on whatever thread finishes it, and must not block.
  virtual void WriteAsync(WriteSource& source, WriteDone done) = 0;
};

}  // namespace strata
