// `strata cluster status`: the nodes of a cluster and its shards (leader, epoch, the end of
// each shard's log, what each node's replica applied and its lag), read from the system
// tables any cluster node answers (docs/cluster.md).
#include <iostream>

#include "client/command.h"
#include "client/interrupt.h"
#include "client/query_runner.h"

namespace strata::cli {

void AddClusterCommands(CLI::App& app, CommandContext& context) {
  CLI::App* cluster = app.add_subcommand("cluster", "A cluster's nodes and shards");
  cluster->require_subcommand(1);
  auto format = std::make_shared<std::string>();
  CLI::App* status = cluster->add_subcommand(
      "status",
      "Nodes, and per shard its leader, epoch, log end and each replica's applied "
      "sequence and lag");
  AddFormatOption(*status, *format);
  status->callback([&context, format] {
    auto resolved = ResolveFormat(*format);
    if (!resolved) return context.set_exit_code(ExitCode::kUsage);
    InterruptScope interrupt_scope;
    for (const char* sql :
         {"SELECT node_id, address FROM \"system\".\"cluster_nodes\" ORDER BY node_id",
          "SELECT shard, leader, epoch, log_sequence, node_id, applied_sequence, lag, digest "
          "FROM \"system\".\"cluster_shards\" ORDER BY shard, node_id"}) {
      auto writer = MakeResultWriter(*resolved, std::cout);
      QueryOutcome outcome = RunQuery(context.connection(), sql, *writer, 0, 0, "");
      if (outcome.interrupted) return context.set_exit_code(ExitCode::kInterrupted);
      if (!outcome.status.ok()) {
        if (outcome.status.error_message().find("cluster_nodes") != std::string::npos) {
          std::cerr << "error: this server is not a cluster node (it runs without --cluster)\n";
          return context.set_exit_code(ExitCode::kRequestFailed);
        }
        return context.set_exit_code(ReportRpcError(outcome.status, context.connection()));
      }
      std::cout << "\n";
    }
  });
}

}  // namespace strata::cli
