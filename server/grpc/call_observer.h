// Sees every gRPC call end (a server interceptor, so every service and the
// health service alike): counts it with its method, status code and
// duration for /metrics, and logs one line per failed call (method, code,
// message, peer, duration): client mistakes at info, the server's own
// trouble at warning; with --log-level debug, every call. It also counts the
// calls in flight, which tells Shutdown when only idle connections are left.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "grpcpp/support/server_interceptor.h"
#include "server/ops/metrics.h"

namespace strata {

class CallObserverFactory final : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  // `metrics` must outlive the server.
  explicit CallObserverFactory(ServerMetrics* metrics) : metrics_(metrics) {}
  grpc::experimental::Interceptor* CreateServerInterceptor(
      grpc::experimental::ServerRpcInfo* info) override;

  // Calls begun and not yet destroyed (their status sent and every operation done). Shared:
  // gRPC owns this factory, the server reads the count after gRPC let go of it.
  std::shared_ptr<const std::atomic<int64_t>> calls_in_flight() const { return in_flight_; }

 private:
  ServerMetrics* metrics_;
  std::shared_ptr<std::atomic<int64_t>> in_flight_ = std::make_shared<std::atomic<int64_t>>(0);
};

}  // namespace strata
