// `strata cluster status`: the nodes of a cluster and its shards (leader, epoch, the end of
// each shard's log, what each node's replica applied and its lag, its placement), read from
// the system tables any cluster node answers (docs/cluster.md). `strata cluster add-node|
// remove-node|rebalance`: the cluster's node list (ClusterService), which the placement
// controller then moves replicas toward. `strata cluster backup|restore`: the whole
// cluster's backup into a directory on a node's machine, and its restore into a new cluster.
#include <iostream>

#include "client/command.h"
#include "client/interrupt.h"
#include "client/query_runner.h"

namespace strata::cli {
namespace {

// Adds the subcommand `name` that changes the node list: `ids` added or removed.
void AddNodeListCommand(CLI::App& cluster, CommandContext& context, const std::string& name,
                        const std::string& description, bool add) {
  auto ids = std::make_shared<std::vector<std::string>>();
  CLI::App* command = cluster.add_subcommand(name, description);
  if (!name.starts_with("rebalance")) {
    command->add_option("node_id", *ids, "Node ids (stratad --node-id)")->required();
  }
  command->callback([&context, ids, add] {
    v1::ChangeNodesRequest request;
    for (const std::string& id : *ids) *(add ? request.add_add() : request.add_remove()) = id;
    v1::ChangeNodesResponse response;
    if (!CallUnary(context, context.connection().cluster(), &v1::ClusterService::Stub::ChangeNodes,
                   request, response)) {
      return;
    }
    std::cout << "the cluster's nodes: ";
    for (int i = 0; i < response.nodes_size(); ++i) {
      std::cout << (i == 0 ? "" : ", ") << response.nodes(i);
    }
    std::cout << "\nreplicas move there a few shards at a time; follow with: strata cluster "
                 "status\n";
  });
}

// A call that takes as long as the data does: a day's deadline (Ctrl-C stops waiting).
std::unique_ptr<grpc::ClientContext> LongCall(CommandContext& context) {
  auto call = std::make_unique<grpc::ClientContext>();
  call->set_deadline(std::chrono::system_clock::now() + std::chrono::hours(24));
  context.connection().Authorize(*call);
  return call;
}

// Adds `backup --to DIR` and `restore --from DIR`: a whole cluster's, on the machine of the
// node called. They take as long as the data does (no 30 s deadline); Ctrl-C stops waiting.
void AddClusterBackupCommands(CLI::App& cluster, CommandContext& context) {
  auto to = std::make_shared<std::string>();
  CLI::App* backup = cluster.add_subcommand(
      "backup", "Back up every database, table and row of the cluster (admin token)");
  backup->add_option("--to", *to, "Directory on the node's machine (absolute path)")->required();
  backup->callback([&context, to] {
    v1::BackupClusterRequest request;
    request.set_directory(*to);
    v1::BackupClusterResponse response;
    InterruptScope interrupt_scope;
    grpc::Status status =
        context.connection().cluster().BackupCluster(LongCall(context).get(), request, &response);
    if (!status.ok()) return context.set_exit_code(ReportRpcError(status, context.connection()));
    std::cout << "backed up " << response.rows() << " rows of " << response.tables()
              << " tables in " << response.databases() << " databases from " << response.shards()
              << " shards, " << response.tokens() << " tokens and " << response.scheduled_queries()
              << " scheduled queries into " << *to << " (" << response.bytes()
              << " bytes); restore into a new cluster with: strata cluster restore --from " << *to
              << "\n";
  });
  auto from = std::make_shared<std::string>();
  CLI::App* restore = cluster.add_subcommand(
      "restore", "Restore a cluster backup into this cluster, which holds no database yet");
  restore->add_option("--from", *from, "Backup directory on the node's machine")->required();
  auto without_tokens = std::make_shared<bool>(false);
  restore->add_flag("--without-tokens", *without_tokens,
                    "Leave the backup's tokens out (this cluster's own stay the only ones)");
  restore->callback([&context, from, without_tokens] {
    v1::RestoreClusterRequest request;
    request.set_directory(*from);
    request.set_without_tokens(*without_tokens);
    v1::RestoreClusterResponse response;
    InterruptScope interrupt_scope;
    grpc::Status status =
        context.connection().cluster().RestoreCluster(LongCall(context).get(), request, &response);
    if (!status.ok()) return context.set_exit_code(ReportRpcError(status, context.connection()));
    std::cout << "restored " << response.databases() << " databases, " << response.tables()
              << " tables, " << response.rows() << " rows, " << response.tokens() << " tokens and "
              << response.scheduled_queries() << " scheduled queries";
    if (response.expired() > 0) {
      std::cout << " (" << response.expired() << " more rows are past their table's retention "
                << "now and were left out)";
    }
    std::cout << "\n";
    if (response.tokens_not_restored_size() > 0) {
      std::cout << "not restored, a token of this cluster holds the name:";
      for (const std::string& name : response.tokens_not_restored()) std::cout << " " << name;
      std::cout << " (give their users new tokens: strata token create NAME --grant ...)\n";
    }
  });
}

}  // namespace

void AddClusterCommands(CLI::App& app, CommandContext& context) {
  CLI::App* cluster = app.add_subcommand("cluster", "A cluster's nodes and shards");
  cluster->require_subcommand(1);
  auto format = std::make_shared<std::string>();
  CLI::App* status = cluster->add_subcommand(
      "status",
      "Nodes, and per shard its leader, epoch, log start and end and each replica's applied "
      "sequence and lag");
  AddFormatOption(*status, *format);
  status->callback([&context, format] {
    auto resolved = ResolveFormat(*format);
    if (!resolved) return context.set_exit_code(ExitCode::kUsage);
    InterruptScope interrupt_scope;
    for (const char* sql :
         {"SELECT node_id, address FROM \"system\".\"cluster_nodes\" ORDER BY node_id",
          "SELECT shard, leader, epoch, log_first_sequence, log_sequence, placement, node_id, "
          "applied_sequence, lag, "
          "digest FROM \"system\".\"cluster_shards\" ORDER BY shard, node_id"}) {
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
  AddNodeListCommand(*cluster, context, "add-node",
                     "Add nodes to the cluster's list: shard replicas move onto them", true);
  AddNodeListCommand(*cluster, context, "remove-node",
                     "Take nodes off the cluster's list: their replicas move to the others", false);
  AddNodeListCommand(*cluster, context, "rebalance",
                     "Spread the shard replicas evenly over the listed nodes", true);
  AddClusterBackupCommands(*cluster, context);
}

}  // namespace strata::cli
