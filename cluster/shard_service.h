// The internal service other nodes call (proto/strata/internal/v1/shard.proto): a shard
// leader's write door, each replica's applied state, the fragments of other nodes' queries, and
// checkpoints for new replicas.
// Every call must come from a member (membership.h); anything else is refused before it is read.
#pragma once

#include <grpcpp/grpcpp.h>

#include <chrono>

#include "cluster/shard_reads.h"
#include "cluster/shard_router.h"
#include "cluster/slots.h"
#include "rpc/call_queues.h"
#include "rpc/streaming_call.h"
#include "strata/internal/v1/shard.grpc.pb.h"

namespace strata::cluster {

// Fragments of other nodes' queries this node runs at once; more wait for a slot (their
// queries were admitted by their own nodes' runners, not this one's).
inline constexpr int kMaxServedFragments = 16;
// Checkpoints this node sends at once (each a scan of a shard's rows and a stream to the node
// building a replica); more wait for one, at most 30 s.
inline constexpr int kMaxServedCheckpoints = 2;

// Every method served from raw bytes on the server's CallQueues (rpc/call_queues.h), as the
// server's own services are: the unary ones answered on a spare thread (rpc/unary_calls.h),
// Scan and Checkpoint written from a run of their own (rpc/streaming_call.h).
using ShardServiceBase = internal::v1::ShardService::WithRawMethod_Write<
    internal::v1::ShardService::WithRawMethod_WriteParts<
        internal::v1::ShardService::WithRawMethod_State<
            internal::v1::ShardService::WithRawMethod_RevokeReadLease<
                internal::v1::ShardService::WithRawMethod_Scan<
                    internal::v1::ShardService::WithRawMethod_Checkpoint<
                        internal::v1::ShardService::Service>>>>>>;

class ShardServiceImpl final : public ShardServiceBase, public QueuedService {
 public:
  // All must outlive the service.
  // `page_bytes`: what a fragment's page and a checkpoint's part are cut at
  // (ClusterOptions::peer_page_bytes).
  // `page_encoders`: the client's pages a fragment makes when asked to (ScanRequest.relay);
  // none: it sends its rows as always.
  // `testing_delay`: tests only, each fragment (not a describe) waits this long (cancellable)
  // before it runs.
  ShardServiceImpl(ShardDirectory* directory, ClusterShardReads* reads, Engine* engine,
                   std::string node_id, size_t page_bytes,
                   query::PageEncoderFactory page_encoders = nullptr,
                   std::chrono::milliseconds testing_delay = std::chrono::milliseconds(0))
      : directory_(*directory),
        reads_(*reads),
        engine_(*engine),
        node_id_(std::move(node_id)),
        page_bytes_(page_bytes),
        page_encoders_(std::move(page_encoders)),
        testing_delay_(testing_delay) {}

  // QueuedService: every call from a member only (anything else is refused before its
  // request is read).
  grpc::Service* service() override { return this; }
  void Serve(CallQueues* queues) override;

 private:
  // The methods' bodies, once the caller is known to be a member and the request parsed.
  grpc::Status Write(const internal::v1::ShardWriteRequest& request,
                     internal::v1::ShardWriteResponse* response);
  grpc::Status WriteParts(const internal::v1::ShardWritePartsRequest& request,
                          internal::v1::ShardWritePartsResponse* response);
  grpc::Status State(const internal::v1::ShardStateRequest& request,
                     internal::v1::ShardStateResponse* response);
  grpc::Status RevokeReadLease(const internal::v1::RevokeReadLeaseRequest& request,
                               internal::v1::RevokeReadLeaseResponse* response);
  grpc::Status Checkpoint(const internal::v1::CheckpointRequest& request, StreamingCall& call);
  // Serves unary `body` through `request` (its generated Request<Method>).
  template <typename Base, typename Request, typename Response>
  void ServeMember(CallQueues* queues,
                   void (Base::*request)(grpc::ServerContext*, grpc::ByteBuffer*,
                                         grpc::ServerAsyncResponseWriter<grpc::ByteBuffer>*,
                                         grpc::CompletionQueue*, grpc::ServerCompletionQueue*,
                                         void*),
                   grpc::Status (ShardServiceImpl::*body)(const Request&, Response*));
  // Serves streaming `body` through `request` (its generated Request<Method>).
  template <typename Base, typename Request>
  void ServeMemberStream(CallQueues* queues,
                         void (Base::*request)(grpc::ServerContext*, grpc::ByteBuffer*,
                                               grpc::ServerAsyncWriter<grpc::ByteBuffer>*,
                                               grpc::CompletionQueue*, grpc::ServerCompletionQueue*,
                                               void*),
                         grpc::Status (ShardServiceImpl::*body)(const Request&, StreamingCall&));

  // Whether `node` is another member holding a replica of `shard` (one a read lease may go to).
  bool HoldsAnother(uint32_t shard, const std::string& node);
  // Starts writing one shard's part through this node's replica; `done` gets the answer (at
  // once when the part is refused: no such shard, or no replica of it here).
  void StartWrite(const internal::v1::ShardWriteRequest& request,
                  std::function<void(absl::StatusOr<WriteResult>)> done);
  // A fragment of another node's query, on its own thread: the whole call after its request
  // was read and its caller checked.
  grpc::Status Scan(const internal::v1::ScanRequest& request, StreamingCall& call);
  // --testing-query-delay-ms: waits testing_delay_ from `started`, or until `cancelled`.
  void HoldForTesting(std::chrono::steady_clock::time_point started,
                      const std::atomic<bool>& cancelled) const;

  ShardDirectory& directory_;
  ClusterShardReads& reads_;
  Engine& engine_;
  const std::string node_id_;
  const size_t page_bytes_;
  const query::PageEncoderFactory page_encoders_;
  const std::chrono::milliseconds testing_delay_;
  Slots fragments_{kMaxServedFragments};  // fragments running here for other nodes
  Slots checkpoints_{kMaxServedCheckpoints};  // checkpoints sent from here
};

}  // namespace strata::cluster
