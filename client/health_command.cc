// `strata health`: asks the standard gRPC health service; exit 0 when the
// server reports SERVING. The container healthcheck runs it.
#include <iostream>

#include "client/command.h"
#include "grpc/health/v1/health.grpc.pb.h"

namespace strata::cli {

void AddHealthCommand(CLI::App& app, CommandContext& context) {
  auto service = std::make_shared<std::string>();
  CLI::App* command = app.add_subcommand(
      "health", "Check that the server is up and serving (exit 0 if SERVING, 1 if not, 3 if "
                "unreachable)");
  command->add_option("--service", *service,
                      "A service to check, e.g. strata.v1.QueryService (default: the server)");
  command->callback([&context, service] {
    Connection& connection = context.connection();
    auto stub = grpc::health::v1::Health::NewStub(connection.channel());
    grpc::health::v1::HealthCheckRequest request;
    request.set_service(*service);
    grpc::health::v1::HealthCheckResponse response;
    grpc::Status status = stub->Check(connection.UnaryContext().get(), request, &response);
    if (!status.ok()) return context.set_exit_code(ReportRpcError(status, connection));
    std::cout << grpc::health::v1::HealthCheckResponse::ServingStatus_Name(response.status())
              << "\n";
    if (response.status() != grpc::health::v1::HealthCheckResponse::SERVING) {
      context.set_exit_code(ExitCode::kRequestFailed);
    }
  });
}

}  // namespace strata::cli
