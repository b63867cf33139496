// stratad's one HTTP port (--http-listen; docs/operations.md), for what the
// HTTP world expects: GET /metrics for Prometheus, GET /health for load
// balancers, and the ingest protocols of server/http/ingest_routes.h. Requests are
// parsed and routed by cpp-httplib (Debian's libcpp-httplib-dev;
// docs/front-doors.md says why not civetweb); connections, their limits and
// TLS (the same PEM files as gRPC, re-read as gRPC does) are
// server/http/connections.h's.
//
// The same rules as gRPC: TLS when the gRPC listener has it, and with
// authentication on, /metrics needs a bearer token with the `metrics` or
// `admin` grant (/health stays open, like gRPC's health service).
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "server/auth/authenticator.h"
#include "server/auth/tls.h"
#include "server/http/connections.h"
#include "server/http/ingest_routes.h"
#include "server/ops/metrics.h"
#include "storage/engine.h"

namespace strata {

struct HttpOptions {
  std::string listen;  // HOST:PORT, port 0 picks one
  TlsConfig tls;       // the gRPC listener's files; plaintext when not enabled
  HttpConnectionLimits limits;
  IngestHttpOptions ingest;
};

// What the endpoints serve through; each must outlive the server.
struct HttpServices {
  Engine* engine = nullptr;          // /health: whether the disk takes writes
  Authenticator* auth = nullptr;
  ServerMetrics* metrics = nullptr;  // /metrics, and every request counted
  Ingest* ingest = nullptr;          // line protocol, remote write
  StatementRunner* queries = nullptr;    // remote read
};

class HttpServer {
 public:
  // Binds (exclusively) and starts serving on threads of its own; returns
  // once it accepts. UNAVAILABLE when the address cannot be bound;
  // FAILED_PRECONDITION when TLS files do not load.
  static absl::StatusOr<std::unique_ptr<HttpServer>> Start(const HttpOptions& options,
                                                           const HttpServices& services);
  ~HttpServer();

  int port() const { return server_->port(); }
  // Stops accepting and waits for the serving threads (requests in flight
  // finish). Safe to call more than once.
  void Stop();

 private:
  HttpServer() = default;
  void Route(const HttpOptions& options, const HttpServices& services);

  // Holds the HTTPS certificates the server's TLS context hands out.
  std::function<bool(ssl_ctx_st&)> tls_setup_;
  std::unique_ptr<GuardedHttpServer> server_;
  std::shared_ptr<std::atomic<bool>> stopping_ = std::make_shared<std::atomic<bool>>(false);
};

}  // namespace strata
