// The gRPC front door of stratad: Strata's services (adapters over the query
// runner, the ingest door, the scheduler and the engine's catalog), the
// standard health service and server reflection, on one listening address.
// Thread-safety: Shutdown may be called from any thread, once.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "grpcpp/server.h"
#include "rpc/call_queues.h"
#include "server/auth/authenticator.h"
#include "server/auth/tls.h"
#include "server/grpc/cluster_service.h"
#include "server/ops/metrics.h"
#include "server/runner/ingest.h"
#include "server/runner/query_runner.h"
#include "server/scheduler/scheduled_queries.h"
#include "storage/engine.h"

namespace strata {

class AuthService;
class HealthService;
class BackupService;
class CatalogService;
class WriteService;
class QueryService;
class ScheduledQueryService;
class TestingService;

struct ServerOptions {
  std::string listen;  // HOST:PORT; port 0 picks a free one
  int max_message_bytes = 16 << 20;
  TlsConfig tls;  // plaintext when tls.cert_file is empty
  // --testing-fixed-time's clock, which TestingService.SetClock moves; null:
  // the real clock (SetClock is refused).
  ManualClock* testing_clock = nullptr;
};

// What the services serve through; each must outlive the server.
struct GrpcServices {
  Engine* engine = nullptr;  // catalog, backups, the write health
  Authenticator* auth = nullptr;
  ServerMetrics* metrics = nullptr;  // every call counted
  QueryRunner* queries = nullptr;
  Ingest* ingest = nullptr;
  ScheduledQueries* scheduled = nullptr;
  CatalogChanges* ddl = nullptr;         // null: the engine's catalog makes DDL changes
  QueuedService* internal = nullptr;     // a cluster node's internal service, when set
  ClusterOperations cluster;             // a cluster node's (empty: a single server)
};

class Server {
 public:
  // Starts serving. UNAVAILABLE when the address cannot be bound (in use,
  // or not an address of this machine).
  static absl::StatusOr<std::unique_ptr<Server>> Start(const ServerOptions& options,
                                                       const GrpcServices& services);
  ~Server();

  // The bound port (the chosen one when the options asked for port 0).
  int port() const { return port_; }

  // Health: "" and the Strata services report SERVING while the server
  // runs; strata.v1.WriteService reports NOT_SERVING while writes are
  // paused (a full or failing disk: Engine::CheckWritable, looked at every
  // second), so a load balancer or collector can tell.
  //
  // Reports NOT_SERVING on the health service, stops accepting calls and
  // waits for in-flight calls until `deadline`, after which they are
  // cancelled. Returns when every call has finished.
  void Shutdown(std::chrono::system_clock::time_point deadline);

 private:
  Server() = default;

  std::unique_ptr<AuthService> auth_service_;
  std::unique_ptr<BackupService> backup_service_;
  std::unique_ptr<ClusterService> cluster_service_;
  std::unique_ptr<CatalogService> catalog_service_;
  std::unique_ptr<WriteService> write_service_;
  std::unique_ptr<QueryService> query_service_;
  std::unique_ptr<ScheduledQueryService> scheduled_query_service_;
  std::unique_ptr<TestingService> testing_service_;
  std::unique_ptr<HealthService> health_service_;
  // Every second until Shutdown: the write service's health from the disk.
  void WatchWrites(Engine* engine);

  // How often Shutdown looks whether calls are still in flight.
  static constexpr int kIdleCheckMillis = 50;
  // The queues (a thread each) serving every call of the services above:
  // one for every 4 cores, 1 to 8. Each thread polls the sockets in turn, and
  // an event one thread reads for another's call costs a wake-up: on 2 cores
  // one queue took a small query ~5–6.5 context switches against ~9 with two,
  // and served 4 clients' small queries and a 4-stream import as fast
  // (docs/benchmarks.md). The steps are short (a query's start, a write
  // request's decoding); the work runs on the query workers and the writer.
  static int CallQueueCount();

  std::unique_ptr<CallQueues> call_queues_;  // outlives server_, which it serves
  std::unique_ptr<grpc::Server> server_;
  std::shared_ptr<const std::atomic<int64_t>> calls_in_flight_;
  int port_ = 0;
  std::thread write_watcher_;
  absl::Mutex watcher_mu_;
  bool stopping_ ABSL_GUARDED_BY(watcher_mu_) = false;
};

}  // namespace strata
