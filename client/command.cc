#include "client/command.h"

#include <unistd.h>

#include <cstdlib>
#include <iostream>

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

}  // namespace strata::cli
