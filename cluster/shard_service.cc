#include "cluster/shard_service.h"

#include <algorithm>
#include <future>
#include <optional>
#include <thread>

#include "absl/synchronization/blocking_counter.h"
#include "cluster/checkpoint.h"
#include "cluster/scan_pages.h"
#include "cluster/scan_writer_sink.h"
#include "common/status.h"
#include "common/strings.h"
#include "rpc/unary_calls.h"

namespace strata::cluster {
namespace {

grpc::Status ToGrpc(const absl::Status& status) {
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()), std::string(status.message()));
}

// A fragment's answers (cluster/scan_writer_sink.h) written to its call.
class CallScanStream final : public ScanStream {
 public:
  explicit CallScanStream(StreamingCall* call) : call_(*call) {}
  bool Write(grpc::ByteBuffer answer, bool last) override {
    return call_.Write(std::move(answer), last);
  }

 private:
  StreamingCall& call_;
};

// `message` written to `call`; false when the asker went away.
bool WriteMessage(StreamingCall& call, const google::protobuf::Message& message, bool last) {
  grpc::ByteBuffer bytes;
  return SerializeResponse(message, &bytes).ok() && call.Write(std::move(bytes), last);
}

constexpr std::string_view kHint = "the nodes of a cluster must run the same stratad version";

}  // namespace

void ShardServiceImpl::Serve(CallQueues* queues) {
  ServeMember(queues, &ShardServiceImpl::RequestWrite, &ShardServiceImpl::Write);
  ServeMember(queues, &ShardServiceImpl::RequestWriteParts, &ShardServiceImpl::WriteParts);
  ServeMember(queues, &ShardServiceImpl::RequestState, &ShardServiceImpl::State);
  ServeMember(queues, &ShardServiceImpl::RequestRevokeReadLease,
              &ShardServiceImpl::RevokeReadLease);
  ServeMemberStream(queues, &ShardServiceImpl::RequestScan, &ShardServiceImpl::Scan);
  ServeMemberStream(queues, &ShardServiceImpl::RequestCheckpoint, &ShardServiceImpl::Checkpoint);
}

template <typename Base, typename Request, typename Response>
void ShardServiceImpl::ServeMember(
    CallQueues* queues,
    void (Base::*request)(grpc::ServerContext*, grpc::ByteBuffer*,
                          grpc::ServerAsyncResponseWriter<grpc::ByteBuffer>*,
                          grpc::CompletionQueue*, grpc::ServerCompletionQueue*, void*),
    grpc::Status (ShardServiceImpl::*body)(const Request&, Response*)) {
  auto answer = [this, body](const grpc::ServerContext& context, const grpc::ByteBuffer& in,
                             grpc::ByteBuffer* out) {
    if (grpc::Status member = directory_.membership().Check(context); !member.ok()) {
      return member;
    }
    Request parsed;
    if (absl::Status status = ParseRequest(in, &parsed, kHint); !status.ok()) {
      return ToGrpc(status);
    }
    Response response;
    if (grpc::Status status = (this->*body)(parsed, &response); !status.ok()) return status;
    return ToGrpc(SerializeResponse(response, out));
  };
  ServeUnaryMethod(queues, {.await = AwaitWith(this, request), .answer = std::move(answer)});
}

template <typename Base, typename Request>
void ShardServiceImpl::ServeMemberStream(
    CallQueues* queues,
    void (Base::*request)(grpc::ServerContext*, grpc::ByteBuffer*,
                          grpc::ServerAsyncWriter<grpc::ByteBuffer>*, grpc::CompletionQueue*,
                          grpc::ServerCompletionQueue*, void*),
    grpc::Status (ShardServiceImpl::*body)(const Request&, StreamingCall&)) {
  StreamingCall::Method method;
  method.await = AwaitWith(this, request);
  method.start = [this, body](const grpc::ServerContext& context, const grpc::ByteBuffer& in,
                              StreamingCall::Run* run) {
    if (grpc::Status member = directory_.membership().Check(context); !member.ok()) {
      return member;
    }
    auto parsed = std::make_shared<Request>();
    if (absl::Status status = ParseRequest(in, parsed.get(), kHint); !status.ok()) {
      return ToGrpc(status);
    }
    *run = [this, body, parsed](StreamingCall& call) { return (this->*body)(*parsed, call); };
    return grpc::Status::OK;
  };
  StreamingCall::Serve(queues, std::move(method));
}

grpc::Status ShardServiceImpl::Write(const internal::v1::ShardWriteRequest& request,
                                     internal::v1::ShardWriteResponse* response) {
  std::promise<absl::StatusOr<WriteResult>> promise;
  auto result = promise.get_future();
  StartWrite(request,
             [&promise](absl::StatusOr<WriteResult> r) { promise.set_value(std::move(r)); });
  absl::StatusOr<WriteResult> written = result.get();
  if (!written.ok()) return ToGrpc(written.status());
  ToProto(*written, response);
  return grpc::Status::OK;
}

grpc::Status ShardServiceImpl::WriteParts(const internal::v1::ShardWritePartsRequest& request,
                                          internal::v1::ShardWritePartsResponse* response) {
  // Every part starts at once (each shard's log confirms its own); the call answers when the
  // last has. Each answer is its own part's, written by its callback alone; the counter is
  // documented as safe to destroy once Wait returns.
  const int parts = request.parts_size();
  for (int i = 0; i < parts; ++i) response->add_answers();
  absl::BlockingCounter answered(parts);
  for (int i = 0; i < parts; ++i) {
    internal::v1::ShardWritePartAnswer* answer = response->mutable_answers(i);
    StartWrite(request.parts(i), [&answered, answer](absl::StatusOr<WriteResult> r) {
      answer->set_code(static_cast<int32_t>(r.status().code()));
      if (r.ok()) {
        ToProto(*r, answer->mutable_response());
      } else {
        answer->set_message(std::string(r.status().message()));
      }
      answered.DecrementCount();
    });
  }
  answered.Wait();
  return grpc::Status::OK;
}

void ShardServiceImpl::StartWrite(const internal::v1::ShardWriteRequest& request,
                                  std::function<void(absl::StatusOr<WriteResult>)> done) {
  if (request.shard() >= directory_.shard_count()) {
    done(absl::InvalidArgumentError(StrCat("shard ", request.shard(), " does not exist")));
    return;
  }
  std::shared_ptr<Replica> replica = directory_.LocalReplica(request.shard());
  if (replica == nullptr) {
    done(absl::FailedPreconditionError(
        StrCat("node ", node_id_, " holds no replica of shard ", request.shard())));
    return;
  }
  replica->Write(request.database_name(), request.table_name(), request.records(),
                 request.catalog_revision(), std::move(done), request.erase());
}

grpc::Status ShardServiceImpl::State(const internal::v1::ShardStateRequest& request,
                                     internal::v1::ShardStateResponse* response) {
  response->set_node_id(node_id_);
  std::vector<uint32_t> shards(request.shards().begin(), request.shards().end());
  if (shards.empty()) {
    for (uint32_t s = 0; s < directory_.shard_count(); ++s) shards.push_back(s);
  }
  for (uint32_t shard : shards) {
    std::shared_ptr<Replica> replica =
        shard < directory_.shard_count() ? directory_.LocalReplica(shard) : nullptr;
    if (replica == nullptr) continue;
    const ReplicaState state = replica->state();
    auto* out = response->add_shards();
    out->set_shard(shard);
    out->set_leader(replica->leading());
    out->set_epoch(replica->epoch());
    out->set_applied_sequence(state.applied);
    out->set_digest(state.digest);
    out->set_may_lead(directory_.TakesLeads() && replica->health().ok());
    const bool under_lease = directory_.LeadsUnderLease(*replica);
    out->set_leads_under_lease(under_lease);
    // Granted only within this node's etcd lease, which lasts a second more (kLeaseMargin)
    // than LeadsUnderLease needs: longer than a read lease; and only to another node holding
    // a replica of the shard (a lease to a name no node answers to would stall the shard's
    // next write until it ended).
    if (under_lease && HoldsAnother(shard, request.lease_for())) {
      if (std::optional<ReadLeaseGrant> grant = replica->GrantReadLease(request.lease_for())) {
        out->set_epoch(grant->epoch);
        out->set_applied_sequence(grant->sequence);
        out->set_read_lease_id(grant->id);
        out->set_read_lease_millis(grant->length.count());
      }
    }
  }
  return grpc::Status::OK;
}

bool ShardServiceImpl::HoldsAnother(uint32_t shard, const std::string& node) {
  if (node.empty()) return false;
  const std::vector<ShardHolder> holders = directory_.Holders(shard);
  return std::any_of(holders.begin(), holders.end(),
                     [&](const ShardHolder& h) { return h.node == node && !h.self; });
}

grpc::Status ShardServiceImpl::RevokeReadLease(const internal::v1::RevokeReadLeaseRequest& request,
                                               internal::v1::RevokeReadLeaseResponse*) {
  std::shared_ptr<Replica> replica = request.shard() < directory_.shard_count()
                                         ? directory_.LocalReplica(request.shard())
                                         : nullptr;
  if (replica != nullptr) replica->held_read_lease().Revoke(request.epoch(), request.id());
  return grpc::Status::OK;
}

}  // namespace strata::cluster

namespace strata::cluster {

void ShardServiceImpl::HoldForTesting(std::chrono::steady_clock::time_point started,
                                      const std::atomic<bool>& cancelled) const {
  const auto until = started + testing_delay_;
  while (!cancelled.load() && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

// How long a follower waits to apply what a shard's leader had applied when it handed the
// shard's read over: a follower keeps up within milliseconds; one further behind (catching
// up, under load) is better left out than waited for.
constexpr std::chrono::milliseconds kHandedOverWait{250};

grpc::Status ShardServiceImpl::Scan(const internal::v1::ScanRequest& request, StreamingCall& call) {
  std::vector<uint32_t> shards(request.shards().begin(), request.shards().end());
  for (uint32_t shard : shards) {
    if (shard >= directory_.shard_count()) {
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                          StrCat("shard ", shard, " does not exist"));
    }
    if (directory_.LocalReplica(shard) == nullptr) {
      // Moved away (or never here): the caller reads it from a node holding it now.
      return grpc::Status(grpc::StatusCode::UNAVAILABLE,
                          StrCat("node ", node_id_, " holds no replica of shard ", shard,
                                 " now; read it from a node that does"));
    }
  }
  const auto started = std::chrono::steady_clock::now();
  const auto wait = std::chrono::milliseconds(
      request.timeout_millis() > 0 ? std::min<int64_t>(request.timeout_millis(), 30'000) : 30'000);
  if (!directory_.WaitCatalog(request.catalog_revision(), wait)) {
    return grpc::Status(grpc::StatusCode::UNAVAILABLE,
                        StrCat("node ", node_id_, " has not caught up with the catalog yet"));
  }
  if (!request.describe_only()) {
    // Brought up to the query's read choice: what the asking node's client was acknowledged
    // is read too (unless it chose follower reads).
    query::ReadChoice choice;
    if (request.consistency() >= 0 &&
        request.consistency() <= static_cast<int32_t>(query::ReadConsistency::kFollower)) {
      choice.consistency = static_cast<query::ReadConsistency>(request.consistency());
    }
    choice.max_staleness = std::chrono::milliseconds(request.max_staleness_millis());
    // A shard handed over by its leader (cluster/site_balance.h) is read once its replica
    // applied what the leader had; the others by the read choice. A replica that lags more
    // than a moment is not waited for: the asking node reads the shard elsewhere (its own).
    std::vector<uint32_t> by_choice;
    for (size_t i = 0; i < shards.size(); ++i) {
      const uint64_t at_least = i < static_cast<size_t>(request.applied_at_least_size())
                                    ? request.applied_at_least(i)
                                    : 0;
      if (at_least == 0) {
        by_choice.push_back(shards[i]);
        continue;
      }
      std::shared_ptr<Replica> replica = directory_.LocalReplica(shards[i]);
      if (replica == nullptr || !replica->WaitApplied(at_least, std::min(wait, kHandedOverWait))) {
        return grpc::Status(
            grpc::StatusCode::UNAVAILABLE,
            StrCat("node ", node_id_, " has not applied shard ", shards[i], "'s log to sequence ",
                   at_least, " yet; the query reads it elsewhere"));
      }
    }
    if (absl::Status caught_up = directory_.CatchUpShards(by_choice, choice, wait);
        !caught_up.ok()) {
      return ToGrpc(caught_up);
    }
  }
  const auto deadline = request.timeout_millis() > 0
                            ? started + std::chrono::milliseconds(request.timeout_millis())
                            : std::chrono::steady_clock::time_point::max();
  // The engine looks at the call's flag between batches: set when the asking node cancels the
  // call (its query was cancelled, or it went away).
  const std::atomic<bool>& cancelled = call.cancelled();
  if (!request.describe_only()) HoldForTesting(started, cancelled);
  CallScanStream stream(&call);
  ScanWriterSink sink(&stream,
                      {.columns_first = request.columns_first(),
                       .page_bytes = page_bytes_,
                       .relay = request.has_relay() ? &request.relay() : nullptr},
                      page_encoders_);
  Slots::Held slot = fragments_.Take(std::min(deadline, started + wait));
  if (!slot) {
    return grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                        StrCat("node ", node_id_, " is running ", kMaxServedFragments,
                               " fragments of other nodes' queries; retry the query later"));
  }
  // The columns the asking node planned with, as this node answers them now (after catching
  // up): a column new here would be read as NULL by that plan.
  for (const internal::v1::ColumnsCheck& check : request.checks()) {
    query::ColumnsSink columns;
    absl::StatusOr<query::QueryStats> described = reads_.RunHere(
        shards, check.sql(), {}, /*describe_only=*/true, deadline, &cancelled, &columns);
    if (!described.ok()) return ToGrpc(described.status());
    if (ColumnsFingerprint(columns.columns()) != check.fingerprint()) {
      return grpc::Status(grpc::StatusCode::ABORTED,
                          StrCat("the columns of `", check.sql(), "` at node ", node_id_,
                                 " changed since the query was planned; run the query again"),
                          kColumnsChangedDetail);
    }
  }
  query::FragmentLists lists;
  for (const internal::v1::ScanList& list : request.lists()) {
    absl::StatusOr<query::Datum> values = DecodeList(list);
    if (!values.ok()) return ToGrpc(values.status());
    lists[list.name()] = *std::move(values);
  }
  absl::StatusOr<query::QueryStats> ran = reads_.RunHere(
      shards, request.sql(), lists, request.describe_only(), deadline, &cancelled, &sink);
  if (!ran.ok()) return ToGrpc(ran.status());
  // What the fragment's scans read, for the asking node's statistics.
  if (!sink.Finish(*ran).ok()) {
    return grpc::Status(grpc::StatusCode::CANCELLED, "the node that asked went away");
  }
  return grpc::Status::OK;
}

}  // namespace strata::cluster

namespace strata::cluster {

grpc::Status ShardServiceImpl::Checkpoint(const internal::v1::CheckpointRequest& request,
                                          StreamingCall& call) {
  const uint32_t shard = request.shard();
  if (shard >= directory_.shard_count()) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        StrCat("shard ", shard, " does not exist"));
  }
  std::shared_ptr<Replica> replica = directory_.LocalReplica(shard);
  if (replica == nullptr || !replica->health().ok()) {
    return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                        StrCat("node ", node_id_, " holds no healthy replica of shard ", shard));
  }
  Slots::Held slot = checkpoints_.Take(std::chrono::steady_clock::now() + std::chrono::seconds(30));
  if (!slot) {
    return grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                        StrCat("node ", node_id_, " is sending ", kMaxServedCheckpoints,
                               " checkpoints; ask another replica or later"));
  }
  if (request.at_least() > 0 &&
      !replica->WaitApplied(request.at_least(), std::chrono::seconds(30))) {
    return grpc::Status(
        grpc::StatusCode::UNAVAILABLE,
        StrCat("node ", node_id_, "'s replica of shard ", shard,
               " has not applied its log to sequence ", request.at_least(), " yet"));
  }
  // The state first, the rows after: they hold at least what it says (checkpoint.h).
  const ReplicaState state = replica->state();
  internal::v1::CheckpointResponse first;
  first.set_applied_sequence(state.applied);
  first.set_digest(state.digest);
  first.set_catalog_revision(directory_.catalog_revision());
  if (!WriteMessage(call, first, /*last=*/false)) {
    return grpc::Status(grpc::StatusCode::CANCELLED, "the node that asked went away");
  }
  int64_t rows = 0;
  absl::Status sent = SendCheckpoint(
      engine_, shard, directory_.shard_count(), page_bytes_,
      [&](CheckpointPart part) {
        internal::v1::CheckpointResponse message;
        message.set_database_name(std::move(part.database));
        message.set_table_name(std::move(part.table));
        message.set_count(part.count);
        message.set_records(std::move(part.records));
        message.set_now_nanos(part.now_nanos);
        rows += part.count;
        if (!WriteMessage(call, message, /*last=*/false)) {
          return absl::CancelledError("the node that asked went away");
        }
        return absl::OkStatus();
      },
      [&] { return call.cancelled().load() || !replica->health().ok(); });
  if (!sent.ok()) return ToGrpc(sent);
  internal::v1::CheckpointResponse last;
  last.set_done(true);
  last.set_rows(rows);
  if (!WriteMessage(call, last, /*last=*/true)) {
    return grpc::Status(grpc::StatusCode::CANCELLED, "the node that asked went away");
  }
  return grpc::Status::OK;
}

}  // namespace strata::cluster
