// What every `strata` subcommand shares: the connection options from the
// root command line, the connection made from them on first use, and the
// exit code the subcommand's callback leaves for main().
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "CLI/CLI.hpp"
#include "client/connection.h"
#include "client/exit_code.h"
#include "client/result_format.h"

namespace strata::cli {

class CommandContext {
 public:
  ConnectionOptions& options() { return options_; }
  // Made on first use, after the command line is parsed.
  Connection& connection();

  void set_exit_code(ExitCode code) { exit_code_ = code; }
  ExitCode exit_code() const { return exit_code_; }

 private:
  ConnectionOptions options_;
  std::unique_ptr<Connection> connection_;
  ExitCode exit_code_ = ExitCode::kOk;
};

// Calls one unary RPC of `stub` with the connection's deadline and token; on
// failure prints the error and records the exit code. True on success.
// A failure with `tolerated` (--if-not-exists: ALREADY_EXISTS, --if-exists:
// NOT_FOUND) is no failure: nothing is printed, and `*tolerated_hit` is set.
template <typename Stub, typename Request, typename Response>
bool CallUnary(CommandContext& context, Stub& stub,
               grpc::Status (Stub::*method)(grpc::ClientContext*, const Request&, Response*),
               const Request& request, Response& response,
               std::optional<grpc::StatusCode> tolerated = std::nullopt,
               bool* tolerated_hit = nullptr) {
  Connection& connection = context.connection();
  grpc::Status status = (stub.*method)(connection.UnaryContext().get(), request, &response);
  if (status.ok()) return true;
  if (tolerated && status.error_code() == *tolerated) {
    if (tolerated_hit != nullptr) *tolerated_hit = true;
    return false;
  }
  context.set_exit_code(ReportRpcError(status, connection));
  return false;
}

// A rejection reason as the CLI user needs it: where the server names an API
// field (magnetic_store_write_properties.enable_magnetic_store_writes), the
// command to run instead.
std::string CliRejectionHint(const std::string& reason, const std::string& database,
                             const std::string& table);

// Adds `--format` (table|csv|json|jsonl) to `command`. Without the flag the
// format is `table` on a terminal and `csv` otherwise.
void AddFormatOption(CLI::App& command, std::string& format);
// Resolves the flag; prints the error and returns nullopt when it is bad.
std::optional<OutputFormat> ResolveFormat(const std::string& format);

// When the command line's first word is not a command of `app` ("querry"):
// the message naming it and the closest command ("did you mean query?");
// else "".
std::string UnknownCommand(const CLI::App& app, int argc, char** argv);

// The check of a --timeout: a number of seconds above 0, said in those words
// (CLI11's PositiveNumber printed the range of a double).
CLI::Validator SecondsAboveZero();

// Each adds one group of subcommands to `app`.
void AddDatabaseCommands(CLI::App& app, CommandContext& context);
void AddTableCommands(CLI::App& app, CommandContext& context);
void AddWriteCommand(CLI::App& app, CommandContext& context);
void AddImportCommand(CLI::App& app, CommandContext& context);
void AddQueryCommand(CLI::App& app, CommandContext& context);
void AddShellCommand(CLI::App& app, CommandContext& context);
void AddHealthCommand(CLI::App& app, CommandContext& context);
void AddTokenCommands(CLI::App& app, CommandContext& context);
void AddBackupCommands(CLI::App& app, CommandContext& context);
void AddScheduledQueryCommands(CLI::App& app, CommandContext& context);
void AddClusterCommands(CLI::App& app, CommandContext& context);
// Last: it describes the commands added before it.
void AddCompletionCommand(CLI::App& app, CommandContext& context);

}  // namespace strata::cli
