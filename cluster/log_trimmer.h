// Trimming the shards' logs (docs/cluster.md, "Trimming the logs"): a shard's stream keeps
// its entries from a little below the lowest sequence its replicas applied, and the older
// ones are deleted, so a log does not grow with the shard's history. A replica that needs a
// deleted entry (it was away meanwhile) is built again from a peer's checkpoint
// (checkpoint.h); so is a new one. Never by age: JetStream's MaxAge would delete entries no
// replica applied yet.
//
// The node running the placement controller trims (cluster_node.h), every
// --cluster-log-trim-seconds.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "cluster/placement.h"

namespace strata::cluster {

// Where shard's log may start: `keep_entries` (at least 1) entries up to the lowest sequence
// applied by its replicas (joining ones too) on the nodes that are members now; nodes away
// do not hold the log back (their replicas are built again when they return). nullopt when
// a replica on a member did not say what it applied (a replica being built), or when no
// replica is on a member. A replica that restarts resumes at most one entry before what it
// said it applied (replica.h), which the kept entries cover.
std::optional<uint64_t> TrimPoint(const ShardPlacement& placement,
                                  const std::set<std::string>& members,
                                  const std::map<std::string, uint64_t>& applied,
                                  uint64_t keep_entries);

}  // namespace strata::cluster
