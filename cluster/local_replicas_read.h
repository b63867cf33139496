// A small leader read on this node's own replicas (docs/cluster.md, "A small leader read"):
// the query reads the replicas here as they are, and its answer goes out only once the
// leaders of the shards it read say they had applied no more than those replicas had when the
// read began. As the plan is made it names the shards its rows come from (a condition pinning
// the partition key: one shard for one host); the leaders of those, when another node leads
// them, are asked at once, while the plan runs. A shard this node leads needs no question, nor
// one whose leader leased it to this node (read_leases.h).
//
// Thread-safety: every method may be called from any thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "cluster/leader_applied.h"
#include "cluster/peer_stubs.h"
#include "cluster/replica.h"
#include "cluster/shard_router.h"
#include "query/base/shard_reads.h"

namespace strata::cluster {

class LocalReplicasRead final : public query::LocalLeaderRead {
 public:
  // A replica here of a shard another node leads, and what it had applied before the read.
  struct Follower {
    uint32_t shard = 0;
    std::shared_ptr<Replica> replica;
    uint64_t applied = 0;
  };
  // `directory` and `peers` outlive this; `behind` is called when Confirm finds a replica
  // behind its leader (or a leader silent). `node_id`, this node's: the leaders asked grant
  // it read leases (read_leases.h), and a follower under one is not asked about.
  LocalReplicasRead(ShardDirectory& directory, PeerStubs& peers, std::string node_id,
                    std::vector<Follower> followers, std::function<void()> behind);

  uint32_t shard_count() const override { return directory_.shard_count(); }
  void TableResolved() override;
  void Reading(const std::optional<std::set<uint32_t>>& shards) override;
  void ReadingEvery() override;
  void PlanOnly() override;
  absl::Status Confirm() override;
  int leaders_asked() const override;
  std::string Describe() const override;

 private:
  // Asks the leaders of the followers at `positions` (not asked yet) what they applied; only
  // notes them for Describe when the read is plan_only_.
  void Ask(std::vector<size_t> positions) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void AskEvery() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  ShardDirectory& directory_;
  PeerStubs& peers_;
  const std::string node_id_;
  const std::vector<Follower> followers_;
  const std::function<void()> behind_;
  const std::chrono::steady_clock::time_point began_ = std::chrono::steady_clock::now();
  mutable absl::Mutex mu_;
  std::vector<bool> asked_ ABSL_GUARDED_BY(mu_);  // by follower
  // Each question, with the followers it covers (by position in followers_).
  struct Question {
    std::unique_ptr<LeadersAppliedAsk> ask;
    std::vector<size_t> positions;
  };
  std::vector<Question> questions_ ABSL_GUARDED_BY(mu_);
  int leaders_asked_ ABSL_GUARDED_BY(mu_) = 0;
  int tables_resolved_ ABSL_GUARDED_BY(mu_) = 0;
  int tables_read_ ABSL_GUARDED_BY(mu_) = 0;  // through Reading
  bool plan_only_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace strata::cluster
