#include "storage/jobs/deletion.h"

#include <algorithm>
#include <map>

#include "absl/container/flat_hash_set.h"
#include "common/status.h"
#include "rocksdb/write_batch.h"
#include "storage/blocks/block.h"
#include "storage/head/head_log.h"
#include "storage/kv/keys.h"
#include "storage/read/stored_blocks.h"

namespace strata {
namespace {

keys::PointKey KeyOf(const TableInfo& table, const PointToDelete& p) {
  return {.table_id = table.id, .bucket = keys::BucketOf(p.time_nanos), .pk_hash = p.pk_hash,
          .series = p.series, .time_nanos = p.time_nanos};
}

// Deletes the points of one bucket (sorted by series, then time).
absl::StatusOr<int64_t> DeleteBucket(Store& store, MemoryHead& head, const TableInfo& table,
                                     const std::vector<PointToDelete>& points) {
  rocksdb::WriteBatch batch;
  // Rows: a point key in `hot` or `cold_delta`. Deleting a key that is not
  // there costs a tombstone and nothing else.
  absl::flat_hash_set<int64_t> found_rows;  // by index into points
  std::vector<std::string> row_keys;
  for (const PointToDelete& p : points) row_keys.push_back(keys::EncodePointKey(KeyOf(table, p)));
  // The memory head's rows: erased through its log, then from the head once
  // the batch is durable.
  std::vector<MemoryHead::Change> head_erases;
  head_log::EntryBuilder head_entry;
  for (size_t i = 0; i < points.size(); ++i) {
    const keys::PointKey key = KeyOf(table, points[i]);
    if (!head.Find(key)) continue;
    head_entry.Erase(key);
    head_erases.push_back({key, std::nullopt});
    found_rows.insert(static_cast<int64_t>(i));
  }
  if (!head_entry.empty()) {
    const keys::PointKey& first = head_erases.front().key;
    batch.Put(store.family(Store::kHeadLog),
              head_log::Key(first.table_id, first.bucket, head.TakeLogSequence()),
              head_entry.bytes());
  }
  for (Store::Family family : {Store::kColdDelta}) {
    std::vector<rocksdb::Slice> slices(row_keys.begin(), row_keys.end());
    std::vector<std::string> values;
    std::vector<rocksdb::ColumnFamilyHandle*> families(slices.size(), store.family(family));
    std::vector<rocksdb::Status> statuses =
        store.db()->MultiGet(rocksdb::ReadOptions(), families, slices, &values);
    for (size_t i = 0; i < statuses.size(); ++i) {
      if (statuses[i].IsNotFound()) continue;
      RETURN_IF_ERROR(FromRocks(statuses[i], "reading rows to delete"));
      batch.Delete(store.family(family), row_keys[i]);
      found_rows.insert(static_cast<int64_t>(i));
    }
  }
  // Blocks: one per series of the bucket, rewritten without the points.
  std::map<std::string, std::vector<size_t>> by_block;
  for (size_t i = 0; i < points.size(); ++i) {
    by_block[row_keys[i].substr(0, keys::kBlockKeySize)].push_back(i);
  }
  for (const auto& [block_key, indexes] : by_block) {
    ASSIGN_OR_RETURN(std::optional<std::string> bytes,
                     ReadBlock(store, rocksdb::ReadOptions(), block_key));
    if (!bytes) continue;
    ASSIGN_OR_RETURN(std::vector<format::BlockPoint> block, format::DecodeBlock(*bytes));
    absl::flat_hash_set<int64_t> times;
    for (size_t i : indexes) times.insert(points[i].time_nanos);
    const size_t before = block.size();
    std::erase_if(block, [&](const format::BlockPoint& p) {
      return times.contains(p.time_nanos);
    });
    if (block.size() == before) continue;
    for (size_t i : indexes) found_rows.insert(static_cast<int64_t>(i));
    if (block.empty()) {
      DeleteBlock(store, block_key, &batch);
      continue;
    }
    ASSIGN_OR_RETURN(std::string encoded, format::EncodeBlock(block));
    RETURN_IF_ERROR(PutBlock(store, block_key, encoded, &batch));
  }
  if (batch.Count() > 0) {
    RETURN_IF_ERROR(FromRocks(store.db()->Write(store.write_options(), &batch), "deleting rows"));
    head.Apply(head_erases);
  }
  return static_cast<int64_t>(found_rows.size());
}

}  // namespace

absl::StatusOr<int64_t> DeletePoints(Store& store, MemoryHead& head, Writer& writer, const TableInfo& table,
                                     LastPoints& last_points, std::vector<PointToDelete> points) {
  std::sort(points.begin(), points.end(), [](const PointToDelete& a, const PointToDelete& b) {
    return std::tie(a.time_nanos, a.series) < std::tie(b.time_nanos, b.series);
  });
  std::map<uint32_t, std::vector<PointToDelete>> by_bucket;
  for (const PointToDelete& p : points) by_bucket[keys::BucketOf(p.time_nanos)].push_back(p);
  int64_t deleted = 0;
  // Not a structured binding: clang 14 (scripts/fuzz.sh) cannot capture one.
  for (const auto& entry : by_bucket) {
    const uint32_t bucket = entry.first;
    const std::vector<PointToDelete>& in_bucket = entry.second;
    ASSIGN_OR_RETURN(int64_t n, writer.Exclusive([&]() -> absl::StatusOr<int64_t> {
      // A conversion of this bucket read before the delete must not commit.
      writer.BucketChanged(table.id, bucket);
      absl::StatusOr<int64_t> deleted = DeleteBucket(store, head, table, in_bucket);
      // Whatever was deleted, a series' newest row may be gone.
      last_points.Clear();
      return deleted;
    }));
    deleted += n;
  }
  return deleted;
}

}  // namespace strata
