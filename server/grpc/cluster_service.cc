#include "server/grpc/cluster_service.h"

#include "common/status.h"
#include "spdlog/spdlog.h"

namespace strata {

absl::Status ClusterService::ChangeNodes(const Principal& caller,
                                         const v1::ChangeNodesRequest* request,
                                         v1::ChangeNodesResponse* response) {
  RETURN_IF_ERROR(caller.RequireAdmin("change a cluster's nodes"));
  if (!operations_.change_nodes) {
    return absl::FailedPreconditionError(
        "this server is not a cluster node (it runs without --cluster); it has no nodes to "
        "change");
  }
  const std::vector<std::string> add(request->add().begin(), request->add().end());
  const std::vector<std::string> remove(request->remove().begin(), request->remove().end());
  ASSIGN_OR_RETURN(std::vector<std::string> nodes, operations_.change_nodes(add, remove));
  spdlog::info("cluster nodes changed by \"{}\" (add {}, remove {}): now {}", caller.name(),
               add.size(), remove.size(), nodes.size());
  for (std::string& node : nodes) response->add_nodes(std::move(node));
  return absl::OkStatus();
}

absl::Status ClusterService::BackupCluster(const Principal& caller,
                                           const v1::BackupClusterRequest* request,
                                           v1::BackupClusterResponse* response) {
  RETURN_IF_ERROR(caller.RequireAdmin("back up a cluster"));
  if (!operations_.backup) {
    return absl::FailedPreconditionError(
        "this server is not a cluster node (it runs without --cluster); back it up with "
        "`strata backup create`");
  }
  RETURN_IF_ERROR(operations_.backup(request->directory(), response));
  spdlog::info("cluster backed up by \"{}\" into {}: {} rows", caller.name(), request->directory(),
               response->rows());
  return absl::OkStatus();
}

absl::Status ClusterService::RestoreCluster(const Principal& caller,
                                            const v1::RestoreClusterRequest* request,
                                            v1::RestoreClusterResponse* response) {
  RETURN_IF_ERROR(caller.RequireAdmin("restore a cluster"));
  if (!operations_.restore) {
    return absl::FailedPreconditionError(
        "this server is not a cluster node (it runs without --cluster); restore a single "
        "server with `stratad --restore-from`");
  }
  RETURN_IF_ERROR(operations_.restore(*request, response));
  spdlog::info("cluster restored by \"{}\" from {}: {} rows", caller.name(), request->directory(),
               response->rows());
  return absl::OkStatus();
}

void ClusterService::Serve(CallQueues* queues) {
  ServeUnary(queues, auth_, this, &ClusterService::RequestChangeNodes,
             &ClusterService::ChangeNodes);
  ServeUnary(queues, auth_, this, &ClusterService::RequestBackupCluster,
             &ClusterService::BackupCluster);
  ServeUnary(queues, auth_, this, &ClusterService::RequestRestoreCluster,
             &ClusterService::RestoreCluster);
}

}  // namespace strata
