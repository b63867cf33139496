#include "storage/scan.h"

#include <algorithm>
#include <memory>

#include "common/status.h"
#include "storage/keys.h"
#include "storage/row_codec.h"

namespace strata {
namespace {

// One family's iterator over the scan's key range.
class Cursor {
 public:
  Cursor(const Store& store, Store::Family family, const rocksdb::Snapshot* snapshot,
         const std::string& begin, const std::string& end)
      : end_(end), upper_(end_) {
    rocksdb::ReadOptions options;
    options.snapshot = snapshot;
    options.iterate_upper_bound = &upper_;
    iter_.reset(store.db()->NewIterator(options, store.family(family)));
    iter_->Seek(begin);
  }
  bool Valid() const { return iter_->Valid(); }
  std::string_view key() const { return iter_->key().ToStringView(); }
  std::string_view value() const { return iter_->value().ToStringView(); }
  void Next() { iter_->Next(); }
  absl::Status status() const { return FromRocks(iter_->status(), "scanning"); }

 private:
  std::string end_;
  rocksdb::Slice upper_;
  std::unique_ptr<rocksdb::Iterator> iter_;
};

}  // namespace

absl::Status ScanTable(const Store& store, const TableInfo& table, int64_t now_nanos,
                       const ScanOptions& options,
                       const std::function<bool(const ScanRow&)>& emit, ScanStats* stats) {
  const int64_t start = std::max({options.start_nanos, table.RetentionStartNanos(now_nanos),
                                  int64_t{0}});
  const int64_t end = options.end_nanos;
  if (start >= end) return absl::OkStatus();
  const uint32_t first_bucket = keys::BucketOf(start);
  const uint64_t last_bucket = static_cast<uint64_t>(keys::BucketOf(end - 1));
  const std::string begin_key = keys::BucketPrefix(table.id, first_bucket);
  // Past the last bucket; table id + 1 when the range reaches the end.
  const std::string end_key = last_bucket + 1 > UINT32_MAX
                                  ? keys::TableDataPrefix(table.id + 1)
                                  : keys::BucketPrefix(table.id,
                                                       static_cast<uint32_t>(last_bucket + 1));

  const rocksdb::Snapshot* snapshot = store.db()->GetSnapshot();
  Cursor hot(store, Store::kHot, snapshot, begin_key, end_key);
  Cursor delta(store, Store::kColdDelta, snapshot, begin_key, end_key);

  absl::Status status;
  ScanStats local;
  uint32_t bucket_seen = UINT32_MAX;
  ScanRow row;
  while (hot.Valid() || delta.Valid()) {
    // Take the smaller key; on a tie, read both and keep the higher version.
    int order = !hot.Valid() ? 1 : !delta.Valid() ? -1 : hot.key().compare(delta.key());
    Cursor* from = order <= 0 ? &hot : &delta;
    keys::PointKey key;
    if (!keys::DecodePointKey(from->key(), &key)) {
      status = absl::DataLossError("a stored point key is malformed; restore from a backup");
      break;
    }
    auto decoded = DecodeRow(from->value());
    if (!decoded.ok()) {
      status = decoded.status();
      break;
    }
    local.rows_scanned++;
    local.bytes_scanned += static_cast<int64_t>(from->key().size() + from->value().size());
    if (order == 0) {
      auto other = DecodeRow(delta.value());
      if (!other.ok()) {
        status = other.status();
        break;
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
    if (options.series != nullptr && !options.series->contains(key.series)) continue;
    row.series = key.series;
    row.time_nanos = key.time_nanos;
    row.version = decoded->version;
    row.measures = std::move(decoded->measures);
    if (!emit(row)) break;
  }
  if (status.ok()) status = hot.status();
  if (status.ok()) status = delta.status();
  store.db()->ReleaseSnapshot(snapshot);
  if (stats != nullptr) *stats = local;
  return status;
}

}  // namespace strata
