#include "server/http_server.h"

#include "common/status.h"
#include "common/strings.h"
#include "httplib.h"
#include "server/config.h"
#include "server/http_auth.h"
#include "spdlog/spdlog.h"

namespace strata {

absl::StatusOr<std::unique_ptr<HttpServer>> HttpServer::Start(const HttpOptions& options,
                                                              Engine* engine,
                                                              Authenticator* auth,
                                                              ServerMetrics* metrics,
                                                              QueryService* queries) {
  ASSIGN_OR_RETURN(auto host_port, SplitHostPort(options.listen));  // validated at start
  auto server = std::unique_ptr<HttpServer>(new HttpServer());
  if (options.tls.enabled()) {
    ASSIGN_OR_RETURN(server->tls_setup_, HttpsContextSetup(options.tls));
    auto ssl = std::make_unique<httplib::SSLServer>(server->tls_setup_);
    if (!ssl->is_valid()) {
      return absl::FailedPreconditionError(
          StrCat("the HTTP listener cannot load --tls-cert ", options.tls.cert_file, " and --tls-key ",
                 options.tls.key_file));
    }
    server->server_ = std::move(ssl);
  } else {
    server->server_ = std::make_unique<httplib::Server>();
  }
  // Bodies above this are refused (413) before they are read: remote write
  // holds a whole body in memory, and InfluxDB's own limit is 25 MB.
  server->server_->set_payload_max_length(kMaxHttpBodyBytes);
  server->Route(options, engine, auth, metrics, queries);
  auto& [host, port] = host_port;
  if (port == 0) {
    server->port_ = server->server_->bind_to_any_port(host);
  } else if (server->server_->bind_to_port(host, port)) {
    server->port_ = port;
  }
  if (server->port_ <= 0) {
    return absl::UnavailableError(StrCat(
        "cannot listen for HTTP on ", options.listen,
        ": the port is in use or the host is not an address of this machine; choose another "
        "with --http-listen or STRATA_HTTP_LISTEN (an empty value turns HTTP off)"));
  }
  server->thread_ = std::thread([s = server->server_.get()] { s->listen_after_bind(); });
  return server;
}

void HttpServer::Route(const HttpOptions& options, Engine* engine, Authenticator* auth,
                       ServerMetrics* metrics, QueryService* queries) {
  server_->Get("/metrics", [auth, metrics](const httplib::Request& req, httplib::Response& res) {
    if (auth->enabled()) {
      auto caller = AuthenticateHttp(*auth, req);
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
  RouteIngest(*server_, options.ingest, engine, auth, metrics, queries);
  server_->set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (res.status == 404 && res.body.empty()) {  // no route (handlers answer their own 404s)
      res.set_content(JsonError(StrCat("no such endpoint: ", req.method, " ", req.path,
                                       "; stratad serves GET /metrics, GET /health, GET /ping, POST /write, "
                                       "POST /api/v2/write, POST /api/v1/write and POST /api/v1/read")),
                      "application/json");
    }
  });
}

void HttpServer::Stop() {
  if (server_ != nullptr) server_->stop();
  if (thread_.joinable()) thread_.join();
}

HttpServer::~HttpServer() { Stop(); }

}  // namespace strata
