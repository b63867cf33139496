// strata: the command-line client of stratad. Subcommands for the catalog,
// writes, imports, queries, an interactive shell and a health check; see
// docs/cli.md. Exit codes are in client/exit_code.h.
#include <cstdlib>
#include <iostream>

#include "CLI/CLI.hpp"
#include "client/command.h"
#include "client/interrupt.h"
#include "common/process_setup.h"
#include "grpc/grpc.h"

int main(int argc, char** argv) {
  using strata::cli::ExitCode;
  strata::SkipMutexDeadlockDetection();
  strata::cli::InstallInterruptHandling();
  // A reference to gRPC's library held to the end, so the channel's destructor does not run
  // its shutdown: that joins gRPC's executor thread, which may be parked on a timer for
  // seconds (an import into a cluster that took 3 s exited 7 s after it). The process ends
  // right after; nothing of gRPC needs releasing.
  grpc_init();

  CLI::App app{"strata: the command-line client of the Strata time-series database", "strata"};
  app.set_version_flag("--version", "strata 0.1.0");
  app.require_subcommand(1);
  app.fallthrough();  // connection flags may come after the subcommand too
  strata::cli::CommandContext context;
  strata::cli::ConnectionOptions& options = context.options();
  app.add_option("--host,-H", options.host, "Server address")
      ->envname("STRATA_HOST")
      ->capture_default_str();
  app.add_option("--port,-p", options.port, "Server port")
      ->envname("STRATA_PORT")
      ->check(CLI::Range(1, 65535))
      ->capture_default_str();
  app.add_option("--timeout", options.timeout_seconds,
                 "Seconds to wait for each catalog or write call")
      ->check(strata::cli::SecondsAboveZero())
      ->capture_default_str();
  app.add_option("--token", options.token,
                 "Bearer token for servers with authentication (see `strata token`)")
      ->envname("STRATA_TOKEN");
  app.add_flag("--tls", options.tls, "Connect over TLS, trusting the system's CAs")
      ->envname("STRATA_TLS");
  app.add_option("--tls-ca", options.tls_ca, "PEM CA bundle to trust (implies --tls)")
      ->envname("STRATA_TLS_CA");
  app.add_option("--tls-cert", options.tls_cert,
                 "PEM client certificate, for servers that require one (implies --tls)")
      ->envname("STRATA_TLS_CLIENT_CERT");
  app.add_option("--tls-key", options.tls_key, "PEM private key of --tls-cert")
      ->envname("STRATA_TLS_CLIENT_KEY");
  app.add_option("--tls-server-name", options.tls_server_name,
                 "Name to check the server's certificate against (default: --host)")
      ->envname("STRATA_TLS_SERVER_NAME");

  strata::cli::AddDatabaseCommands(app, context);
  strata::cli::AddTableCommands(app, context);
  strata::cli::AddWriteCommand(app, context);
  strata::cli::AddImportCommand(app, context);
  strata::cli::AddQueryCommand(app, context);
  strata::cli::AddShellCommand(app, context);
  strata::cli::AddHealthCommand(app, context);
  strata::cli::AddTokenCommands(app, context);
  strata::cli::AddBackupCommands(app, context);
  strata::cli::AddScheduledQueryCommands(app, context);
  strata::cli::AddClusterCommands(app, context);
  strata::cli::AddCompletionCommand(app, context);

  if (argc == 1) {  // bare `strata`: what it can do, as `strata --help` says it
    std::cout << app.help();
    return 0;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);  // --help, --version
  } catch (const CLI::ParseError& e) {
    if (std::string unknown = strata::cli::UnknownCommand(app, argc, argv); !unknown.empty()) {
      std::cerr << unknown << "\n";
      return ToInt(ExitCode::kUsage);
    }
    app.exit(e);
    return ToInt(ExitCode::kUsage);
  }
  return ToInt(context.exit_code());
}
