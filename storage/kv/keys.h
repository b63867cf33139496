// Key layout of every column family (docs/storage.md, "Storage layout").
// Integers in keys are fixed-width big-endian so bytewise order is numeric
// order. Names never contain '\0' (names.h forbids it), so '\0' separates them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace strata::keys {

// catalog CF ---------------------------------------------------------------
// 'd' \0 <database>                → database record
// 't' \0 <database> \0 <table>     → table record
// 'n' \0 <counter>                 → next id (fixed64 BE)
// 'x' <table id u32>  ...          → per-table catalog data (series, schemas);
//                                    dropped with the table as one range
// 'k' \0 <token id>                → API token (token_store.h)
// 'q' \0 <name>                    → scheduled query (scheduled_query_store.h)
// 'r' \0 <name> \0 <seq u64>        → one run of a scheduled query
// 'c' \0 <shard u32>              → what this replica applied of the shard's log
//                                    (cluster/replica.h: sequence and digest)
// 'm' \0                          → the cluster this data directory belongs to
std::string Database(std::string_view database);
std::string DatabasePrefix();
std::string Table(std::string_view database, std::string_view table);
std::string TablePrefix();
std::string Counter(std::string_view name);
std::string Token(std::string_view id);
std::string TokenPrefix();
std::string ScheduledQuery(std::string_view name);
std::string ScheduledQueryPrefix();
std::string ScheduledQueryRun(std::string_view name, uint64_t sequence);
std::string ScheduledQueryRunPrefix(std::string_view name);
std::string ReplicaState(uint32_t shard);
std::string ClusterMembership();
// The first byte of every table's catalog entries (before its id).
std::string AllTablesCatalogPrefix();
std::string TableCatalogPrefix(uint32_t table_id);

// per-table catalog data, after TableCatalogPrefix(table):
//   's' <series key>                → series id (fixed64 BE)
//   'm' <measure name>              → measure kind (1 byte, MeasureKind)
//   'a' <measure name> \0 <attr>    → MULTI attribute type (1 byte, ValueType)
// A series key is <measure name> \0 then <dim name> \0 <dim value> \0 for
// each dimension in name order ('\0' is not allowed in names or values).
std::string SeriesEntry(uint32_t table_id, std::string_view series_key);
std::string MeasureEntry(uint32_t table_id, std::string_view measure_name);
std::string AttributeEntry(uint32_t table_id, std::string_view measure_name,
                           std::string_view attribute);

// hot, cold, cold_delta, index CFs: every key starts with the table id -------
std::string TableDataPrefix(uint32_t table_id);

// Width of a time bucket: the unit of tiering and retention drops.
inline constexpr int64_t kBucketNanos = 3'600'000'000'000LL;  // one hour
inline uint32_t BucketOf(int64_t time_nanos) {
  return static_cast<uint32_t>(time_nanos / kBucketNanos);
}

// The number of buckets that end at or before `time_nanos`: buckets
// [0, BucketsBefore(t)) hold only times < t.
inline uint32_t BucketsBefore(int64_t time_nanos) {
  return time_nanos <= 0 ? 0 : static_cast<uint32_t>(time_nanos / kBucketNanos);
}

// hot and cold_delta: [table u32][bucket u32][pk_hash u64][series u64][time i64]
inline constexpr size_t kPointKeySize = 32;
struct PointKey {
  uint32_t table_id = 0;
  uint32_t bucket = 0;
  uint64_t pk_hash = 0;
  uint64_t series = 0;
  int64_t time_nanos = 0;
};
std::string EncodePointKey(const PointKey& key);
// The same into out[0, kPointKeySize), without allocating.
void EncodePointKeyTo(const PointKey& key, char* out);
// False unless `bytes` is a well-formed point key.
bool DecodePointKey(std::string_view bytes, PointKey* key);
// The prefix of all point keys of one series in one bucket (24 bytes), and
// the key of that series' block in `cold`.
inline constexpr size_t kBlockKeySize = 24;
// The series of a point key or a block key (at least kBlockKeySize bytes).
uint64_t SeriesOfKey(std::string_view key);
// The table, bucket, partition and series of a point key or a block key (at least
// kBlockKeySize bytes); time_nanos 0.
PointKey DecodeSeriesPrefix(std::string_view key);
std::string SeriesBucketPrefix(uint32_t table_id, uint32_t bucket, uint64_t pk_hash,
                               uint64_t series);
// [table][bucket]: the prefix of one bucket.
std::string BucketPrefix(uint32_t table_id, uint32_t bucket);

// index: [table u32] <dim name> \0 <dim value> \0 [series u64] → empty
std::string IndexEntry(uint32_t table_id, std::string_view dimension, std::string_view value,
                       uint64_t series);

// The exclusive upper bound of all keys starting with `prefix`
// (prefix + 1 in the last byte that is not 0xff).
std::string PrefixEnd(std::string_view prefix);

}  // namespace strata::keys
