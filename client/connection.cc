#include "client/connection.h"

#include <chrono>
#include <iostream>

namespace strata::cli {

Connection::Connection(const ConnectionOptions& options) : options_(options) {
  grpc::ChannelArguments args;
  // Query pages and import batches can be large; the server enforces its own cap.
  args.SetMaxReceiveMessageSize(64 << 20);
  args.SetMaxSendMessageSize(64 << 20);
  channel_ = grpc::CreateCustomChannel(target(), grpc::InsecureChannelCredentials(), args);
  catalog_ = v1::CatalogService::NewStub(channel_);
  write_ = v1::WriteService::NewStub(channel_);
  query_ = v1::QueryService::NewStub(channel_);
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
  return context;
}

ExitCode ReportRpcError(const grpc::Status& status, const Connection& connection) {
  switch (status.error_code()) {
    case grpc::StatusCode::UNAVAILABLE:
      std::cerr << "error: cannot reach stratad at " << connection.target() << ": "
                << status.error_message()
                << "\nhint: is the server running? Set the address with --host/--port or "
                   "STRATA_HOST/STRATA_PORT.\n";
      return ExitCode::kUnavailable;
    case grpc::StatusCode::CANCELLED:
      std::cerr << "cancelled: " << status.error_message() << "\n";
      return ExitCode::kInterrupted;
    default:
      std::cerr << "error: " << status.error_message() << "\n";
      return ExitCode::kRequestFailed;
  }
}

}  // namespace strata::cli
