// PlacementController: moves shard replicas toward the cluster's node list
// (docs/cluster.md, "Moving replicas"). One node runs it at a time, the one holding
// `<root>controller` under its etcd lease; every decision is a compare-and-swap on a
// shard's placement key (placement.h), so a deposed controller's late write fails instead
// of undoing its successor's.
//
// Each round (once a second):
// 1. a move whose joining replica has applied the shard's log to where it ended a round
//    before is finished: the joining node replaces the leaving one;
// 2. a move to a node that left the list, or that is gone, is called off;
// 3. new moves are planned (PlanMoves), at most kMovesInFlight at a time, onto nodes that are
//    members now. While a listed node is away (its lease ended) no move starts until it has
//    been away `dead_node_grace`: moving data on a short loss (a restart, a pause) costs
//    more than it saves. After that its replicas are rebuilt on the others.
//
// Thread-safety: Round is called from one thread.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "cluster/etcd_client.h"
#include "cluster/placement.h"

namespace strata::cluster {

inline constexpr size_t kMovesInFlight = 2;

class PlacementController {
 public:
  struct Hooks {
    // The members now (their etcd lease alive): node id -> address.
    std::function<std::map<std::string, std::string>()> members;
    // What `node`'s replica of `shard` applied; nullopt when it cannot tell.
    std::function<std::optional<uint64_t>(const std::string& node, uint32_t shard)> applied_on;
    // Where the shard's log ends now; nullopt when NATS cannot tell.
    std::function<std::optional<uint64_t>(uint32_t shard)> log_end;
    // The shard's placement while it has no key (the one the cluster was created with).
    std::function<ShardPlacement(uint32_t shard)> placement_without_key;
  };

  PlacementController(EtcdClient* etcd, std::string root, uint32_t shards, size_t replicas,
                      std::chrono::seconds dead_node_grace, Hooks hooks);

  absl::Status Round();

  static std::string NodesKey(std::string_view root);
  static std::string ShardKey(std::string_view root, uint32_t shard);
  static std::string ShardKeyPrefix(std::string_view root);

 private:
  struct Current {
    ShardPlacement placement;
    int64_t mod_revision = 0;
  };
  // Every shard's placement and its key's revision; writes the keys a shard lacks.
  absl::StatusOr<std::vector<Current>> ReadPlacement();
  // Finishes or calls off the move under way on `shard`; true when it changed the key.
  absl::StatusOr<bool> AdvanceMove(uint32_t shard, const Current& current,
                                   const std::vector<std::string>& nodes,
                                   const std::map<std::string, std::string>& members);

  EtcdClient& etcd_;
  const std::string root_;
  const uint32_t shards_;
  const size_t replicas_;  // of each shard
  const std::chrono::seconds dead_node_grace_;
  const Hooks hooks_;
  // Per listed node away now: since when this controller saw it away.
  std::map<std::string, std::chrono::steady_clock::time_point> away_since_;
  // Per shard moving: where its log ended at the previous round.
  std::map<uint32_t, uint64_t> log_end_before_;
};

}  // namespace strata::cluster
