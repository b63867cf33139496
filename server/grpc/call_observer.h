// Sees every gRPC call end (a server interceptor, so every service and the
// health service alike): counts it with its method, status code and
// duration for /metrics, and logs one line per failed call (method, code,
// message, peer, duration): client mistakes at info, the server's own
// trouble at warning; with --log-level debug, every call.
#pragma once

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

 private:
  ServerMetrics* metrics_;
};

}  // namespace strata
