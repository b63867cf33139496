// How the CLI reaches stratad: connection options (flags and STRATA_HOST /
// STRATA_PORT / STRATA_TOKEN / STRATA_TLS_*), one channel (plaintext or TLS)
// with a stub per service, the bearer token on every call, and the one place
// that turns a failed RPC into a printed message and an exit code.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "client/exit_code.h"
#include "grpcpp/grpcpp.h"
#include "strata/v1/auth.grpc.pb.h"
#include "strata/v1/backup.grpc.pb.h"
#include "strata/v1/cluster.grpc.pb.h"
#include "strata/v1/catalog.grpc.pb.h"
#include "strata/v1/query.grpc.pb.h"
#include "strata/v1/scheduled_query.grpc.pb.h"
#include "strata/v1/write.grpc.pb.h"

namespace strata::cli {

struct ConnectionOptions {
  std::string host = "127.0.0.1";
  int port = 7878;
  // Deadline of each unary call; queries use the server's query timeout.
  double timeout_seconds = 30;
  // Sent as `authorization: Bearer <token>` when set.
  std::string token;
  // TLS: on when `tls` is set or any file is given. `tls_ca` is the PEM CA
  // bundle to trust (default: the system's); `tls_cert`/`tls_key` a client
  // certificate for servers that require one; `tls_server_name` the name
  // to verify the server's certificate against (default: the host).
  bool tls = false;
  std::string tls_ca;
  std::string tls_cert;
  std::string tls_key;
  std::string tls_server_name;
  bool UsesTls() const { return tls || !tls_ca.empty() || !tls_cert.empty(); }
};

class Connection {
 public:
  // Fails (INVALID_ARGUMENT) when a TLS file cannot be read.
  static absl::StatusOr<std::unique_ptr<Connection>> Open(const ConnectionOptions& options);

  const ConnectionOptions& options() const { return options_; }
  std::string target() const;
  const std::shared_ptr<grpc::Channel>& channel() const { return channel_; }
  v1::CatalogService::Stub& catalog() { return *catalog_; }
  v1::WriteService::Stub& write() { return *write_; }
  v1::QueryService::Stub& query() { return *query_; }
  v1::AuthService::Stub& auth() { return *auth_; }
  v1::BackupService::Stub& backup() { return *backup_; }
  v1::ClusterService::Stub& cluster() { return *cluster_; }
  v1::ScheduledQueryService::Stub& scheduled_queries() { return *scheduled_queries_; }

  // A context for one unary call, with the configured deadline and token.
  std::unique_ptr<grpc::ClientContext> UnaryContext() const;
  // Adds the token (if any) to a context made elsewhere (streaming calls).
  void Authorize(grpc::ClientContext& context) const;

 private:
  Connection(const ConnectionOptions& options,
             std::shared_ptr<grpc::ChannelCredentials> credentials);

  ConnectionOptions options_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::CatalogService::Stub> catalog_;
  std::unique_ptr<v1::WriteService::Stub> write_;
  std::unique_ptr<v1::QueryService::Stub> query_;
  std::unique_ptr<v1::AuthService::Stub> auth_;
  std::unique_ptr<v1::BackupService::Stub> backup_;
  std::unique_ptr<v1::ClusterService::Stub> cluster_;
  std::unique_ptr<v1::ScheduledQueryService::Stub> scheduled_queries_;
};

// Prints `status` to stderr as "error: <message>" (with a hint when the
// server is unreachable) and returns the exit code for it.
ExitCode ReportRpcError(const grpc::Status& status, const Connection& connection);

}  // namespace strata::cli
