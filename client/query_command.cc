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
  std::string read;  // empty: the node's
  int64_t max_staleness_ms = 0;
  int max_fragments = 0;
  int64_t hedge_after_ms = 0;
};

v1::ReadOptions ReadOptionsOf(const QueryArgs& args) {
  v1::ReadOptions read;
  if (args.read == "leader") read.set_consistency(v1::READ_CONSISTENCY_LEADER);
  if (args.read == "strong") read.set_consistency(v1::READ_CONSISTENCY_STRONG);
  if (args.read == "follower") read.set_consistency(v1::READ_CONSISTENCY_FOLLOWER);
  read.set_max_staleness_millis(args.max_staleness_ms);
  read.set_max_fragments(args.max_fragments);
  read.set_hedge_after_millis(args.hedge_after_ms);
  return read;
}

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
  command->add_option("--read", args->read,
                      "On a cluster: where each shard is read — leader (every acknowledged "
                      "write), strong (a replica once it applied its log to the end) or follower "
                      "(a replica current within --max-staleness-ms) [default: the node's]")
      ->check(CLI::IsMember({"leader", "strong", "follower"}));
  command->add_option("--max-staleness-ms", args->max_staleness_ms,
                      "On a cluster: how old a follower read's data may be [default: the node's]")
      ->check(CLI::Range(int64_t{1}, int64_t{3'600'000}));
  command->add_option("--max-fragments", args->max_fragments,
                      "On a cluster: fragments of one table read at once [default: 8]")
      ->check(CLI::Range(1, 64));
  command->add_option("--hedge-after-ms", args->hedge_after_ms,
                      "On a cluster: ask another node for a fragment whose node has not "
                      "answered after this long [default: the node's]")
      ->check(CLI::Range(int64_t{1}, int64_t{3'600'000}));
  command->callback([&context, args] {
    auto format = ResolveFormat(args->format);
    if (!format) return context.set_exit_code(ExitCode::kUsage);
    if (args->sql == "-") {
      args->sql.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    }
    auto writer = MakeResultWriter(*format, std::cout, args->header == "types");
    InterruptScope interrupt_scope;
    QueryOutcome outcome = RunQuery(context.connection(), args->sql, *writer, args->page_size,
                                    args->timeout_seconds, args->database,
                                    ReadOptionsOf(*args));
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
