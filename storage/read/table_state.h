// What the engine keeps in memory per table for the write and read paths:
// the series registry (series key <-> id, persisted in the catalog family,
// with the dimension index), the measure schema (one type per measure name,
// and one type per MULTI attribute name across the whole table), the set of
// dimension names, and the newest-time cache that lets appends skip the
// duplicate check.
//
// A name is a dimension or a MULTI attribute, never both, and an attribute
// name has one type in the whole table: SQL shows one column per name. Data
// directories written before that rule may hold conflicts; they read by the
// rule of docs/sql.md ("One type per column"): an attribute's table-wide
// type is the one of the measure name that sorts first, and a dimension
// hides an attribute of the same name.
//
// Thread-safety: lookups (FindSeries, DescribeSeries, measure queries) are
// safe from any thread. Changes are made only by the write path's group
// committer (Writer), one at a time, and only after they are durable (Apply).
// The registry and the schema only grow (nothing is removed while the table
// exists): a series found stays found, a record that conforms stays so, which
// lets writers look them up before their turn to commit.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "storage/catalog/catalog_types.h"
#include "storage/kv/store.h"
#include "storage/read/last_points.h"
#include "storage/rows/series_key.h"
#include "storage/rows/write_types.h"

namespace strata {

struct SeriesInfo {
  uint64_t id = 0;
  std::string measure_name;
  std::vector<std::pair<std::string, std::string>> dimensions;  // sorted by name
};

struct MeasureSchema {
  MeasureKind kind = MeasureKind::kDouble;
  absl::flat_hash_map<std::string, ValueType> attributes;  // MULTI only
};

// The partition a series belongs to: XXH3-64 of its measure name, or of the
// value of the partition-key dimension (empty when it is absent).
uint64_t PartitionHash(std::string_view measure_name,
                       const std::vector<std::pair<std::string, std::string>>& dimensions,
                       const PartitionKey& key);
uint64_t PartitionHash(std::string_view measure_name, const DimensionList& dimensions,
                       const PartitionKey& key);
// The same, given the partition-key dimension's value ("" when absent).
uint64_t PartitionHash(std::string_view measure_name, std::string_view key_value,
                       const PartitionKey& key);

// The hash that places a series on one of a cluster's shards (docs/cluster.md,
// "Shards"): the partition hash when the table has a DIMENSION partition key
// (a query fixing the key reads one shard), else the series key's own hash
// (its dimensions' bytes seeded with the measure name's): with the default
// key, measure_name, one measure would otherwise be one hot shard.
uint64_t RoutingHash(std::string_view measure_name, std::string_view dimension_bytes,
                     uint64_t partition_hash, const PartitionKey& key);
uint64_t RoutingHash(const NormalizedRecord& record, const PartitionKey& key);
// The shard of a routing hash among `shards` (a power of two): its top
// log2(shards) bits, so that doubling the count halves each shard's range.
uint32_t ShardOf(uint64_t routing_hash, uint32_t shards);

// The targets of `series` in key order (scans and last-point probes then
// walk the keyspace forward); `order`, when given, says which of `series`
// each is.
std::vector<SeriesTarget> SeriesTargetsOf(
    const std::vector<std::shared_ptr<const SeriesInfo>>& series, const PartitionKey& key,
    std::vector<uint32_t>* order = nullptr);

// The canonical key of a series: measure name and sorted dimensions.
std::string SeriesKey(const NormalizedRecord& record);
// Parses a series key back into its parts.
bool ParseSeriesKey(std::string_view key, SeriesInfo* info);

// Changes one write group makes to a table's registry and schema. They are
// written in the group's batch and applied to memory once it is durable.
struct TableChanges {
  SeriesKeyMap<SeriesInfo> new_series;  // by series key
  absl::flat_hash_map<uint64_t, std::string> new_series_ids;
  absl::flat_hash_map<std::string, MeasureSchema> schema;   // new or widened measures
  absl::flat_hash_map<std::string, ValueType> attribute_types;  // new attribute names
  absl::flat_hash_set<std::string> dimension_names;              // new dimension names
};

class TableState {
 public:
  // Loads the registry and schema of `table_id` from the catalog family.
  static absl::StatusOr<std::unique_ptr<TableState>> Load(Store* store, uint32_t table_id);

  uint32_t table_id() const { return table_id_; }

  std::optional<uint64_t> FindSeries(const SeriesKeyView& series_key) const;
  // FindSeries of key(0) .. key(n - 1) under one lock (a request's records:
  // the lock taken per record was ~2 % of the server's CPU under ingest);
  // calls found(i, id) for each key registered.
  void FindEachSeries(size_t n, absl::FunctionRef<SeriesKeyView(size_t)> key,
                      absl::FunctionRef<void(size_t, uint64_t)> found) const;
  std::optional<SeriesInfo> DescribeSeries(uint64_t series) const;
  // True if `id` is taken by any series (to resolve hash collisions).
  bool SeriesIdTaken(uint64_t id) const;
  std::optional<MeasureSchema> FindMeasure(std::string_view measure_name) const;
  // The one type of a MULTI attribute name in this table, if it has one.
  std::optional<ValueType> AttributeType(std::string_view name) const;
  // True if some series of the table has a dimension of this name.
  bool IsDimension(std::string_view name) const;
  // True if the table already knows the record's measure with exactly the
  // record's kind and attribute types: the common case, checked without
  // copying the schema.
  bool Conforms(const NormalizedRecord& record) const;
  int measure_count() const;
  // Distinct MULTI attribute names.
  int attribute_count() const;
  // Every MULTI attribute name with its table-wide type, for SQL's columns.
  std::vector<std::pair<std::string, ValueType>> AttributeTypes() const;
  // Names that break the one-name-one-meaning rule in a data directory
  // written before it (attributes of another type than the table-wide one,
  // attributes named like a dimension), described for a log line.
  std::vector<std::string> LegacyConflicts() const;
  // Every measure name with its schema, for SHOW MEASURES.
  std::vector<std::pair<std::string, MeasureSchema>> Measures() const;
  // Every series, for planning (pruning by measure and dimension): shared,
  // not copied (copying 100,000 series' strings was a third of building a
  // query's table layout). In the order they were registered.
  std::vector<std::shared_ptr<const SeriesInfo>> AllSeries() const;
  // The series registered after the first `count`, and the schema's
  // generation at that moment: a view of the first `count` series built at
  // that schema generation is extended by these alone (a query's table
  // layout after a new series, query/exec/table_layout.h).
  struct SeriesAdded {
    std::vector<std::shared_ptr<const SeriesInfo>> series;
    uint64_t schema_generation = 0;
  };
  SeriesAdded SeriesAfter(size_t count) const;
  // Changes whenever Apply adds a series or widens the schema: a view derived
  // from the registry and schema stays current while this is unchanged. Read
  // it before copying what the view is built from.
  uint64_t generation() const { return generation_.load(std::memory_order_acquire); }

  // What the writer knows of one series' rows in its latest bucket: the
  // newest time stored in any family, and whether `cold_delta` or a block
  // holds some of them. Committer-only, like Apply.
  struct Newest {
    uint32_t bucket = 0;
    int64_t time_nanos = INT64_MIN;
    bool in_cold = false;
    // The bucket's conversion count (bucket_conversions) when in_cold was
    // last known: a conversion since then put the series' rows in a block.
    uint32_t conversions = 0;
  };
  absl::flat_hash_map<uint64_t, Newest>& newest_cache() { return newest_; }
  // How often the tiering job converted each bucket while this process ran
  // (Writer::BucketConverted): one counter per bucket instead of marking
  // every cached series of it. Committer-only.
  absl::flat_hash_map<uint32_t, uint32_t>& bucket_conversions() { return conversions_; }

  void Apply(const TableChanges& changes);

  // The newest row of each series that a last-point query has read
  // (storage/read/last_points.h).
  LastPoints& last_points() { return last_points_; }

 private:
  explicit TableState(uint32_t table_id) : table_id_(table_id) {}
  std::vector<std::string> LegacyConflictsLocked() const ABSL_SHARED_LOCKS_REQUIRED(mu_);
  // Adds a series unless its key is known.
  void Register(std::string key, SeriesInfo info) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const uint32_t table_id_;
  mutable absl::Mutex mu_;
  SeriesKeyMap<uint64_t> series_by_key_ ABSL_GUARDED_BY(mu_);
  // Every series in the order registered (only ever appended), and where
  // each id is in it.
  std::vector<std::shared_ptr<const SeriesInfo>> registered_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<uint64_t, size_t> series_by_id_ ABSL_GUARDED_BY(mu_);
  // Changes with measures, attributes or dimension names (not with a series
  // of known names alone).
  uint64_t schema_generation_ ABSL_GUARDED_BY(mu_) = 0;
  absl::flat_hash_map<std::string, MeasureSchema> measures_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, ValueType> attribute_types_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_set<std::string> dimension_names_ ABSL_GUARDED_BY(mu_);
  // Set at load when the directory holds conflicts: MULTI writes then take
  // the checked path, which rejects what would add to them.
  bool legacy_conflicts_ ABSL_GUARDED_BY(mu_) = false;
  std::atomic<uint64_t> generation_{0};
  absl::flat_hash_map<uint64_t, Newest> newest_;  // committer-only
  absl::flat_hash_map<uint32_t, uint32_t> conversions_;  // committer-only
  LastPoints last_points_;
};

}  // namespace strata
