#include "storage/tiering.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <optional>

#include "common/coding.h"
#include "common/status.h"
#include "rocksdb/write_batch.h"
#include "storage/format/block.h"
#include "storage/format/block_format.h"
#include "storage/keys.h"
#include "storage/row_codec.h"

namespace strata {
namespace {

// A chunk ends at the first series boundary after this many rows: enough to
// amortise the write, small enough that writers barely wait.
constexpr int64_t kChunkRows = 32'768;

// A point read from one tier; `rank` orders tiers by recency of writing
// (block 0, delta 1, hot 2) for ties between equal versions.
struct Candidate {
  int64_t time;
  int rank;
  format::BlockPoint point;
};

std::unique_ptr<rocksdb::Iterator> Iterate(Store& store, Store::Family family,
                                           const rocksdb::Slice* upper) {
  rocksdb::ReadOptions options;
  options.iterate_upper_bound = upper;
  return std::unique_ptr<rocksdb::Iterator>(store.db()->NewIterator(options, store.family(family)));
}

// The first bucket in [from, end) holding `hot` or `cold_delta` rows.
std::optional<uint32_t> NextBucket(Store& store, uint32_t table_id, uint32_t from, uint32_t end) {
  const std::string upper = keys::BucketPrefix(table_id, end);
  const rocksdb::Slice upper_slice(upper);
  std::optional<uint32_t> found;
  for (Store::Family family : {Store::kHot, Store::kColdDelta}) {
    auto iter = Iterate(store, family, &upper_slice);
    iter->Seek(keys::BucketPrefix(table_id, from));
    if (!iter->Valid()) continue;
    const uint32_t bucket = DecodeFixed32BE(iter->key().data() + 4);
    if (!found || bucket < *found) found = bucket;
  }
  return found;
}

class BucketConverter {
 public:
  BucketConverter(Store& store, TieringReport* report) : store_(store), report_(report) {}

  // Converts [*cursor, bucket_end): one chunk. Advances *cursor past it.
  absl::Status ConvertChunk(std::string* cursor, const std::string& bucket_end) {
    const rocksdb::Slice upper(bucket_end);
    std::map<std::string, std::vector<Candidate>> series;  // by block key
    auto hot = Iterate(store_, Store::kHot, &upper);
    int64_t rows = 0;
    std::string chunk_end = bucket_end;
    std::string_view last_prefix;
    for (hot->Seek(*cursor); hot->Valid(); hot->Next()) {
      const std::string_view key = hot->key().ToStringView();
      if (key.size() != keys::kPointKeySize) return Malformed();
      const std::string_view prefix = key.substr(0, keys::kBlockKeySize);
      if (rows >= kChunkRows && prefix != last_prefix) {
        chunk_end = std::string(prefix);
        break;
      }
      RETURN_IF_ERROR(Add(&series, key, hot->value().ToStringView(), 2));
      last_prefix = series.rbegin()->first;
      ++rows;
      ++report_->rows_moved;
    }
    RETURN_IF_ERROR(FromRocks(hot->status(), "reading the memory store"));

    const rocksdb::Slice chunk_upper(chunk_end);
    auto delta = Iterate(store_, Store::kColdDelta, &chunk_upper);
    for (delta->Seek(*cursor); delta->Valid(); delta->Next()) {
      const std::string_view key = delta->key().ToStringView();
      if (key.size() != keys::kPointKeySize) return Malformed();
      RETURN_IF_ERROR(Add(&series, key, delta->value().ToStringView(), 1));
      ++report_->delta_rows_merged;
    }
    RETURN_IF_ERROR(FromRocks(delta->status(), "reading the magnetic store's late writes"));

    rocksdb::WriteBatch batch;
    std::string delete_from = *cursor;
    for (auto& [block_key, candidates] : series) {
      RETURN_IF_ERROR(AddExistingBlock(block_key, &candidates));
      std::vector<format::BlockPoint> points = Resolve(&candidates);
      if (points.size() > format::kMaxPointsPerBlock) {
        // Too many for one block: leave this series where it is.
        ++report_->series_left_in_memory;
        DeleteRange(&batch, delete_from, block_key);
        delete_from = keys::PrefixEnd(block_key);
        continue;
      }
      ASSIGN_OR_RETURN(std::string block, format::EncodeBlock(points));
      batch.Put(store_.family(Store::kCold), block_key, block);
      ++report_->blocks_written;
    }
    DeleteRange(&batch, delete_from, chunk_end);
    RETURN_IF_ERROR(FromRocks(store_.db()->Write(store_.write_options(), &batch),
                              "writing magnetic-store blocks"));
    *cursor = chunk_end;
    return absl::OkStatus();
  }

 private:
  static absl::Status Malformed() {
    return absl::DataLossError("a stored point key is malformed; restore from a backup");
  }

  static absl::Status Add(std::map<std::string, std::vector<Candidate>>* series,
                          std::string_view key, std::string_view value, int rank) {
    keys::PointKey point;
    keys::DecodePointKey(key, &point);
    ASSIGN_OR_RETURN(StoredRow row, DecodeRow(value));
    auto& candidates = (*series)[std::string(key.substr(0, keys::kBlockKeySize))];
    candidates.push_back(
        {point.time_nanos, rank, {point.time_nanos, row.version, std::move(row.measures)}});
    return absl::OkStatus();
  }

  absl::Status AddExistingBlock(const std::string& block_key, std::vector<Candidate>* candidates) {
    std::string bytes;
    rocksdb::Status s = store_.db()->Get(rocksdb::ReadOptions(), store_.family(Store::kCold),
                                         block_key, &bytes);
    if (s.IsNotFound()) return absl::OkStatus();
    RETURN_IF_ERROR(FromRocks(s, "reading a magnetic-store block"));
    ASSIGN_OR_RETURN(auto points, format::DecodeBlock(bytes));
    for (auto& p : points) candidates->push_back({p.time_nanos, 0, std::move(p)});
    return absl::OkStatus();
  }

  // One point per time: the highest version, then the most recent tier.
  static std::vector<format::BlockPoint> Resolve(std::vector<Candidate>* candidates) {
    std::sort(candidates->begin(), candidates->end(), [](const Candidate& a, const Candidate& b) {
      if (a.time != b.time) return a.time < b.time;
      if (a.point.version != b.point.version) return a.point.version > b.point.version;
      return a.rank > b.rank;
    });
    std::vector<format::BlockPoint> points;
    points.reserve(candidates->size());
    for (Candidate& c : *candidates) {
      if (!points.empty() && points.back().time_nanos == c.time) continue;
      points.push_back(std::move(c.point));
    }
    return points;
  }

  void DeleteRange(rocksdb::WriteBatch* batch, const std::string& from, const std::string& to) {
    if (from >= to) return;
    batch->DeleteRange(store_.family(Store::kHot), from, to);
    batch->DeleteRange(store_.family(Store::kColdDelta), from, to);
  }

  Store& store_;
  TieringReport* report_;
};

}  // namespace

absl::StatusOr<TieringReport> RunTiering(Store& store, Writer& writer, const TableInfo& table,
                                         int64_t now_nanos) {
  const auto started = std::chrono::steady_clock::now();
  TieringReport report;
  const uint32_t end = keys::BucketsBefore(table.MemoryStoreStartNanos(now_nanos));
  BucketConverter converter(store, &report);
  for (uint32_t from = 0; from < end;) {
    std::optional<uint32_t> bucket = NextBucket(store, table.id, from, end);
    if (!bucket) break;
    std::string cursor = keys::BucketPrefix(table.id, *bucket);
    const std::string bucket_end = keys::BucketPrefix(table.id, *bucket + 1);
    while (cursor < bucket_end) {
      RETURN_IF_ERROR(writer.Exclusive([&] { return converter.ConvertChunk(&cursor, bucket_end); }));
    }
    ++report.buckets;
    from = *bucket + 1;
  }
  report.duration_nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(
                              std::chrono::steady_clock::now() - started).count();
  return report;
}

}  // namespace strata
