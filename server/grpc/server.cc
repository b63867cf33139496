#include "server/grpc/server.h"

#include <algorithm>

#include "absl/synchronization/notification.h"
#include "common/status.h"
#include "common/strings.h"
#include "grpc/grpc.h"
#include "grpcpp/ext/proto_server_reflection_plugin.h"
#include "grpcpp/security/server_credentials.h"
#include "grpcpp/server_builder.h"
#include "server/grpc/auth_service.h"
#include "server/grpc/backup_service.h"
#include "server/grpc/call_observer.h"
#include "server/grpc/catalog_service.h"
#include "server/grpc/cluster_service.h"
#include "server/grpc/health_service.h"
#include "server/grpc/listener_credentials.h"
#include "server/grpc/query_service.h"
#include "server/grpc/scheduled_query_service.h"
#include "server/grpc/write_service.h"
#include "spdlog/spdlog.h"

namespace strata {
namespace {

// Service names reported individually by the health service.
const char* const kServiceNames[] = {"strata.v1.CatalogService", "strata.v1.WriteService",
                                     "strata.v1.QueryService", "strata.v1.AuthService",
                                     "strata.v1.BackupService", "strata.v1.ClusterService",
                                     "strata.v1.ScheduledQueryService"};

}  // namespace

absl::StatusOr<std::unique_ptr<Server>> Server::Start(const ServerOptions& options,
                                                      const GrpcServices& services) {
  Engine* engine = services.engine;
  Authenticator* auth = services.auth;
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();

  auto server = std::unique_ptr<Server>(new Server());
  server->auth_service_ = std::make_unique<AuthService>(auth);
  server->backup_service_ = std::make_unique<BackupService>(engine, auth);
  server->cluster_service_ = std::make_unique<ClusterService>(auth, services.cluster);
  server->catalog_service_ = std::make_unique<CatalogService>(
      engine, auth, services.ddl != nullptr ? services.ddl : &engine->catalog());
  server->write_service_ = std::make_unique<WriteService>(services.ingest, auth);
  server->query_service_ =
      std::make_unique<QueryService>(services.queries, auth, options.max_message_bytes);
  server->scheduled_query_service_ =
      std::make_unique<ScheduledQueryService>(services.scheduled, auth);
  server->testing_service_ =
      std::make_unique<TestingService>(options.testing_clock, services.scheduled, auth);
  server->health_service_ = std::make_unique<HealthService>(
      std::vector<std::string>(std::begin(kServiceNames), std::end(kServiceNames)));

  grpc::ServerBuilder builder;
  // Without this, gRPC sets SO_REUSEPORT and a second stratad on the same
  // port would silently share it instead of failing.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  builder.SetMaxReceiveMessageSize(options.max_message_bytes);
  builder.SetMaxSendMessageSize(options.max_message_bytes);
  builder.AddListeningPort(options.listen, ListenerCredentials(options.tls), &server->port_);
  // Every call's end: counted for /metrics, logged when it failed.
  std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> observers;
  auto observer = std::make_unique<CallObserverFactory>(services.metrics);
  server->calls_in_flight_ = observer->calls_in_flight();
  observers.push_back(std::move(observer));
  builder.experimental().SetInterceptorCreators(std::move(observers));
  builder.RegisterService(server->auth_service_.get());
  builder.RegisterService(server->backup_service_.get());
  builder.RegisterService(server->cluster_service_.get());
  builder.RegisterService(server->catalog_service_.get());
  builder.RegisterService(server->write_service_.get());
  builder.RegisterService(server->query_service_.get());
  builder.RegisterService(server->scheduled_query_service_.get());
  builder.RegisterService(server->testing_service_.get());
  builder.RegisterService(server->health_service_.get());
  if (services.internal != nullptr) builder.RegisterService(services.internal->service());
  server->call_queues_ = std::make_unique<CallQueues>(&builder, CallQueueCount());
  server->server_ = builder.BuildAndStart();
  if (server->server_ == nullptr || server->port_ == 0) {
    return absl::UnavailableError(
        StrCat("cannot listen on ", options.listen,
                     ": the port is in use or the host is not an address of this machine; "
                     "choose another with --listen or STRATA_LISTEN"));
  }
  CallQueues* queues = server->call_queues_.get();
  server->auth_service_->Serve(queues);
  server->backup_service_->Serve(queues);
  server->cluster_service_->Serve(queues);
  server->catalog_service_->Serve(queues);
  server->write_service_->Serve(queues);
  server->query_service_->Serve(queues);
  server->scheduled_query_service_->Serve(queues);
  server->testing_service_->Serve(queues);
  server->health_service_->Serve(queues);
  if (services.internal != nullptr) services.internal->Serve(queues);
  queues->Run();
  server->write_watcher_ = std::thread([s = server.get(), engine] { s->WatchWrites(engine); });
  return server;
}

int Server::CallQueueCount() {
  return std::clamp(static_cast<int>(std::thread::hardware_concurrency()) / 4, 1, 8);
}

void Server::WatchWrites(Engine* engine) {
  bool writable = true;
  absl::MutexLock lock(&watcher_mu_);
  while (!watcher_mu_.AwaitWithTimeout(absl::Condition(&stopping_), absl::Seconds(1))) {
    absl::Status status = engine->CheckWritable();
    if (status.ok() == writable) continue;
    writable = status.ok();
    health_service_->SetServing("strata.v1.WriteService", writable);
    if (writable) {
      spdlog::info("writes resumed: the data directory's disk has room again");
    } else {
      spdlog::warn("writes paused: {}", status.message());
    }
  }
}

void Server::Shutdown(std::chrono::system_clock::time_point deadline) {
  if (write_watcher_.joinable()) {
    {
      absl::MutexLock lock(&watcher_mu_);
      stopping_ = true;
    }
    write_watcher_.join();
  }
  if (server_ == nullptr) return;
  health_service_->Shutdown();
  // gRPC's shutdown waits for every connection to close, not only every call: a client that
  // keeps its channel open (a connection pool, a peer node) holds the stop for the whole
  // grace period. Once no call is in flight, the connections left are idle and are closed.
  absl::Notification shut;
  std::thread closer([this, deadline, &shut] {
    int idle_rounds = 0;
    while (!shut.WaitForNotificationWithTimeout(absl::Milliseconds(kIdleCheckMillis)) &&
           std::chrono::system_clock::now() < deadline) {
      // Twice in a row: the last status has had a round to leave the socket.
      idle_rounds = calls_in_flight_->load() == 0 ? idle_rounds + 1 : 0;
      if (idle_rounds >= 2) grpc_server_cancel_all_calls(server_->c_server());
    }
  });
  server_->Shutdown(deadline);
  shut.Notify();
  closer.join();
  server_->Wait();
  call_queues_->Shutdown();  // every call has ended: the queues are drained
  server_.reset();
}

Server::~Server() { Shutdown(std::chrono::system_clock::now()); }

}  // namespace strata
