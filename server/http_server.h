// stratad's one HTTP port (--http-listen; docs/operations.md), for what the
// HTTP world expects: GET /metrics for Prometheus, GET /health for load
// balancers, and the ingest protocols of server/http_ingest.h. Requests are
// parsed and routed by cpp-httplib (Debian's libcpp-httplib-dev;
// docs/front-doors.md says why not civetweb); connections, their limits and
// TLS (the same PEM files as gRPC, re-read as gRPC does) are
// server/http_connections.h's.
//
// The same rules as gRPC: TLS when the gRPC listener has it, and with
// authentication on, /metrics needs a bearer token with the `metrics` or
// `admin` grant (/health stays open, like gRPC's health service).
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "server/authenticator.h"
#include "server/http_connections.h"
#include "server/http_ingest.h"
#include "server/metrics.h"
#include "server/tls.h"
#include "storage/engine.h"

namespace strata {

struct HttpOptions {
  std::string listen;  // HOST:PORT, port 0 picks one
  TlsConfig tls;       // the gRPC listener's files; plaintext when not enabled
  HttpConnectionLimits limits;
  IngestHttpOptions ingest;
};

class HttpServer {
 public:
  // Binds (exclusively) and starts serving on threads of its own; returns
  // once it accepts. UNAVAILABLE when the address cannot be bound;
  // FAILED_PRECONDITION when TLS files do not load.
  // The arguments must outlive the server.
  static absl::StatusOr<std::unique_ptr<HttpServer>> Start(const HttpOptions& options,
                                                           Engine* engine, Authenticator* auth,
                                                           ServerMetrics* metrics,
                                                           QueryService* queries);
  ~HttpServer();

  int port() const { return server_->port(); }
  // Stops accepting and waits for the serving threads (requests in flight
  // finish). Safe to call more than once.
  void Stop();

 private:
  HttpServer() = default;
  void Route(const HttpOptions& options, Engine* engine, Authenticator* auth,
             ServerMetrics* metrics, QueryService* queries);

  // Holds the HTTPS certificates the server's TLS context hands out.
  std::function<bool(ssl_ctx_st&)> tls_setup_;
  std::unique_ptr<GuardedHttpServer> server_;
  std::shared_ptr<std::atomic<bool>> stopping_ = std::make_shared<std::atomic<bool>>(false);
};

}  // namespace strata
