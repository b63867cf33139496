// The internal service other nodes call (proto/strata/internal/v1/shard.proto): a shard
// leader's write door and each replica's applied state. Every call must come from a member
// (membership.h); anything else is refused before it is read.
#pragma once

#include <grpcpp/grpcpp.h>

#include "cluster/shard_router.h"
#include "strata/internal/v1/shard.grpc.pb.h"

namespace strata::cluster {

class ShardServiceImpl final : public internal::v1::ShardService::Service {
 public:
  ShardServiceImpl(ShardDirectory* directory, std::string node_id)
      : directory_(*directory), node_id_(std::move(node_id)) {}

  grpc::Status Write(grpc::ServerContext* context, const internal::v1::ShardWriteRequest* request,
                     internal::v1::ShardWriteResponse* response) override;
  grpc::Status State(grpc::ServerContext* context, const internal::v1::ShardStateRequest* request,
                     internal::v1::ShardStateResponse* response) override;

 private:
  ShardDirectory& directory_;
  const std::string node_id_;
};

}  // namespace strata::cluster
