// The gRPC server of stratad: Strata's services, the standard health service
// and server reflection, on one listening address.
// Thread-safety: Shutdown may be called from any thread, once.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

#include "absl/status/statusor.h"
#include "grpcpp/server.h"
#include "server/authenticator.h"
#include "server/metrics.h"
#include "server/scheduled_queries.h"
#include "server/tls.h"
#include "storage/engine.h"

namespace strata {

class AuthService;
class BackupService;
class CatalogService;
class WriteService;
class QueryService;
class ScheduledQueryService;
class TestingService;

struct ServerOptions {
  std::string listen;  // HOST:PORT; port 0 picks a free one
  int max_message_bytes = 16 << 20;
  int64_t query_timeout_millis = 300'000;
  int64_t query_memory_bytes = 256 << 20;
  int64_t query_memory_total_bytes = int64_t{2} << 30;
  int query_workers = 4;
  int query_queue = 64;
  int64_t slow_query_millis = 1000;  // 0: log every query; -1: none
  int64_t testing_query_delay_millis = 0;
  TlsConfig tls;  // plaintext when tls.cert_file is empty
  ScheduledQueryOptions scheduled_queries;
  // --testing-fixed-time's clock, which TestingService.SetClock moves; null:
  // the real clock (SetClock is refused).
  ManualClock* testing_clock = nullptr;
};

class Server {
 public:
  // Starts serving. `engine`, `auth` and `metrics` must outlive the server.
  // UNAVAILABLE when the address cannot be bound (in use, or not an
  // address of this machine).
  static absl::StatusOr<std::unique_ptr<Server>> Start(const ServerOptions& options,
                                                       Engine* engine, Authenticator* auth,
                                                       ServerMetrics* metrics);
  ~Server();

  // The bound port (the chosen one when the options asked for port 0).
  int port() const { return port_; }
  // The query service, which other front doors (PostgreSQL) run queries through.
  QueryService* query_service() { return query_service_.get(); }

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
  std::unique_ptr<CatalogService> catalog_service_;
  std::unique_ptr<WriteService> write_service_;
  std::unique_ptr<QueryService> query_service_;
  // After the query service: stopped and destroyed before it.
  std::unique_ptr<ScheduledQueries> scheduled_queries_;
  std::unique_ptr<ScheduledQueryService> scheduled_query_service_;
  std::unique_ptr<TestingService> testing_service_;
  // Every second until Shutdown: the write service's health from the disk.
  void WatchWrites(Engine* engine);

  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
  std::thread write_watcher_;
  absl::Mutex watcher_mu_;
  bool stopping_ ABSL_GUARDED_BY(watcher_mu_) = false;
};

}  // namespace strata
