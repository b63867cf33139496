#include "cluster/local_replicas_read.h"

#include <utility>

#include "absl/time/clock.h"
#include "common/strings.h"

namespace strata::cluster {

LocalReplicasRead::LocalReplicasRead(ShardDirectory& directory, PeerStubs& peers,
                                     std::string node_id, std::vector<Follower> followers,
                                     std::function<void()> behind)
    : directory_(directory),
      peers_(peers),
      node_id_(std::move(node_id)),
      followers_(std::move(followers)),
      behind_(std::move(behind)),
      asked_(followers_.size(), false) {}

void LocalReplicasRead::TableResolved() {
  absl::MutexLock lock(&mu_);
  ++tables_resolved_;
}

void LocalReplicasRead::Reading(const std::optional<std::set<uint32_t>>& shards) {
  absl::MutexLock lock(&mu_);
  ++tables_read_;
  if (!shards.has_value()) return AskEvery();
  std::vector<size_t> positions;
  for (size_t i = 0; i < followers_.size(); ++i) {
    if (!asked_[i] && shards->contains(followers_[i].shard)) positions.push_back(i);
  }
  Ask(std::move(positions));
}

void LocalReplicasRead::ReadingEvery() {
  absl::MutexLock lock(&mu_);
  AskEvery();
}

void LocalReplicasRead::PlanOnly() {
  absl::MutexLock lock(&mu_);
  plan_only_ = true;
}

void LocalReplicasRead::AskEvery() {
  std::vector<size_t> positions;
  for (size_t i = 0; i < followers_.size(); ++i) {
    if (!asked_[i]) positions.push_back(i);
  }
  Ask(std::move(positions));
}

void LocalReplicasRead::Ask(std::vector<size_t> positions) {
  if (positions.empty()) return;
  for (size_t i : positions) asked_[i] = true;
  if (plan_only_) return;
  // A replica under a read lease now, which had applied the lease's sequence when the read
  // began, holds every write acknowledged before it: its leader acknowledges none before
  // revoking the lease.
  const LeaseClock::time_point now = LeaseClock::now();
  std::erase_if(positions, [&](size_t i) {
    const Follower& f = followers_[i];
    return f.replica != nullptr && f.replica->held_read_lease().Covers(f.applied, now);
  });
  if (positions.empty()) return;
  std::vector<uint32_t> shards;
  for (size_t i : positions) shards.push_back(followers_[i].shard);
  // The leaders answer after the query began, so their answers hold every write acknowledged
  // before it: a replica that had applied as far when the read began holds them too.
  auto ask = std::make_unique<LeadersAppliedAsk>(directory_, peers_, std::move(shards),
                                                 absl::Now() + absl::Milliseconds(500), node_id_);
  leaders_asked_ += static_cast<int>(ask->nodes_asked());
  questions_.push_back({std::move(ask), std::move(positions)});
}

absl::Status LocalReplicasRead::Confirm() {
  absl::MutexLock lock(&mu_);
  // No leader was asked: the replicas cannot be taken as current.
  if (plan_only_) return absl::InternalError("a plan-only read confirms nothing");
  // A table whose rows were not read through Reading (its columns only, as a join's) may
  // depend on any shard.
  if (tables_resolved_ > tables_read_) AskEvery();
  for (Question& question : questions_) {
    std::vector<std::optional<ReadLeaseGrant>> grants;
    const std::vector<std::optional<uint64_t>> leaders = question.ask->Answers(&grants);
    // Held by the replica the read began with: one built again since is not the one a
    // revocation of these grants may have reached.
    for (size_t k = 0; k < question.positions.size(); ++k) {
      const Follower& f = followers_[question.positions[k]];
      if (grants[k].has_value() && f.replica != nullptr) {
        f.replica->held_read_lease().Hold(*grants[k], question.ask->asked());
      }
    }
    for (size_t k = 0; k < question.positions.size(); ++k) {
      const Follower& follower = followers_[question.positions[k]];
      if (leaders[k].has_value() && follower.applied >= *leaders[k]) continue;
      behind_();
      return absl::FailedPreconditionError(
          leaders[k].has_value()
              ? StrCat("this node's replica of shard ", follower.shard, " was read at sequence ",
                       follower.applied, ", its leader had applied ", *leaders[k])
              : StrCat("shard ", follower.shard, "'s leader did not say what it applied"));
    }
  }
  for (size_t i = 0; i < followers_.size(); ++i) {
    if (asked_[i]) followers_[i].replica->CurrentAsOf(began_);
  }
  return absl::OkStatus();
}

std::string LocalReplicasRead::Describe() const {
  absl::MutexLock lock(&mu_);
  // As Confirm would ask: a table read other than through Reading depends on every shard.
  const bool every = tables_resolved_ > tables_read_;
  std::string shards;
  for (size_t i = 0; i < followers_.size(); ++i) {
    if (every || asked_[i]) shards += StrCat(shards.empty() ? "" : ",", followers_[i].shard);
  }
  return StrCat("LocalLeaderRead (a small leader read: this node's replicas, ",
                shards.empty() ? "the shards read are all led here"
                               : StrCat("the answer held until the leaders of shards ", shards,
                                        " confirm they had applied no more; read at the leaders "
                                        "when one had"),
                ")");
}

int LocalReplicasRead::leaders_asked() const {
  absl::MutexLock lock(&mu_);
  return leaders_asked_;
}

}  // namespace strata::cluster
