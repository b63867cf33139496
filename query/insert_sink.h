// InsertSink: where an INSERT's records go. A server hands them to its ingest door
// (server/runner/ingest.h) for the statement's caller: their write grant, the write path's
// validation and version rules, a cluster's shard logs. Without one (tests, tools) they go to
// the storage engine's writer.
#pragma once

#include <future>

#include "absl/status/statusor.h"
#include "storage/rows/write_types.h"

namespace strata::query {

class InsertSink {
 public:
  virtual ~InsertSink() = default;
  // Writes `request` (at most 100 records) as WriteRecords would: what was written and
  // what was rejected, or an error for the whole request. Blocks until it is committed.
  virtual absl::StatusOr<WriteResult> Write(WriteRequest request) = 0;
  // The same, returning once `request` is read: the answer comes when it is committed, so a
  // statement keeps a few requests in flight and they share group commits (a COPY of 100
  // records a request waited for each commit in turn). By default it blocks as Write does.
  virtual std::future<absl::StatusOr<WriteResult>> WriteInBackground(WriteRequest request) {
    std::promise<absl::StatusOr<WriteResult>> done;
    done.set_value(Write(std::move(request)));
    return done.get_future();
  }
};

}  // namespace strata::query
