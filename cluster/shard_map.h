// Which shard a record belongs to (docs/cluster.md, "Shards"): the top log2(S) bits of its
// routing hash, so that doubling S later halves each shard's range. The routing hash is the
// partition-key hash the engine already computes when the table has a DIMENSION partition
// key (a query that fixes the key reads one shard), else the series' hash: with the default
// key, measure_name, one measure's data would otherwise all land on one shard.
#pragma once

#include <xxhash.h>

#include <bit>
#include <cstdint>

#include "storage/catalog/catalog_types.h"
#include "storage/read/table_state.h"
#include "storage/rows/write_types.h"

namespace strata::cluster {

inline constexpr int kDefaultShards = 16;

inline uint64_t RoutingHash(const NormalizedRecord& record, const PartitionKey& key) {
  if (key.type == PartitionKeyType::kDimension) {
    return PartitionHash(record.measure_name, record.dimensions, key);
  }
  // The dimensions' bytes seeded with the measure name's hash: the series key's two parts,
  // hashed without joining them.
  const uint64_t measure = XXH3_64bits(record.measure_name.data(), record.measure_name.size());
  const auto dimensions = record.dimensions.bytes();
  return XXH3_64bits_withSeed(dimensions.data(), dimensions.size(), measure);
}

// `shards` is a power of two.
inline uint32_t ShardOf(uint64_t hash, uint32_t shards) {
  if (shards <= 1) return 0;
  return static_cast<uint32_t>(hash >> (64 - std::countr_zero(shards)));
}

inline bool ValidShardCount(int shards) {
  return shards >= 1 && shards <= 1024 && std::has_single_bit(static_cast<unsigned>(shards));
}

}  // namespace strata::cluster
