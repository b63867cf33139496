#include "client/command.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <set>

#include "absl/strings/str_cat.h"
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

namespace {

// The option `name` ("--port", "-p") of `app` or of a command above it
// (their options may come after a subcommand: fallthrough), or null.
const CLI::Option* FindOption(const CLI::App* app, const std::string& name) {
  for (; app != nullptr; app = app->get_parent()) {
    if (const CLI::Option* option = app->get_option_no_throw(name)) return option;
  }
  return nullptr;
}

std::string SuggestOption(const CLI::App* app, const std::string& name) {
  std::vector<std::string> names;
  for (; app != nullptr; app = app->get_parent()) {
    for (const CLI::Option* option : app->get_options()) {
      for (const std::string& l : option->get_lnames()) names.push_back("--" + l);
    }
  }
  std::vector<std::string_view> candidates(names.begin(), names.end());
  return NearestName(name, candidates);
}

}  // namespace

std::string UnknownCommand(const CLI::App& app, int argc, char** argv) {
  // Walks the words as CLI11 would: options (skipping the value of one that
  // takes a value) and subcommands, down to the first word that is neither.
  const CLI::App* current = &app;
  std::string path = "strata";
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--") return "";
    if (arg.size() > 1 && arg[0] == '-') {
      const std::string name = arg.substr(0, arg.find('='));
      const CLI::Option* option = FindOption(current, name);
      if (option == nullptr) {
        std::string message = absl::StrCat(path, ": unknown option ", name);
        if (std::string nearest = SuggestOption(current, name); !nearest.empty()) {
          message += "; did you mean " + nearest + "?";
        }
        return message + " (" + path + " --help lists the options)";
      }
      if (arg.find('=') == std::string::npos && option->get_expected_min() > 0) ++i;
      continue;
    }
    const std::vector<const CLI::App*> commands =
        current->get_subcommands([](const CLI::App*) { return true; });
    if (commands.empty()) return "";  // a command's own arguments
    std::vector<std::string_view> names;
    const CLI::App* next = nullptr;
    for (const CLI::App* command : commands) {
      names.push_back(command->get_name());
      if (command->get_name() == arg) next = command;
    }
    if (next == nullptr) {
      std::string message = absl::StrCat(path, ": unknown command \"", arg, "\"");
      if (std::string nearest = NearestName(arg, names); !nearest.empty()) {
        message += "; did you mean " + nearest + "?";
      }
      return message + " (" + path + " --help lists the commands)";
    }
    current = next;
    path += " " + arg;
  }
  return "";
}

CLI::Validator SecondsAboveZero() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        char* end = nullptr;
        const double seconds = std::strtod(value.c_str(), &end);
        if (!value.empty() && *end == '\0' && seconds > 0 && std::isfinite(seconds)) return "";
        return "takes a number of seconds above 0, such as 30 or 0.5 (not \"" + value + "\")";
      },
      "SECONDS");
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
