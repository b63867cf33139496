#include "cluster/leader_applied.h"

#include <utility>

#include "absl/container/flat_hash_map.h"

namespace strata::cluster {

LeadersAppliedAsk::LeadersAppliedAsk(ShardDirectory& directory, PeerStubs& peers,
                                     std::vector<uint32_t> shards, absl::Time until,
                                     const std::string& lease_for)
    : shards_(std::move(shards)) {
  for (size_t i = 0; i < shards_.size(); ++i) {
    const std::vector<ShardHolder> holders = directory.Holders(shards_[i]);  // its leader first
    if (holders.empty() || !holders.front().leader || holders.front().self) continue;
    Call& call = calls_[holders.front().address];
    call.request.add_shards(shards_[i]);
    call.request.set_lease_for(lease_for);
    call.positions.push_back(i);
  }
  // A live node answers from memory in well under a millisecond: one that has not in half a
  // second is stopped or swamped, and NATS is asked for its shards instead.
  until = std::min(until, absl::Now() + absl::Milliseconds(500));
  // The calls go out together and are waited for on the caller's thread: no thread per call.
  for (auto& [address, call] : calls_) {
    call.context.set_deadline(absl::ToChronoTime(until));
    directory.membership().Present(&call.context);
    call.reader = peers.For(address)->AsyncState(&call.context, call.request, &done_);
    call.reader->Finish(&call.response, &call.status, &call);
  }
}

LeadersAppliedAsk::~LeadersAppliedAsk() {
  if (drained_) return;
  for (auto& [address, call] : calls_) call.context.TryCancel();
  Drain();
}

void LeadersAppliedAsk::Drain() {
  while (answered_ < calls_.size()) {
    void* tag = nullptr;
    bool ok = false;
    if (!done_.Next(&tag, &ok)) break;
    ++answered_;
  }
  done_.Shutdown();
  void* tag = nullptr;
  bool ok = false;
  while (done_.Next(&tag, &ok)) {
  }
  drained_ = true;
}

std::vector<std::optional<uint64_t>> LeadersAppliedAsk::Answers(
    std::vector<std::optional<ReadLeaseGrant>>* grants) {
  std::vector<std::optional<uint64_t>> applied(shards_.size());
  if (grants != nullptr) grants->assign(shards_.size(), std::nullopt);
  while (answered_ < calls_.size()) {
    void* tag = nullptr;
    bool ok = false;
    if (!done_.Next(&tag, &ok)) break;
    ++answered_;
    const Call& call = *static_cast<const Call*>(tag);
    if (!ok || !call.status.ok()) continue;
    absl::flat_hash_map<uint32_t, size_t> position;
    for (size_t i : call.positions) position[shards_[i]] = i;
    for (const internal::v1::ShardState& state : call.response.shards()) {
      auto it = position.find(state.shard());
      if (it == position.end() || !state.leads_under_lease()) continue;
      applied[it->second] = state.applied_sequence();
      if (grants != nullptr && state.read_lease_millis() > 0) {
        (*grants)[it->second] =
            ReadLeaseGrant{.epoch = state.epoch(),
                           .id = state.read_lease_id(),
                           .sequence = state.applied_sequence(),
                           .length = std::chrono::milliseconds(state.read_lease_millis())};
      }
    }
  }
  Drain();
  return applied;
}

std::vector<std::optional<uint64_t>> LeadersApplied(ShardDirectory& directory, PeerStubs& peers,
                                                    const std::vector<uint32_t>& shards,
                                                    absl::Time until) {
  return LeadersAppliedAsk(directory, peers, shards, until).Answers();
}

}  // namespace strata::cluster
