#include "storage/scan.h"

#include <algorithm>
#include <memory>

#include "common/status.h"
#include "storage/keys.h"
#include "storage/row_codec.h"

namespace strata {
namespace {

// One family's iterator, re-seekable to successive key ranges.
class Cursor {
 public:
  Cursor(const Store& store, Store::Family family, const rocksdb::Snapshot* snapshot,
         const std::string& upper)
      : upper_key_(upper), upper_(upper_key_) {
    rocksdb::ReadOptions options;
    options.snapshot = snapshot;
    options.iterate_upper_bound = &upper_;
    iter_.reset(store.db()->NewIterator(options, store.family(family)));
  }
  void Seek(const std::string& begin, const std::string& end) {
    end_ = end;
    iter_->Seek(begin);
  }
  bool Valid() const { return iter_->Valid() && iter_->key().compare(end_) < 0; }
  std::string_view key() const { return iter_->key().ToStringView(); }
  std::string_view value() const { return iter_->value().ToStringView(); }
  void Next() { iter_->Next(); }
  absl::Status status() const { return FromRocks(iter_->status(), "scanning"); }

 private:
  std::string upper_key_;
  rocksdb::Slice upper_;
  std::string end_;
  std::unique_ptr<rocksdb::Iterator> iter_;
};

struct Range {
  std::string begin, end;
};

}  // namespace

absl::Status ScanTable(const Store& store, const TableInfo& table, int64_t now_nanos,
                       const ScanOptions& options,
                       const std::function<bool(const ScanRow&)>& emit, ScanStats* stats) {
  ScanStats local;
  const int64_t start = std::max({options.start_nanos, table.RetentionStartNanos(now_nanos),
                                  int64_t{0}});
  const int64_t end = options.end_nanos;
  if (start >= end) {
    if (stats != nullptr) *stats = local;
    return absl::OkStatus();
  }
  const uint32_t first_bucket = keys::BucketOf(start);
  const uint32_t last_bucket = keys::BucketOf(end - 1);
  local.buckets_in_range = static_cast<int64_t>(last_bucket) - first_bucket + 1;
  const std::string table_end = keys::TableDataPrefix(table.id + 1);

  const rocksdb::Snapshot* snapshot = store.db()->GetSnapshot();
  Cursor hot(store, Store::kHot, snapshot, table_end);
  Cursor delta(store, Store::kColdDelta, snapshot, table_end);
  absl::Status status;
  uint64_t bucket_seen = UINT64_MAX;
  ScanRow row;
  bool stopped = false;

  // Reads [begin, end) of both families merged; false once the scan must stop.
  auto read_range = [&](const std::string& begin, const std::string& range_end) {
    hot.Seek(begin, range_end);
    delta.Seek(begin, range_end);
    while (hot.Valid() || delta.Valid()) {
      if (options.cancelled != nullptr && options.cancelled->load(std::memory_order_relaxed)) {
        status = absl::CancelledError("the query was cancelled");
        return false;
      }
      // Take the smaller key; on a tie, read both and keep the higher version.
      int order = !hot.Valid() ? 1 : !delta.Valid() ? -1 : hot.key().compare(delta.key());
      Cursor* from = order <= 0 ? &hot : &delta;
      keys::PointKey key;
      if (!keys::DecodePointKey(from->key(), &key)) {
        status = absl::DataLossError("a stored point key is malformed; restore from a backup");
        return false;
      }
      auto decoded = DecodeRow(from->value());
      if (!decoded.ok()) {
        status = decoded.status();
        return false;
      }
      local.rows_scanned++;
      local.bytes_scanned += static_cast<int64_t>(from->key().size() + from->value().size());
      if (order == 0) {
        auto other = DecodeRow(delta.value());
        if (!other.ok()) {
          status = other.status();
          return false;
        }
        if (other->version > decoded->version) decoded = std::move(other);
        local.rows_scanned++;
        delta.Next();
      }
      from->Next();
      if (key.bucket != bucket_seen) {
        bucket_seen = key.bucket;
        local.buckets_scanned++;
      }
      if (key.time_nanos < start || key.time_nanos >= end) continue;
      row.series = key.series;
      row.time_nanos = key.time_nanos;
      row.version = decoded->version;
      row.measures = std::move(decoded->measures);
      if (!emit(row)) {
        stopped = true;
        return false;
      }
    }
    return true;
  };

  // The first bucket >= `from` that holds any row, so empty stretches of a
  // long time range cost one seek, not one per bucket and series.
  auto next_bucket = [&](uint32_t from) -> std::optional<uint32_t> {
    hot.Seek(keys::BucketPrefix(table.id, from), table_end);
    delta.Seek(keys::BucketPrefix(table.id, from), table_end);
    std::optional<uint32_t> found;
    for (Cursor* c : {&hot, &delta}) {
      keys::PointKey key;
      if (c->Valid() && keys::DecodePointKey(c->key(), &key)) {
        found = found ? std::min(*found, key.bucket) : key.bucket;
      }
    }
    return found;
  };

  if (options.series == nullptr) {
    read_range(keys::BucketPrefix(table.id, first_bucket),
               last_bucket == UINT32_MAX ? table_end
                                         : keys::BucketPrefix(table.id, last_bucket + 1));
  } else {
    std::vector<SeriesTarget> targets = *options.series;
    std::sort(targets.begin(), targets.end());
    for (uint64_t b = first_bucket; b <= last_bucket && status.ok() && !stopped;) {
      std::optional<uint32_t> bucket = next_bucket(static_cast<uint32_t>(b));
      if (!bucket || *bucket > last_bucket) break;
      for (const SeriesTarget& t : targets) {
        std::string prefix = keys::SeriesBucketPrefix(table.id, *bucket, t.pk_hash, t.series);
        if (!read_range(prefix, keys::PrefixEnd(prefix))) break;
      }
      b = static_cast<uint64_t>(*bucket) + 1;
    }
  }
  if (status.ok()) status = hot.status();
  if (status.ok()) status = delta.status();
  store.db()->ReleaseSnapshot(snapshot);
  if (stats != nullptr) *stats = local;
  return status;
}

}  // namespace strata
