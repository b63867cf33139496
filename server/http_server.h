// stratad's one HTTP port (--http-listen; docs/operations.md), for what the
// HTTP world expects: GET /metrics for Prometheus, GET /health for load
// balancers, and the ingest protocols of server/http_ingest.h. It uses
// cpp-httplib (Debian's libcpp-httplib-dev, built with OpenSSL): small,
// thread-pooled, TLS through the same PEM files as gRPC, re-read as gRPC
// does (server/tls.h; docs/architecture.md says why not civetweb).
//
// The same rules as gRPC: TLS when the gRPC listener has it, and with
// authentication on, /metrics needs a bearer token with the `metrics` or
// `admin` grant (/health stays open, like gRPC's health service).
#pragma once

#include <memory>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "server/authenticator.h"
#include "server/http_ingest.h"
#include "server/metrics.h"
#include "server/tls.h"
#include "storage/engine.h"

namespace httplib {
class Server;
}

namespace strata {

// The largest request body the HTTP port reads (line protocol, remote write).
inline constexpr size_t kMaxHttpBodyBytes = 64 << 20;

struct HttpOptions {
  std::string listen;  // HOST:PORT, port 0 picks one
  TlsConfig tls;       // the gRPC listener's files; plaintext when not enabled
  IngestHttpOptions ingest;
};

class HttpServer {
 public:
  // Binds and starts serving on a thread of its own. UNAVAILABLE when the
  // address cannot be bound; FAILED_PRECONDITION when TLS files do not load.
  // The arguments must outlive the server.
  static absl::StatusOr<std::unique_ptr<HttpServer>> Start(const HttpOptions& options,
                                                           Engine* engine, Authenticator* auth,
                                                           ServerMetrics* metrics,
                                                           QueryService* queries);
  ~HttpServer();

  int port() const { return port_; }
  // Stops accepting and waits for the serving thread.
  void Stop();

 private:
  HttpServer() = default;
  void Route(const HttpOptions& options, Engine* engine, Authenticator* auth,
             ServerMetrics* metrics, QueryService* queries);

  // Holds the HTTPS certificates the server's TLS context hands out.
  std::function<bool(ssl_ctx_st&)> tls_setup_;
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  int port_ = 0;
};

}  // namespace strata
