// Where a fresh read's shards end (docs/cluster.md, "Reads"): a replica brought up to what
// its shard's leader applied holds every write acknowledged before it asked, since a leader
// applies a write before acknowledging it and no other node can acknowledge one while the
// leader's etcd lease lasts. One small call to each leading node, all at once, answers that
// for a query's shards: asking NATS for each shard's log end is a call per shard, one after
// another (about 0.3–0.5 ms each against a clustered JetStream).
#pragma once

#include <grpcpp/grpcpp.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "cluster/peer_stubs.h"
#include "cluster/read_leases.h"
#include "cluster/shard_router.h"

namespace strata::cluster {

// The question asked when it is made and its answers taken later, so that a caller can work
// meanwhile (a leader read on this node's replicas, checked against them before its first
// row goes out: cluster/local_replicas_read.h). Not thread-safe; Answers is called at most once.
class LeadersAppliedAsk {
 public:
  // Asks each node leading some of `shards` (another node) by `until` (at most half a
  // second from now); with `lease_for` (this node's id), for read leases too.
  LeadersAppliedAsk(ShardDirectory& directory, PeerStubs& peers, std::vector<uint32_t> shards,
                    absl::Time until, const std::string& lease_for = "");
  // Cancels the calls not answered yet.
  ~LeadersAppliedAsk();
  LeadersAppliedAsk(const LeadersAppliedAsk&) = delete;
  LeadersAppliedAsk& operator=(const LeadersAppliedAsk&) = delete;

  // By position in `shards`: the sequence its leader applied, leading under its lease when
  // it answered; nullopt where no other node leads the shard, or its leader did not answer
  // by `until` or no longer leads it. The caller asks NATS for those. Waits for the answers.
  // With `grants`, the read leases granted, by position too.
  std::vector<std::optional<uint64_t>> Answers(
      std::vector<std::optional<ReadLeaseGrant>>* grants = nullptr);
  // When the calls went out: a lease's length counts from then.
  LeaseClock::time_point asked() const { return asked_; }
  // The other nodes asked.
  size_t nodes_asked() const { return calls_.size(); }

 private:
  // One leading node's call: the shards it was asked about, by their place in `shards_`.
  struct Call {
    internal::v1::ShardStateRequest request;
    std::vector<size_t> positions;
    grpc::ClientContext context;
    internal::v1::ShardStateResponse response;
    grpc::Status status;
    std::unique_ptr<grpc::ClientAsyncResponseReader<internal::v1::ShardStateResponse>> reader;
  };
  // Waits for every call's end and shuts the queue down.
  void Drain();

  const std::vector<uint32_t> shards_;
  const LeaseClock::time_point asked_ = LeaseClock::now();
  std::map<std::string, Call> calls_;  // by address; a map's entries stay where they are
  grpc::CompletionQueue done_;         // the calls' answers, waited for on the caller's thread
  size_t answered_ = 0;
  bool drained_ = false;
};

// LeadersAppliedAsk's answers, waited for at once.
std::vector<std::optional<uint64_t>> LeadersApplied(ShardDirectory& directory, PeerStubs& peers,
                                                    const std::vector<uint32_t>& shards,
                                                    absl::Time until);

}  // namespace strata::cluster
