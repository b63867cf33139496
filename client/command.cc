#include "client/command.h"

#include <unistd.h>

#include <iostream>

namespace strata::cli {

Connection& CommandContext::connection() {
  if (!connection_) connection_ = std::make_unique<Connection>(options_);
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
