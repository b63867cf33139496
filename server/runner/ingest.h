// The one door every write goes through, whichever front door it came in by
// (gRPC WriteRecords, HTTP line protocol, Prometheus remote write, a
// scheduled query's result): the caller's grant on the table, the engine's
// write path (storage/write/writer.h: validation, version rules, group commit),
// and the write metrics. A front door only converts its caller's records
// into a WriteSource and the result into its answer.
//
// Thread-safety: all methods may be called from any thread.
#pragma once

#include <future>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "server/auth/grants.h"
#include "server/ops/metrics.h"
#include "storage/engine.h"
#include "storage/rows/write_types.h"
#include "storage/catalog/catalog_changes.h"
#include "storage/write/write_sink.h"
#include "storage/write/write_source.h"

namespace strata {

class Ingest {
 public:
  // `engine` and `metrics` must outlive the door. A cluster node passes its write sink and
  // DDL (cluster/cluster_node.h); a single node writes to its engine and catalog.
  Ingest(Engine* engine, ServerMetrics* metrics, WriteSink* sink = nullptr,
         CatalogChanges* ddl = nullptr)
      : engine_(*engine), metrics_(*metrics), sink_(sink), ddl_(ddl != nullptr ? *ddl : engine->catalog()) {}

  // Writes `source` for `caller` if it may write the table. The source is
  // read before this returns; `done` runs on the writer's committer thread
  // once the records' group is committed (it must not block), or at once
  // with PERMISSION_DENIED.
  void WriteAsync(const Principal& caller, WriteSource& source, Writer::WriteDone done);

  // Whether a write now would be refused at once for the server's write queue or memory
  // budget: a door asks before it decodes a request, so that refusing one under overload
  // costs next to nothing. OK on a cluster node (each shard's leader admits its part).
  absl::Status CheckAdmission();

  // The same as a future, without a thread of its own (a thread per batch
  // of 100 records cost more than the batch): a request keeps a few of these
  // in flight so that its batches share group commits.
  std::future<absl::StatusOr<WriteResult>> WriteInBackground(const Principal& caller,
                                                             WriteSource& source);

  // Blocks until `request` is committed.
  absl::StatusOr<WriteResult> Write(const Principal& caller, WriteRequest request);

  // The table an ingest protocol writes (line protocol's measurement,
  // Prometheus's samples table): it must exist and the caller must be
  // allowed to write it, or, with `auto_create`, it is created on first
  // write with the default retention (6 hours in memory, 73,000 days
  // magnetic) and magnetic-store writes enabled, because agents send late
  // and historical points that Timestream's default would reject. Creating
  // needs the right to create tables in the database (admin or write on the
  // whole database).
  absl::Status PrepareTable(const Principal& caller, std::string_view database,
                            std::string_view table, bool auto_create);

  // The database an ingest request names (`parameter`: the URL parameter
  // that names it): NOT_FOUND (HTTP 404, as InfluxDB answers) saying how to
  // create it when it does not exist.
  absl::Status CheckDatabase(const Principal& caller, std::string_view database,
                             std::string_view parameter);

  // The engine's clock: what an ingest protocol versions its records by.
  int64_t NowNanos() const { return engine_.clock().NowNanos(); }

 private:
  // The write metrics of a committed write.
  void Count(const WriteResult& result);

  Engine& engine_;
  ServerMetrics& metrics_;
  WriteSink* const sink_;  // null: the engine's writer
  CatalogChanges& ddl_;
};

}  // namespace strata
