// ClusterService handlers: a cluster's node list (proto/strata/v1/cluster.proto). Admin
// only. The change itself is the cluster node's (cluster/cluster_node.h ChangeNodes); a
// single server has none and answers FAILED_PRECONDITION.
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

using RawClusterService =
    v1::ClusterService::WithRawCallbackMethod_ChangeNodes<v1::ClusterService::Service>;

class ClusterService final : public RawClusterService {
 public:
  // `auth` must outlive the service; `change` is empty on a single server.
  ClusterService(Authenticator* auth, ChangeClusterNodes change)
      : auth_(*auth), change_(std::move(change)) {}

  STRATA_SERVE_UNARY(ChangeNodes, v1::ChangeNodesRequest, v1::ChangeNodesResponse);

 private:
  Authenticator& auth_;
  const ChangeClusterNodes change_;
};

}  // namespace strata
