// The composition root of stratad: builds the server from its configuration
// in dependency order — engine, cluster node (with --cluster), authenticator, metrics, query runner and
// ingest door, scheduler, then the listeners (gRPC, HTTP, PostgreSQL) that
// adapt their protocols to the runner and the door, and the maintenance
// loop — owns each, and takes them down in the reverse order.
#pragma once

#include <chrono>
#include <memory>

#include "absl/status/statusor.h"
#include "cluster/cluster_node.h"
#include "common/clock.h"
#include "server/auth/authenticator.h"
#include "server/auth/tls.h"
#include "server/grpc/server.h"
#include "server/http/server.h"
#include "server/ops/config.h"
#include "server/ops/maintenance_loop.h"
#include "server/ops/metrics.h"
#include "server/pg/server.h"
#include "server/runner/ingest.h"
#include "server/runner/query_runner.h"
#include "server/scheduler/scheduled_queries.h"
#include "storage/engine.h"

namespace strata {

class Stratad {
 public:
  // Opens the data directory and starts every listener `config` turns on.
  // `fixed_clock` (--testing-fixed-time) or null must outlive the server.
  static absl::StatusOr<std::unique_ptr<Stratad>> Start(const ServerConfig& config,
                                                        ManualClock* fixed_clock);
  ~Stratad();

  // Stops accepting on every listener, stops the scheduler, lets in-flight
  // gRPC calls finish until `grace` has passed, stops maintenance and closes
  // the data directory. Call once.
  absl::Status Stop(std::chrono::seconds grace);

  const TlsConfig& tls() const { return tls_; }

 private:
  Stratad() = default;

  TlsConfig tls_;
  // In dependency order: each may use the ones above it.
  std::unique_ptr<Engine> engine_;
  // The cluster node (gone first) installs other nodes' token changes into auth_, which
  // uses the node's tokens only while serving calls (none run once the node is gone).
  std::unique_ptr<Authenticator> auth_;
  std::unique_ptr<cluster::ClusterNode> cluster_;  // with --cluster
  std::unique_ptr<ServerMetrics> metrics_;
  std::unique_ptr<QueryRunner> queries_;
  std::unique_ptr<Ingest> ingest_;
  std::unique_ptr<ScheduledQueries> scheduled_;
  std::unique_ptr<Server> grpc_;
  std::unique_ptr<HttpServer> http_;
  std::unique_ptr<PgServer> pg_;
  std::unique_ptr<MaintenanceLoop> maintenance_;
};

}  // namespace strata
