// The table an HTTP ingest protocol writes (line protocol's measurement,
// Prometheus's samples table): it must exist and the caller must be allowed
// to write it, or, with auto-creation on, it is created on first write with
// the default retention (6 hours in memory, 73,000 days magnetic) and
// magnetic-store writes enabled, because agents send late and historical
// points that Timestream's default would reject. Creating needs the right to
// create tables in the database (admin or write on the whole database).
#pragma once

#include <future>
#include <string_view>

#include "absl/status/status.h"
#include "server/grants.h"
#include "storage/engine.h"
#include "storage/write_source.h"

namespace strata {

absl::Status PrepareIngestTable(Engine& engine, const Principal& caller, std::string_view database,
                                std::string_view table, bool auto_create);

// The database an HTTP ingest request names: NOT_FOUND (HTTP 404, as
// InfluxDB answers) saying how to create it when it does not exist.
absl::Status CheckIngestDatabase(Engine& engine, const Principal& caller,
                                 std::string_view database, std::string_view parameter);

// Writes `source` through the writer's committer without a thread of its own
// (a thread per batch of 100 records cost more than the batch): the source
// is read before this returns, and the result arrives when its group is
// committed. An ingest request keeps a few of these in flight so that its
// batches share group commits.
std::future<absl::StatusOr<WriteResult>> WriteInBackground(Engine& engine, WriteSource& source);

}  // namespace strata
