// Sparing the coordinating node part of a fanned-out leader read. The node a query comes
// through reads its share of the shards and also merges every fragment's answer (the
// groups, the sort, the page to the client): with leaders spread evenly it is the last to
// finish. BalanceSites hands some of the shards it leads to other sites whose nodes hold
// replicas of them. What the leader had applied when the query began goes with each shard
// (FragmentSite::applied_at_least): the follower's replica applies its log that far before
// it reads, so the read still holds every write acknowledged before the query (a leader
// under its lease applied every write it acknowledged) without asking anyone where the log
// ends.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "query/base/shard_reads.h"

namespace strata::cluster {

// Moves shards from the local site (sites->front(), when local) to the other sites, one at
// a time to the one reading the fewest, while the local site reads more than
// total / sites - 1 shards and the receiving site then reads no more than the most any site
// read before: no node scans more than before, and the coordinator scans one share less.
// Only shards `led_here` gives a sequence for (led here under a lease) move, and only to a
// site whose node `holds` them. With fewer than two shards a site, nothing moves (a small
// read stays where it is).
void BalanceSites(std::vector<query::FragmentSite>* sites,
                  const std::function<bool(uint32_t shard, const std::string& node)>& holds,
                  const std::function<std::optional<uint64_t>(uint32_t shard)>& led_here);

}  // namespace strata::cluster
