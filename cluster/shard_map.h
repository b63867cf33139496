// Which shard a record belongs to (docs/cluster.md, "Shards"): the top log2(S) bits of its
// routing hash, so that doubling S later halves each shard's range. The routing hash is the
// partition-key hash the engine already computes when the table has a DIMENSION partition
// key (a query that fixes the key reads one shard), else the series' hash: with the default
// key, measure_name, one measure's data would otherwise all land on one shard.
#pragma once

#include <bit>
#include <cstdint>

#include "storage/catalog/catalog_types.h"
#include "storage/read/table_state.h"
#include "storage/rows/write_types.h"

namespace strata::cluster {

inline constexpr int kDefaultShards = 16;

// RoutingHash and ShardOf live in storage/read/table_state.h: a query's scan picks a shard's
// series by the same hash.
using ::strata::RoutingHash;
using ::strata::ShardOf;

inline bool ValidShardCount(int shards) {
  return shards >= 1 && shards <= 1024 && std::has_single_bit(static_cast<unsigned>(shards));
}

}  // namespace strata::cluster
