#include "cluster/shard_service.h"

#include <future>

#include "common/strings.h"

namespace strata::cluster {
namespace {

grpc::Status ToGrpc(const absl::Status& status) {
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()), std::string(status.message()));
}

}  // namespace

grpc::Status ShardServiceImpl::Write(grpc::ServerContext* context,
                                     const internal::v1::ShardWriteRequest* request,
                                     internal::v1::ShardWriteResponse* response) {
  if (grpc::Status member = directory_.membership().Check(*context); !member.ok()) {
    return member;
  }
  if (request->shard() >= directory_.shard_count()) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        StrCat("shard ", request->shard(), " does not exist"));
  }
  Replica* replica = directory_.LocalReplica(request->shard());
  if (replica == nullptr) {
    return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                        StrCat("node ", node_id_, " holds no replica of shard ", request->shard()));
  }
  std::promise<absl::StatusOr<WriteResult>> promise;
  auto result = promise.get_future();
  replica->Write(
      request->database_name(), request->table_name(), request->records(),
      request->catalog_revision(),
      [&promise](absl::StatusOr<WriteResult> r) { promise.set_value(std::move(r)); },
      request->erase());
  absl::StatusOr<WriteResult> written = result.get();
  if (!written.ok()) return ToGrpc(written.status());
  ToProto(*written, response);
  return grpc::Status::OK;
}

grpc::Status ShardServiceImpl::State(grpc::ServerContext* context,
                                     const internal::v1::ShardStateRequest* request,
                                     internal::v1::ShardStateResponse* response) {
  if (grpc::Status member = directory_.membership().Check(*context); !member.ok()) {
    return member;
  }
  response->set_node_id(node_id_);
  std::vector<uint32_t> shards(request->shards().begin(), request->shards().end());
  if (shards.empty()) {
    for (uint32_t s = 0; s < directory_.shard_count(); ++s) shards.push_back(s);
  }
  for (uint32_t shard : shards) {
    Replica* replica = shard < directory_.shard_count() ? directory_.LocalReplica(shard) : nullptr;
    if (replica == nullptr) continue;
    const ReplicaState state = replica->state();
    auto* out = response->add_shards();
    out->set_shard(shard);
    out->set_leader(replica->leading());
    out->set_epoch(replica->epoch());
    out->set_applied_sequence(state.applied);
    out->set_digest(state.digest);
  }
  return grpc::Status::OK;
}

}  // namespace strata::cluster
