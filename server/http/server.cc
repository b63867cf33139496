#include "server/http/server.h"

#include <algorithm>

#include "common/status.h"
#include "common/strings.h"
#include "common/utf8.h"
#include "httplib.h"
#include "server/http/auth.h"
#include "server/http/body.h"
#include "server/http/console.h"
#include "server/http/encoding.h"
#include "server/http/origin.h"
#include "server/http/sql_api.h"
#include "server/ops/config.h"
#include "spdlog/spdlog.h"

namespace strata {

namespace {

// The endpoints that take a request body; a body sent anywhere else is
// refused before it is read.
bool TakesBody(const httplib::Request& req) {
  return req.method == "POST" && (req.path == "/write" || req.path == "/api/v2/write" ||
                                  req.path == "/api/v1/write" || req.path == "/api/v1/read" ||
                                  req.path == "/api/v1/sql");
}

constexpr std::string_view kEndpoints =
    "stratad serves GET /metrics, GET /health, GET /ping, POST /write, POST /api/v2/write, "
    "POST /api/v1/write, POST /api/v1/read, GET or POST /api/v1/sql, and the web console at "
    "GET /";

}  // namespace

absl::StatusOr<std::unique_ptr<HttpServer>> HttpServer::Start(const HttpOptions& options,
                                                              const HttpServices& services) {
  ASSIGN_OR_RETURN(auto host_port, SplitHostPort(options.listen));  // validated at start
  auto server = std::unique_ptr<HttpServer>(new HttpServer());
  SSL_CTX* tls = nullptr;
  if (options.tls.enabled()) {
    ASSIGN_OR_RETURN(server->tls_setup_, HttpsContextSetup(options.tls));
    tls = SSL_CTX_new(TLS_server_method());
    if (tls == nullptr || !server->tls_setup_(*tls)) {
      if (tls != nullptr) SSL_CTX_free(tls);
      return absl::FailedPreconditionError(
          StrCat("the HTTP listener cannot load --tls-cert ", options.tls.cert_file, " and --tls-key ",
                 options.tls.key_file));
    }
  }
  server->server_ = std::make_unique<GuardedHttpServer>(options.limits, tls);
  services.metrics->SetConnectionSource("http", [open = server->server_->open_connections()] {
    return open->load();
  });
  // Bodies declared above this are refused (413) before they are read.
  server->server_->set_payload_max_length(kMaxHttpBodyBytes);
  HttpOptions routed = options;
  routed.ingest.stopping = server->stopping_;
  server->Route(routed, services);
  auto& [host, port] = host_port;
  if (absl::Status started = server->server_->Start(host, port); !started.ok()) {
    return absl::UnavailableError(StrCat(
        "cannot listen for HTTP on ", options.listen, ": ", started.message(),
        "; choose another with --http-listen or STRATA_HTTP_LISTEN (an empty value turns HTTP off)"));
  }
  return server;
}

void HttpServer::Route(const HttpOptions& options, const HttpServices& services) {
  Authenticator* auth = services.auth;
  ServerMetrics* metrics = services.metrics;
  Engine* engine = services.engine;
  server_->Get("/metrics", [auth, metrics](const httplib::Request& req, httplib::Response& res) {
    if (auth->enabled()) {
      auto caller = AuthenticateHttp(*auth, req, QueryPassword::kRefused);
      absl::Status allowed = caller.ok() ? (*caller)->RequireMetrics() : caller.status();
      if (!allowed.ok()) return ReplyError(allowed, res);
    }
    res.set_content(metrics->Render(), "text/plain; version=0.0.4; charset=utf-8");
  });
  server_->Get("/health", [engine](const httplib::Request&, httplib::Response& res) {
    const bool writable = engine->CheckWritable().ok();
    res.set_content(StrCat(R"({"status":"SERVING","writes":")",
                           writable ? "SERVING" : "NOT_SERVING", "\"}\n"),
                    "application/json");
  });
  RouteIngest(*server_, options.ingest, services.ingest, services.queries, auth);
  RouteSqlApi(*server_, services.queries, auth, options.ingest.stopping);
  RouteConsole(*server_);
  // Runs before httplib reads a body: one sent where none is taken (or to no
  // endpoint at all) is refused unread, and the connection closes; so is a
  // request a browser sends for another site. And before the answer is
  // encoded: gzip for clients that accept brotli too.
  // Tokens off on a loopback listener: only loopback names are answered
  // (origin.h, DNS rebinding).
  absl::StatusOr<std::pair<std::string, int>> listen = SplitHostPort(options.listen);
  const bool guard_host = !auth->enabled() && listen.ok() && IsLoopbackHost(listen->first);
  server_->set_pre_routing_handler([guard_host](const httplib::Request& req,
                                                httplib::Response& res) {
    DropBrotli(req);  // gzip, not brotli at its slowest (encoding.h)
    // A page of another site, or a rebinding name: refused before anything
    // runs, and before a body is read.
    if (std::optional<std::string> refused = CrossSiteRefusal(req, guard_host)) {
      GuardedHttpServer::CloseConnectionAfterAnswer();
      ReplyError(absl::PermissionDeniedError(*refused), res);
      return httplib::Server::HandlerResponse::Handled;
    }
    if (!HasBody(req) || TakesBody(req)) return httplib::Server::HandlerResponse::Unhandled;
    ReplyBodyError(absl::InvalidArgumentError(StrCat(req.method, " ", req.path,
                                                     " takes no request body; ", kEndpoints)),
                   res);
    return httplib::Server::HandlerResponse::Handled;
  });
  // Every answer is counted by endpoint and code, and every failure logged
  // once (as gRPC's are by server/grpc/call_observer.cc), without the query
  // string, which may carry a token.
  server_->set_logger([metrics](const httplib::Request& req, const httplib::Response& res) {
    const bool known = req.path == "/metrics" || req.path == "/health" || req.path == "/ping" ||
                       req.path == "/api/v1/sql" || TakesBody(req);
    metrics->CountHttpRequest(known                      ? req.path
                              : IsConsolePath(req.path) ? std::string("console")
                                                        : std::string("other"),
                              res.status);
    if (res.status >= 400) {
      std::string message = EchoInput(res.body, 300);
      std::replace(message.begin(), message.end(), '\n', ' ');
      spdlog::warn("http request failed: method={} path={} code={} peer={} message={}", req.method,
                   EchoInput(req.path, 100), res.status, req.remote_addr, message);
    }
  });
  server_->set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (res.status == 404 && res.body.empty()) {  // no route (handlers answer their own 404s)
      res.set_content(JsonError(StrCat("no such endpoint: ", req.method, " ", req.path, "; ", kEndpoints)),
                      "application/json");
    }
  });
}

void HttpServer::Stop() {
  *stopping_ = true;  // queries of requests in flight end, so the join below is prompt
  if (server_ != nullptr) server_->Stop();
}

HttpServer::~HttpServer() { Stop(); }

}  // namespace strata
