// How the CLI reaches stratad: connection options (flags and STRATA_HOST /
// STRATA_PORT), one channel with a stub per service, and the one place that
// turns a failed RPC into a printed message and an exit code.
#pragma once

#include <memory>
#include <string>

#include "client/exit_code.h"
#include "grpcpp/grpcpp.h"
#include "strata/v1/catalog.grpc.pb.h"
#include "strata/v1/query.grpc.pb.h"
#include "strata/v1/write.grpc.pb.h"

namespace strata::cli {

struct ConnectionOptions {
  std::string host = "127.0.0.1";
  int port = 7878;
  // Deadline of each unary call; queries use the server's query timeout.
  double timeout_seconds = 30;
};

class Connection {
 public:
  explicit Connection(const ConnectionOptions& options);

  const ConnectionOptions& options() const { return options_; }
  std::string target() const;
  const std::shared_ptr<grpc::Channel>& channel() const { return channel_; }
  v1::CatalogService::Stub& catalog() { return *catalog_; }
  v1::WriteService::Stub& write() { return *write_; }
  v1::QueryService::Stub& query() { return *query_; }

  // A context for one unary call, with the configured deadline.
  std::unique_ptr<grpc::ClientContext> UnaryContext() const;

 private:
  ConnectionOptions options_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::CatalogService::Stub> catalog_;
  std::unique_ptr<v1::WriteService::Stub> write_;
  std::unique_ptr<v1::QueryService::Stub> query_;
};

// Prints `status` to stderr as "error: <message>" (with a hint when the
// server is unreachable) and returns the exit code for it.
ExitCode ReportRpcError(const grpc::Status& status, const Connection& connection);

}  // namespace strata::cli
