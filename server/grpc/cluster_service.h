// ClusterService handlers: a cluster's node list, its backups and their restore
// (proto/strata/v1/cluster.proto). Admin only. The work is the cluster node's
// (cluster/cluster_node.h ChangeNodes, cluster/cluster_backups.h); a single server has none
// and answers FAILED_PRECONDITION.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "server/grpc/unary.h"
#include "strata/v1/cluster.grpc.pb.h"

namespace strata {

// Adds and removes node ids; returns the list after.
using ChangeClusterNodes = std::function<absl::StatusOr<std::vector<std::string>>(
    const std::vector<std::string>& add, const std::vector<std::string>& remove)>;

// What a cluster node does for the service; all empty on a single server.
struct ClusterOperations {
  ChangeClusterNodes change_nodes;
  // Backs the cluster up into, or restores it from, a directory on the node's machine.
  std::function<absl::Status(const std::string& dir, v1::BackupClusterResponse* response)> backup;
  std::function<absl::Status(const v1::RestoreClusterRequest& request,
                             v1::RestoreClusterResponse* response)>
      restore;
};

using RawClusterService =
    v1::ClusterService::WithRawMethod_ChangeNodes<v1::ClusterService::WithRawMethod_BackupCluster<
        v1::ClusterService::WithRawMethod_RestoreCluster<v1::ClusterService::Service>>>;

class ClusterService final : public RawClusterService {
 public:
  // `auth` must outlive the service.
  ClusterService(Authenticator* auth, ClusterOperations operations)
      : auth_(*auth), operations_(std::move(operations)) {}

  // Serves every method on `queues` (which must outlive their calls) once the
  // server is built.
  void Serve(CallQueues* queues);
  STRATA_SERVE_UNARY(ChangeNodes, v1::ChangeNodesRequest, v1::ChangeNodesResponse);
  STRATA_SERVE_UNARY(BackupCluster, v1::BackupClusterRequest, v1::BackupClusterResponse);
  STRATA_SERVE_UNARY(RestoreCluster, v1::RestoreClusterRequest, v1::RestoreClusterResponse);

 private:
  Authenticator& auth_;
  const ClusterOperations operations_;
};

}  // namespace strata
