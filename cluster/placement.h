// Where each shard's replicas live, and how they move (docs/cluster.md, "Moving replicas").
// Each shard's placement is one etcd key, `<root>placement/shard/<s>`:
//   replicas=n0,n1,n2[;joining=n3;leaving=n2]
// `replicas` hold, follow and may lead the shard and answer its reads. A `joining` node
// builds its replica from the shard's log and neither leads nor answers reads; once it has
// applied the log to its end the placement controller swaps it for `leaving` in one
// compare-and-swap, and the leaving node drops its replica. The nodes the cluster should
// use are `<root>placement/nodes` (set by `strata cluster add-node|remove-node`); the
// controller plans moves toward an even spread over them.
//
// Pure functions over values: the etcd reads and writes are the controller's
// (placement_controller.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace strata::cluster {

// Replicas of each shard's data when the cluster has a placement, unless it was created with
// another count (--cluster-shard-replicas).
inline constexpr size_t kDefaultShardReplicas = 3;
inline constexpr size_t kMaxShardReplicas = 5;

struct ShardPlacement {
  std::vector<std::string> replicas;  // the first is offered the lead first
  std::string joining;                // empty: no move under way
  std::string leaving;                // in `replicas`, replaced by `joining` when it is done

  bool moving() const { return !joining.empty(); }
  bool Holds(std::string_view node) const;   // a replica or joining: keeps a copy
  bool Serves(std::string_view node) const;  // a replica: may lead and answer reads
  friend bool operator==(const ShardPlacement&, const ShardPlacement&) = default;
};

std::string EncodePlacement(const ShardPlacement& placement);
// nullopt when `text` is not a placement this version wrote.
std::optional<ShardPlacement> DecodePlacement(std::string_view text);

// The placement a cluster starts with: shard s on the nodes at positions s, s+1, ... of
// `nodes` (wrapping around; `replicas` of them, fewer with fewer nodes), as --cluster-nodes
// always placed them.
std::vector<ShardPlacement> InitialPlacement(uint32_t shards, const std::vector<std::string>& nodes,
                                             size_t replicas);

// One replica to move: `to` joins `shard` and then replaces `from` (none: `to` adds a copy;
// `to` none: `from`'s copy is dropped at once, the shard having more than it needs).
struct Move {
  uint32_t shard = 0;
  std::string from;
  std::string to;
  friend bool operator==(const Move&, const Move&) = default;
};

// The next moves toward every shard having `replicas` replicas on `nodes` (fewer when
// there are fewer nodes), spread evenly (each node's count within one of the others'):
// replicas on nodes not in `nodes` move first, then the most loaded node gives to the least.
// Shards already moving are left alone, and count against `max_moves` (moves in flight).
std::vector<Move> PlanMoves(const std::vector<ShardPlacement>& placement,
                            const std::vector<std::string>& nodes, size_t replicas,
                            size_t max_moves);

// The placement once `move` has begun (its `to` joining) and once it is done.
ShardPlacement BeginMove(ShardPlacement placement, const Move& move);
ShardPlacement FinishMove(ShardPlacement placement);

}  // namespace strata::cluster
