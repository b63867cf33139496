// Where a fresh read's shards end (docs/cluster.md, "Reads"): a replica brought up to what
// its shard's leader applied holds every write acknowledged before it asked, since a leader
// applies a write before acknowledging it and no other node can acknowledge one while the
// leader's etcd lease lasts. One small call to each leading node, all at once, answers that
// for a query's shards: asking NATS for each shard's log end is a call per shard, one after
// another (about 0.3–0.5 ms each against a clustered JetStream).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/time/time.h"
#include "cluster/peer_stubs.h"
#include "cluster/shard_router.h"

namespace strata::cluster {

// By position in `shards`: the sequence its leader (another node) applied, leading under its
// lease when it answered; nullopt where no other node leads the shard, or its leader did not
// answer by `until` (at most half a second from now) or no longer leads it. The caller asks NATS
// for those.
std::vector<std::optional<uint64_t>> LeadersApplied(ShardDirectory& directory, PeerStubs& peers,
                                                    const std::vector<uint32_t>& shards,
                                                    absl::Time until);

}  // namespace strata::cluster
