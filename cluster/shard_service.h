// The internal service other nodes call (proto/strata/internal/v1/shard.proto): a shard
// leader's write door, each replica's applied state, and the fragments of other nodes' queries.
// Every call must come from a member (membership.h); anything else is refused before it is read.
#pragma once

#include <grpcpp/grpcpp.h>

#include "cluster/shard_reads.h"
#include "cluster/slots.h"
#include "cluster/shard_router.h"
#include "strata/internal/v1/shard.grpc.pb.h"

namespace strata::cluster {

// Fragments of other nodes' queries this node runs at once; more wait for a slot (their
// queries were admitted by their own nodes' runners, not this one's).
inline constexpr int kMaxServedFragments = 16;

class ShardServiceImpl final : public internal::v1::ShardService::Service {
 public:
  // All must outlive the service.
  ShardServiceImpl(ShardDirectory* directory, ClusterShardReads* reads, std::string node_id)
      : directory_(*directory), reads_(*reads), node_id_(std::move(node_id)) {}

  grpc::Status Write(grpc::ServerContext* context, const internal::v1::ShardWriteRequest* request,
                     internal::v1::ShardWriteResponse* response) override;
  grpc::Status State(grpc::ServerContext* context, const internal::v1::ShardStateRequest* request,
                     internal::v1::ShardStateResponse* response) override;
  grpc::Status Scan(grpc::ServerContext* context, const internal::v1::ScanRequest* request,
                    grpc::ServerWriter<internal::v1::ScanResponse>* writer) override;

 private:
  ShardDirectory& directory_;
  ClusterShardReads& reads_;
  const std::string node_id_;
  Slots fragments_{kMaxServedFragments};  // fragments running here for other nodes
};

}  // namespace strata::cluster
