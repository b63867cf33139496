// Sharing a fanned-out leader read's scan out evenly. Leader reads send each shard to its
// leader, so a node leading more of the data (shards differ in size: 200 hosts hashed to 16
// shards put 19 on one and 6 on another) scans more, and the node a query comes through
// also merges every fragment's answer (the groups, the sort, the page to the client): left
// alone, the query waits for the most loaded node. BalanceSites moves shards between the
// sites, each to another node holding a replica of it, until no move makes the most loaded
// site lighter.
//
// A moved shard is still read with every write acknowledged before the query began. One this
// node leads under its lease carries what it had applied (FragmentSite::applied_at_least):
// the follower applies its log that far before it reads (a leader under its lease applied
// every write it acknowledged) without asking anyone. One another node leads is read by a
// follower as any leader read at a follower is: it first asks the leader what it applied
// (cluster/leader_applied.h), one call for all such shards of that leader.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "query/base/shard_reads.h"

namespace strata::cluster {

// Whether BalanceSites may move anything: two sites at least, reading two shards a site or
// more (a small read, as one pinning its partition key, stays where it is). Cheap: a caller
// asks before it weighs the shards.
bool WorthBalancing(const std::vector<query::FragmentSite>& sites);

// Moves shards of `sites` (this node's first when `sites->front().local`) from the most
// loaded site, a site's load being the `weight` of its shards (plus `merge_share` of all the
// shards' weight for this node's: what its merge costs), to the site that leaves the two lighter,
// while that lightens the most loaded by a tenth of a shard at least. A shard moves only to a site
// whose node `holds` it and never to this node (its replicas were brought up to date for the shards
// it had); one of this node's only when `led_here` gives its sequence (led here under a lease).
// With fewer than two shards a site nothing moves: a small read stays where it is.
void BalanceSites(std::vector<query::FragmentSite>* sites, double merge_share,
                  const std::function<double(uint32_t shard)>& weight,
                  const std::function<bool(uint32_t shard, const std::string& node)>& holds,
                  const std::function<std::optional<uint64_t>(uint32_t shard)>& led_here);

}  // namespace strata::cluster
