#include "client/connection.h"

#include <chrono>
#include <fstream>
#include <iostream>
#include <sstream>

#include "absl/strings/str_cat.h"

namespace strata::cli {
namespace {

absl::StatusOr<std::string> ReadPem(const std::string& flag, const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    return absl::InvalidArgumentError(absl::StrCat(flag, " ", path, ": cannot be read"));
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

absl::StatusOr<std::unique_ptr<Connection>> Connection::Open(const ConnectionOptions& options) {
  std::shared_ptr<grpc::ChannelCredentials> credentials = grpc::InsecureChannelCredentials();
  if (options.UsesTls()) {
    if (options.tls_cert.empty() != options.tls_key.empty()) {
      return absl::InvalidArgumentError("--tls-cert and --tls-key go together: give both");
    }
    grpc::SslCredentialsOptions ssl;
    if (!options.tls_ca.empty()) {
      auto ca = ReadPem("--tls-ca", options.tls_ca);
      if (!ca.ok()) return ca.status();
      ssl.pem_root_certs = *ca;
    }
    if (!options.tls_cert.empty()) {
      auto cert = ReadPem("--tls-cert", options.tls_cert);
      if (!cert.ok()) return cert.status();
      auto key = ReadPem("--tls-key", options.tls_key);
      if (!key.ok()) return key.status();
      ssl.pem_cert_chain = *cert;
      ssl.pem_private_key = *key;
    }
    credentials = grpc::SslCredentials(ssl);
  }
  return std::unique_ptr<Connection>(new Connection(options, std::move(credentials)));
}

Connection::Connection(const ConnectionOptions& options,
                       std::shared_ptr<grpc::ChannelCredentials> credentials)
    : options_(options) {
  grpc::ChannelArguments args;
  // Query pages and import batches can be large; the server enforces its own cap.
  args.SetMaxReceiveMessageSize(64 << 20);
  args.SetMaxSendMessageSize(64 << 20);
  if (!options.tls_server_name.empty()) {
    args.SetSslTargetNameOverride(options.tls_server_name);
  }
  channel_ = grpc::CreateCustomChannel(target(), std::move(credentials), args);
  catalog_ = v1::CatalogService::NewStub(channel_);
  write_ = v1::WriteService::NewStub(channel_);
  query_ = v1::QueryService::NewStub(channel_);
  auth_ = v1::AuthService::NewStub(channel_);
  backup_ = v1::BackupService::NewStub(channel_);
  cluster_ = v1::ClusterService::NewStub(channel_);
  scheduled_queries_ = v1::ScheduledQueryService::NewStub(channel_);
}

void Connection::Authorize(grpc::ClientContext& context) const {
  if (!options_.token.empty()) context.AddMetadata("authorization", "Bearer " + options_.token);
}

std::string Connection::target() const {
  // A bare IPv6 literal needs brackets in a gRPC target.
  if (options_.host.find(':') != std::string::npos && options_.host.front() != '[') {
    return "[" + options_.host + "]:" + std::to_string(options_.port);
  }
  return options_.host + ":" + std::to_string(options_.port);
}

std::unique_ptr<grpc::ClientContext> Connection::UnaryContext() const {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(std::chrono::system_clock::now() +
                        std::chrono::milliseconds(static_cast<int64_t>(options_.timeout_seconds * 1000)));
  Authorize(*context);
  return context;
}

ExitCode ReportRpcError(const grpc::Status& status, const Connection& connection) {
  switch (status.error_code()) {
    case grpc::StatusCode::UNAVAILABLE:
      std::cerr << "error: cannot reach stratad at " << connection.target() << ": "
                << status.error_message()
                << "\nhint: is the server running? Set the address with --host/--port or "
                   "STRATA_HOST/STRATA_PORT."
                << (connection.options().UsesTls()
                        ? " Does the server speak TLS, and does --tls-ca trust its certificate?"
                        : " If the server uses TLS, pass --tls-ca (STRATA_TLS_CA) or --tls.")
                << "\n";
      return ExitCode::kUnavailable;
    case grpc::StatusCode::UNAUTHENTICATED:
      std::cerr << "error: " << status.error_message() << "\n";
      return ExitCode::kRequestFailed;
    case grpc::StatusCode::CANCELLED:
      std::cerr << "cancelled: " << status.error_message() << "\n";
      return ExitCode::kInterrupted;
    default:
      std::cerr << "error: " << status.error_message() << "\n";
      return ExitCode::kRequestFailed;
  }
}

}  // namespace strata::cli
