#include "cluster/leader_applied.h"

#include <grpcpp/grpcpp.h>

#include <map>
#include <memory>
#include <string>

#include "absl/container/flat_hash_map.h"

namespace strata::cluster {
namespace {

// One leading node's call: the shards it was asked about, by their place in the caller's list.
struct Ask {
  internal::v1::ShardStateRequest request;
  std::vector<size_t> positions;
  grpc::ClientContext context;
  internal::v1::ShardStateResponse response;
  grpc::Status status;
  std::unique_ptr<grpc::ClientAsyncResponseReader<internal::v1::ShardStateResponse>> reader;
};

}  // namespace

std::vector<std::optional<uint64_t>> LeadersApplied(ShardDirectory& directory, PeerStubs& peers,
                                                    const std::vector<uint32_t>& shards,
                                                    absl::Time until) {
  std::vector<std::optional<uint64_t>> applied(shards.size());
  std::map<std::string, Ask> asks;  // by address; a map's entries stay where they are
  for (size_t i = 0; i < shards.size(); ++i) {
    const std::vector<ShardHolder> holders = directory.Holders(shards[i]);  // its leader first
    if (holders.empty() || !holders.front().leader || holders.front().self) continue;
    Ask& ask = asks[holders.front().address];
    ask.request.add_shards(shards[i]);
    ask.positions.push_back(i);
  }
  if (asks.empty()) return applied;
  // A live node answers from memory in well under a millisecond: one that has not in half a
  // second is stopped or swamped, and NATS is asked for its shards instead.
  until = std::min(until, absl::Now() + absl::Milliseconds(500));
  // The calls go out together and are waited for on this thread: no thread per call.
  grpc::CompletionQueue done;
  for (auto& [address, ask] : asks) {
    ask.context.set_deadline(absl::ToChronoTime(until));
    directory.membership().Present(&ask.context);
    ask.reader = peers.For(address)->AsyncState(&ask.context, ask.request, &done);
    ask.reader->Finish(&ask.response, &ask.status, &ask);
  }
  for (size_t answered = 0; answered < asks.size(); ++answered) {
    void* tag = nullptr;
    bool ok = false;
    if (!done.Next(&tag, &ok)) break;
    const Ask& ask = *static_cast<const Ask*>(tag);
    if (!ok || !ask.status.ok()) continue;
    absl::flat_hash_map<uint32_t, size_t> position;
    for (size_t i : ask.positions) position[shards[i]] = i;
    for (const internal::v1::ShardState& state : ask.response.shards()) {
      auto it = position.find(state.shard());
      if (it != position.end() && state.leads_under_lease()) {
        applied[it->second] = state.applied_sequence();
      }
    }
  }
  done.Shutdown();
  void* tag = nullptr;
  bool ok = false;
  while (done.Next(&tag, &ok)) {
  }
  return applied;
}

}  // namespace strata::cluster
