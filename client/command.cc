#include "client/command.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <set>

#include "common/suggest.h"

namespace strata::cli {

Connection& CommandContext::connection() {
  if (!connection_) {
    auto opened = Connection::Open(options_);
    if (!opened.ok()) {
      // Nothing was sent; every subcommand would report this the same way.
      std::cerr << "error: " << opened.status().message() << "\n";
      std::exit(ToInt(ExitCode::kUsage));
    }
    connection_ = *std::move(opened);
  }
  return *connection_;
}

void AddFormatOption(CLI::App& command, std::string& format) {
  command.add_option("--format,-f", format,
                     "Output format: table, csv, json or jsonl (default: table on a terminal, "
                     "csv otherwise)");
}

std::optional<OutputFormat> ResolveFormat(const std::string& format) {
  if (format.empty()) return isatty(STDOUT_FILENO) ? OutputFormat::kTable : OutputFormat::kCsv;
  auto parsed = ParseOutputFormat(format);
  if (!parsed.ok()) {
    std::cerr << "error: " << parsed.status().message() << "\n";
    return std::nullopt;
  }
  return *parsed;
}

std::string UnknownCommand(const CLI::App& app, int argc, char** argv) {
  // The global options that take a value (main.cc), so their values are skipped.
  static const std::set<std::string> kWithValue = {"--host", "-H", "--port", "-p", "--timeout",
                                                   "--token", "--tls-ca", "--tls-cert",
                                                   "--tls-key", "--tls-server-name"};
  std::string word;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (kWithValue.count(arg) != 0) {
      ++i;
      continue;
    }
    if (!arg.empty() && arg[0] == '-') continue;
    word = arg;
    break;
  }
  if (word.empty()) return "";
  std::vector<std::string> names;
  for (const CLI::App* command : app.get_subcommands([](const CLI::App*) { return true; })) {
    names.push_back(command->get_name());
  }
  if (std::find(names.begin(), names.end(), word) != names.end()) return "";
  std::vector<std::string_view> candidates(names.begin(), names.end());
  const std::string nearest = NearestName(word, candidates);
  std::string message = "strata: unknown command \"" + word + "\"";
  if (!nearest.empty()) message += "; did you mean " + nearest + "?";
  return message + " (strata --help lists the commands)";
}

std::string CliRejectionHint(const std::string& reason, const std::string& database,
                             const std::string& table) {
  static constexpr std::string_view kApi =
      "UpdateTable with magnetic_store_write_properties.enable_magnetic_store_writes";
  const size_t at = reason.find(kApi);
  if (at == std::string::npos) return reason;
  return reason.substr(0, at) + "strata table update " + database + " " + table +
         " --magnetic-writes true" + reason.substr(at + kApi.size());
}

}  // namespace strata::cli
