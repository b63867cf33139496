#include "server/grpc/cluster_service.h"

#include "common/status.h"
#include "spdlog/spdlog.h"

namespace strata {

absl::Status ClusterService::ChangeNodes(const Principal& caller,
                                         const v1::ChangeNodesRequest* request,
                                         v1::ChangeNodesResponse* response) {
  RETURN_IF_ERROR(caller.RequireAdmin("change a cluster's nodes"));
  if (!change_) {
    return absl::FailedPreconditionError(
        "this server is not a cluster node (it runs without --cluster); it has no nodes to "
        "change");
  }
  const std::vector<std::string> add(request->add().begin(), request->add().end());
  const std::vector<std::string> remove(request->remove().begin(), request->remove().end());
  ASSIGN_OR_RETURN(std::vector<std::string> nodes, change_(add, remove));
  spdlog::info("cluster nodes changed by \"{}\" (add {}, remove {}): now {}", caller.name(),
               add.size(), remove.size(), nodes.size());
  for (std::string& node : nodes) response->add_nodes(std::move(node));
  return absl::OkStatus();
}

}  // namespace strata
