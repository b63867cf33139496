// `strata query "SQL"`: one statement, results streamed to stdout.
#include <iostream>
#include <iterator>

#include "client/command.h"
#include "client/interrupt.h"
#include "client/query_runner.h"

namespace strata::cli {
namespace {

struct QueryArgs {
  std::string sql;
  std::string format;
  bool stats = false;
  int page_size = 0;
  double timeout_seconds = 0;
  std::string database;
  std::string header = "names";
};

}  // namespace

void AddQueryCommand(CLI::App& app, CommandContext& context) {
  auto args = std::make_shared<QueryArgs>();
  CLI::App* command = app.add_subcommand("query", "Run one SQL statement and print its result");
  command->add_option("sql", args->sql, "The statement, or - to read it from standard input")
      ->required();
  AddFormatOption(*command, args->format);
  command->add_flag("--stats", args->stats, "Print the query statistics to stderr afterwards");
  command->add_option("--page-size", args->page_size, "Rows per streamed page (default 1000)");
  command->add_option("--timeout", args->timeout_seconds,
                      "Seconds the query may run before the server stops it (default: the "
                      "server's --query-timeout-seconds)")
      ->check(SecondsAboveZero());
  command->add_option("--header", args->header,
                      "CSV's header: names, or types (name:kind, which strata import reads "
                      "back: time, dimension, measure_name, double, bigint, ...)")
      ->check(CLI::IsMember({"names", "types"}))
      ->capture_default_str();
  command->add_option("--database,-d", args->database,
                      "Database of table names written without one (FROM cpu)")
      ->envname("STRATA_DATABASE");
  command->callback([&context, args] {
    auto format = ResolveFormat(args->format);
    if (!format) return context.set_exit_code(ExitCode::kUsage);
    if (args->sql == "-") {
      args->sql.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    }
    auto writer = MakeResultWriter(*format, std::cout, args->header == "types");
    InterruptScope interrupt_scope;
    QueryOutcome outcome = RunQuery(context.connection(), args->sql, *writer, args->page_size,
                                    args->timeout_seconds, args->database);
    if (outcome.interrupted) {
      std::cerr << "query cancelled\n";
      return context.set_exit_code(ExitCode::kInterrupted);
    }
    if (!outcome.status.ok()) {
      return context.set_exit_code(ReportRpcError(outcome.status, context.connection()));
    }
    if (args->stats && outcome.has_statistics) {
      std::cerr << StatisticsText(outcome.statistics) << "\n";
    }
  });
}

}  // namespace strata::cli
