#include "storage/read/scan.h"

#include <algorithm>
#include <array>
#include <memory>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "common/coding.h"
#include "common/status.h"
#include "rocksdb/perf_level.h"
#include "storage/blocks/block.h"
#include "storage/kv/keys.h"
#include "storage/read/stored_blocks.h"
#include "storage/rows/row_codec.h"

namespace strata {
namespace {

// A source of point rows in key order over successive key ranges: one data
// family. Every source yields 32-byte point keys, so the merge compares them
// bytewise whatever tier they come from.
class Source {
 public:
  Source(const Store& store, Store::Family family, const rocksdb::Snapshot* snapshot,
         const std::string& upper)
      : upper_key_(upper), upper_(upper_key_) {
    read_options_.snapshot = snapshot;
    read_options_.iterate_upper_bound = &upper_;
    iter_.reset(store.db()->NewIterator(read_options_, store.family(family)));
  }
  // Over the memory head (its iterator holds its own upper bound).
  explicit Source(std::unique_ptr<rocksdb::Iterator> iter) : iter_(std::move(iter)) {}
  virtual ~Source() = default;

  virtual void Seek(const std::string& begin, const std::string& end) = 0;
  virtual bool Valid() const = 0;
  virtual std::string_view key() const = 0;
  // The current row; may move out of internal storage (call once per row).
  virtual absl::Status Take(StoredRow* row) = 0;
  virtual void Next() = 0;

  // The bucket of the first stored key at or after `begin`, if any: one
  // seek, nothing decoded.
  std::optional<uint32_t> FirstBucketFrom(const std::string& begin) {
    iter_->Seek(begin);
    if (!iter_->Valid() || iter_->key().size() < 8) return std::nullopt;
    return DecodeFixed32BE(iter_->key().data() + 4);
  }
  // The bucket of the last stored key of `table_id` that sorts before
  // `end_prefix` (a bucket prefix, or the next table's), if any: one
  // reverse seek, nothing decoded.
  std::optional<uint32_t> LastBucketBefore(uint32_t table_id, const std::string& end_prefix) {
    iter_->SeekForPrev(end_prefix);
    if (!iter_->Valid() || !iter_->key().starts_with(keys::TableDataPrefix(table_id)) ||
        iter_->key().size() < 8) {
      return std::nullopt;
    }
    return DecodeFixed32BE(iter_->key().data() + 4);
  }
  absl::Status status() const {
    return status_.ok() ? FromRocks(iter_->status(), "scanning") : status_;
  }
  // Only these series' rows are presented (ScanOptions::series_dense): the others' are
  // passed over inside the source. `sorted` holds the same series in key order, so a run of
  // others (a fragment's neighbouring shards) can be sought past in one seek.
  virtual void KeepOnly(const absl::flat_hash_set<uint64_t>* series,
                        const std::vector<SeriesTarget>* sorted) {
    wanted_ = series;
    sorted_ = sorted;
  }

 protected:
  bool InRange() const { return iter_->Valid() && iter_->key().compare(end_) < 0; }
  // Whether the key at the iterator is of a series kept (KeepOnly); the last series and
  // bucket found kept is remembered, so a run of its rows costs a compare each.
  bool Kept() {
    if (wanted_ == nullptr) return true;
    const std::string_view key = iter_->key().ToStringView();
    if (key.size() < keys::kBlockKeySize) return true;  // malformed: the merge reports it
    const std::string_view prefix = key.substr(0, keys::kBlockKeySize);
    if (prefix == kept_prefix_) return true;
    if (!wanted_->contains(keys::SeriesOfKey(key))) return false;
    kept_prefix_.assign(prefix);
    return true;
  }
  // From a key of a series not kept to the first key of the next kept series in its bucket,
  // else of the first kept series in the next bucket (past the table when there is none).
  void SeekNextKept() {
    // Not kept, so kBlockKeySize bytes or more (Kept).
    const keys::PointKey at = keys::DecodeSeriesPrefix(iter_->key().ToStringView());
    const auto next = std::upper_bound(sorted_->begin(), sorted_->end(),
                                       SeriesTarget{.pk_hash = at.pk_hash, .series = at.series});
    if (next != sorted_->end()) {
      iter_->Seek(keys::SeriesBucketPrefix(at.table_id, at.bucket, next->pk_hash, next->series));
    } else if (at.bucket < UINT32_MAX && !sorted_->empty()) {
      iter_->Seek(keys::SeriesBucketPrefix(at.table_id, at.bucket + 1, sorted_->front().pk_hash,
                                           sorted_->front().series));
    } else {
      iter_->Seek(keys::PrefixEnd(keys::TableDataPrefix(at.table_id)));
    }
  }

  std::string upper_key_;
  rocksdb::Slice upper_;
  rocksdb::ReadOptions read_options_;
  std::string end_;
  std::unique_ptr<rocksdb::Iterator> iter_;
  absl::Status status_;
  const absl::flat_hash_set<uint64_t>* wanted_ = nullptr;
  const std::vector<SeriesTarget>* sorted_ = nullptr;  // wanted_'s series in key order
  std::string kept_prefix_;
};

// `hot` or `cold_delta`: one RocksDB entry per point.
class RowSource final : public Source {
 public:
  RowSource(const Store& store, Store::Family family, const rocksdb::Snapshot* snapshot,
            const std::string& upper, ScanStats* stats)
      : Source(store, family, snapshot, upper), stats_(stats) {}
  // The memory head's rows, read as it stores them.
  RowSource(std::unique_ptr<MemoryHead::Iterator> head, ScanStats* stats)
      : Source(nullptr), head_(head.get()), stats_(stats) {
    iter_ = std::move(head);
  }

  void Seek(const std::string& begin, const std::string& end) override {
    end_ = end;
    iter_->Seek(begin);
    SkipOthers();
  }
  bool Valid() const override { return InRange(); }
  std::string_view key() const override { return iter_->key().ToStringView(); }
  absl::Status Take(StoredRow* row) override {
    const auto [bytes, shape] = Stored();
    stats_->rows_scanned++;
    stats_->bytes_scanned += static_cast<int64_t>(iter_->key().size() + bytes.size());
    return DecodeRowInto(bytes, shape, row);
  }
  void Next() override {
    iter_->Next();
    SkipOthers();
  }
  // The memory head steps over the other series itself, without copying their rows' index.
  void KeepOnly(const absl::flat_hash_set<uint64_t>* series,
                const std::vector<SeriesTarget>* sorted) override {
    if (head_ != nullptr) {
      head_->KeepOnly(series);
    } else {
      Source::KeepOnly(series, sorted);
    }
  }
  // The memory head's iterator (null over a RocksDB family).
  MemoryHead::Iterator* head() const { return head_; }
  // Counts rows read outside Take (a series taken whole).
  void CountTaken(absl::Span<const MemoryHead::Entry> rows) {
    stats_->rows_scanned += static_cast<int64_t>(rows.size());
    for (const MemoryHead::Entry& e : rows) {
      stats_->bytes_scanned += static_cast<int64_t>(keys::kPointKeySize + e.size);
    }
  }
  // The current row as stored, without decoding its measures: valid until
  // Next.
  absl::Status TakeEncoded(ScanRow* row) {
    const auto [bytes, shape] = Stored();
    stats_->rows_scanned++;
    stats_->bytes_scanned += static_cast<int64_t>(iter_->key().size() + bytes.size());
    row->encoded = bytes;
    row->shape = shape;
    if (!RowReader(bytes, shape).Start(&row->version)) return CorruptionError("row");
    return absl::OkStatus();
  }

 private:
  std::pair<std::string_view, const RowShape*> Stored() const {
    if (head_ != nullptr) return head_->stored();
    return {iter_->value().ToStringView(), nullptr};
  }
  // Seeks past the series not kept: one seek per run of other series' rows. (The memory
  // head keeps its series itself: KeepOnly.)
  void SkipOthers() {
    while (InRange() && !Kept()) SeekNextKept();
  }

  MemoryHead::Iterator* head_ = nullptr;  // iter_, for the memory head
  ScanStats* stats_;
};

// `cold`: one block per (series, bucket), unrolled into its points. The
// source walks the blocks' header copies (`cold_header`) and reads a block
// from `cold` only when its points or columns are wanted: blocks whose time
// range misses the scan's are skipped on their header alone, and a block
// handed whole to a reader that needs only its header is never read. A
// block's points are decoded only when the first one is taken, so a block
// handed whole to the reader (SkipBlock) is never unrolled.
class BlockSource final : public Source {
 public:
  // Headers of other series stepped over in a row before the rest of the run is sought past.
  static constexpr int kStepsBeforeSeek = 8;

  BlockSource(const Store& store, const rocksdb::Snapshot* snapshot, const std::string& upper,
              int64_t start, int64_t end, ScanStats* stats)
      : Source(store, Store::kColdHeader, snapshot, upper), store_(store), start_(start),
        end_time_(end), stats_(stats) {}

  void Seek(const std::string& begin, const std::string& end) override {
    end_ = end;
    // `begin` may reach into a block's key (a series prefix plus time);
    // blocks are keyed by the 24-byte prefix only.
    iter_->Seek(begin.substr(0, std::min<size_t>(begin.size(), 24)));
    headers_passed_ += 2;  // not a step: the next block read seeks
    Load();
  }
  bool Valid() const override { return loaded_; }
  std::string_view key() const override { return key_; }
  absl::Status Take(StoredRow* row) override {
    if (!Decode()) return status_;
    stats_->rows_scanned++;
    row->version = points_[index_].version;
    std::swap(row->measures, points_[index_].measures);  // each point is taken once
    return absl::OkStatus();
  }
  void Next() override {
    if (!Decode()) {
      loaded_ = false;
      return;
    }
    ++index_;
    if (index_ < points_.size()) {
      SetTime(points_[index_].time_nanos);
    } else {
      SkipBlock();
    }
  }

  // The current block, when none of its points has been taken yet.
  bool AtBlockStart() const { return loaded_ && !decoded_; }
  const format::BlockSummary& summary() const { return summary_; }
  // The current block's parts, valid until the source moves. When the
  // block read before was the previous header's, the block iterator steps
  // to this one; otherwise it seeks (stepping would read the blocks between).
  absl::StatusOr<format::BlockView> block() {
    const std::string_view key = iter_->key().ToStringView();
    if (!blocks_) blocks_.reset(store_.db()->NewIterator(read_options_, store_.family(Store::kCold)));
    if (!blocks_->Valid() || blocks_->key().ToStringView() != key) {
      if (blocks_->Valid() && headers_passed_ == block_header_ + 1) blocks_->Next();
      if (!blocks_->Valid() || blocks_->key().ToStringView() != key) blocks_->Seek(key);
    }
    block_header_ = headers_passed_;
    RETURN_IF_ERROR(FromRocks(blocks_->status(), "reading a magnetic-store block"));
    if (!blocks_->Valid() || blocks_->key().ToStringView() != key) {
      return absl::DataLossError(
          "a magnetic-store block's header has no block; restore from a backup");
    }
    const std::string_view bytes = blocks_->value().ToStringView();
    stats_->bytes_scanned += static_cast<int64_t>(bytes.size());
    // The header iterator is at this block's header.
    return StoredBlockView(iter_->value().ToStringView(), bytes);
  }
  void SkipBlock() {
    iter_->Next();
    ++headers_passed_;
    Load();
  }

 private:
  // Positions on the first block in range that overlaps the time range,
  // reading headers only.
  void Load() {
    points_.clear();
    index_ = 0;
    loaded_ = decoded_ = false;
    int passed = 0;  // headers of other series in a row
    for (; InRange() && status_.ok(); iter_->Next(), ++headers_passed_) {
      if (!Kept()) {
        // Another series' block, passed on its key alone: a few in a row are stepped over,
        // the rest of a longer run (a fragment's neighbouring shards) sought past, as a step
        // costs a tenth of a seek or less.
        if (++passed < kStepsBeforeSeek) continue;
        passed = 0;
        SeekNextKept();
        headers_passed_ += 2;  // not a step: the next block read seeks
        if (!InRange()) break;
        // Landed on another series (the one sought has no block in this bucket, or was
        // written since the scan began): stepped over as any.
        if (!Kept()) continue;
      }
      passed = 0;
      const std::string_view value = iter_->value().ToStringView();
      auto summary = format::DecodeBlockSummary(value);
      if (!summary.ok()) {
        status_ = summary.status();
        return;
      }
      if (summary->max_time < start_ || summary->min_time >= end_time_) {
        stats_->blocks_pruned++;
        continue;
      }
      stats_->blocks_scanned++;
      stats_->bytes_scanned += static_cast<int64_t>(iter_->key().size());
      summary_ = *std::move(summary);
      key_.assign(iter_->key().data(), iter_->key().size());
      SetTime(summary_.min_time);  // a block's first point is its oldest
      loaded_ = true;
      return;
    }
  }
  // Unrolls the current block into points_ once; false on corruption.
  bool Decode() {
    if (decoded_) return true;
    absl::StatusOr<format::BlockView> bytes = block();
    if (!bytes.ok()) {
      status_ = bytes.status();
      return false;
    }
    auto points = format::DecodeBlock(*bytes);
    if (!points.ok()) {
      status_ = points.status();
      return false;
    }
    points_ = *std::move(points);
    decoded_ = true;
    return true;
  }
  void SetTime(int64_t time) {
    key_.resize(24);
    PutOrderedInt64BE(&key_, time);
  }

  const Store& store_;
  const int64_t start_, end_time_;
  ScanStats* stats_;
  std::unique_ptr<rocksdb::Iterator> blocks_;  // over `cold`, made when first needed
  // Headers stepped over so far, and that count when the last block was read.
  int64_t headers_passed_ = 0;
  int64_t block_header_ = -2;
  format::BlockSummary summary_;
  bool loaded_ = false;   // positioned on a block
  bool decoded_ = false;  // points_ holds its points
  std::vector<format::BlockPoint> points_;
  size_t index_ = 0;
  std::string key_;
};

// Which families hold any row of a table's bucket, each asked once per
// bucket: last-point probes then seek only where a series' row can be.
class BucketOccupancy {
 public:
  BucketOccupancy(const Store& store, const rocksdb::ReadOptions& read, uint32_t table_id,
                  const MemoryHead::View& head)
      : store_(store), read_(read), table_id_(table_id), head_(head) {}

  bool Holds(Store::Family family, uint32_t bucket) {
    if (family == Store::kHot) {
      auto it = std::lower_bound(head_.buckets.begin(), head_.buckets.end(), bucket,
                                 [](const auto& b, uint32_t want) { return b.first < want; });
      return it != head_.buckets.end() && it->first == bucket && it->second->rows() > 0;
    }
    auto [it, inserted] = known_.try_emplace({family, bucket}, false);
    if (inserted) {
      const std::string prefix = keys::BucketPrefix(table_id_, bucket);
      std::unique_ptr<rocksdb::Iterator> iter(
          store_.db()->NewIterator(read_, store_.family(family)));
      iter->Seek(prefix);
      it->second = iter->Valid() && iter->key().starts_with(prefix);
    }
    return it->second;
  }

 private:
  const Store& store_;
  const rocksdb::ReadOptions& read_;
  const uint32_t table_id_;
  const MemoryHead::View& head_;
  absl::flat_hash_map<std::pair<Store::Family, uint32_t>, bool> known_;
};

// The newest row of one series in one bucket with time in [start, end), from
// every tier that holds rows of the bucket (highest version on equal times),
// or nullopt. A block is read only when its header copy says it has points
// in range.
absl::StatusOr<std::optional<ScanRow>> NewestInBucket(const Store& store,
                                                      const rocksdb::ReadOptions& read,
                                                      BucketOccupancy& occupancy, uint32_t bucket,
                                                      rocksdb::Iterator* hot,
                                                      rocksdb::Iterator* delta,
                                                      const std::string& prefix, int64_t start,
                                                      int64_t end, ScanStats* stats) {
  std::optional<ScanRow> best;
  auto offer = [&](int64_t time, StoredRow row) {
    if (time < start || time >= end) return;
    if (best && (time < best->time_nanos ||
                 (time == best->time_nanos && row.version <= best->version))) {
      return;
    }
    best = ScanRow{.time_nanos = time, .version = row.version, .measures = std::move(row.measures)};
  };
  std::string last_key = prefix;
  PutOrderedInt64BE(&last_key, end - 1);
  for (auto [family, iter] : {std::pair{Store::kHot, hot}, std::pair{Store::kColdDelta, delta}}) {
    if (!occupancy.Holds(family, bucket)) continue;
    iter->SeekForPrev(last_key);
    if (iter->Valid() && iter->key().starts_with(prefix)) {
      keys::PointKey key;
      if (!keys::DecodePointKey(iter->key().ToStringView(), &key)) {
        return absl::DataLossError("a stored point key is malformed; restore from a backup");
      }
      ASSIGN_OR_RETURN(StoredRow row, DecodeRow(iter->value().ToStringView()));
      stats->rows_scanned++;
      offer(key.time_nanos, std::move(row));
    }
    RETURN_IF_ERROR(FromRocks(iter->status(), "scanning"));
  }
  if (!occupancy.Holds(Store::kColdHeader, bucket)) return best;
  std::string header;
  rocksdb::Status s = store.db()->Get(read, store.family(Store::kColdHeader), prefix, &header);
  if (s.IsNotFound()) return best;
  RETURN_IF_ERROR(FromRocks(s, "reading a magnetic-store block header"));
  ASSIGN_OR_RETURN(auto summary, format::DecodeBlockSummary(header));
  if (summary.min_time >= end || summary.max_time < start ||
      (best && summary.max_time < best->time_nanos)) {
    stats->blocks_pruned++;
    return best;
  }
  std::string stored;
  s = store.db()->Get(read, store.family(Store::kCold), prefix, &stored);
  if (s.IsNotFound()) {
    return absl::DataLossError(
        "a magnetic-store block is missing although its header is stored; restore from a backup");
  }
  RETURN_IF_ERROR(FromRocks(s, "reading a magnetic-store block"));
  ASSIGN_OR_RETURN(const format::BlockView block, StoredBlockView(header, stored));
  // Typed columns, then the one point's measures: not every point's.
  ASSIGN_OR_RETURN(format::BlockColumns decoded,
                   format::DecodeBlockColumns(block, /*with_versions=*/true,
                                              [](const format::ColumnSummary&) { return true; }));
  stats->blocks_scanned++;
  stats->bytes_scanned += static_cast<int64_t>(stored.size());
  const std::vector<int64_t>& times = decoded.times;
  const size_t before_end = std::lower_bound(times.begin(), times.end(), end) - times.begin();
  if (before_end == 0) return best;
  const size_t newest = before_end - 1;
  stats->rows_scanned++;
  offer(times[newest], {decoded.versions[newest], format::PointReader(decoded).MeasuresAt(newest)});
  return best;
}

absl::Status ScanLastPoints(const Store& store, const MemoryHead& head, const TableInfo& table, int64_t start,
                            int64_t end,
                            const ScanOptions& options,
                            const std::function<bool(const ScanRow&)>& emit, ScanStats* stats) {
  const rocksdb::Snapshot* snapshot = nullptr;
  const MemoryHead::View view = head.CaptureWithSnapshot(table.id, store.db(), &snapshot);
  rocksdb::ReadOptions read;
  read.snapshot = snapshot;
  absl::Status status;
  bool stopped = false;
  // No series has data past the table's newest bucket: start the probes there.
  uint32_t last_bucket = keys::BucketOf(end - 1);
  {
    std::optional<uint32_t> newest;
    const std::string table_end = keys::TableDataPrefix(table.id + 1);
    for (Store::Family family : {Store::kHot, Store::kColdDelta, Store::kColdHeader}) {
      std::unique_ptr<rocksdb::Iterator> iter(
          family == Store::kHot ? MemoryHead::NewIterator(view)
                                : std::unique_ptr<rocksdb::Iterator>(
                                      store.db()->NewIterator(read, store.family(family))));
      iter->SeekForPrev(table_end);
      if (iter->Valid() && iter->key().starts_with(keys::TableDataPrefix(table.id)) &&
          iter->key().size() >= 8) {
        const uint32_t b = DecodeFixed32BE(iter->key().data() + 4);
        newest = newest ? std::max(*newest, b) : b;
      }
    }
    if (!newest) {  // an empty table
      store.db()->ReleaseSnapshot(snapshot);
      return absl::OkStatus();
    }
    last_bucket = std::min(last_bucket, *newest);
  }
  std::unique_ptr<rocksdb::Iterator> hot = MemoryHead::NewIterator(view);
  std::unique_ptr<rocksdb::Iterator> delta(
      store.db()->NewIterator(read, store.family(Store::kColdDelta)));
  const uint32_t first_bucket = keys::BucketOf(start);
  BucketOccupancy occupancy(store, read, table.id, view);
  for (const SeriesTarget& t : *options.series) {
    if (options.cancelled != nullptr && options.cancelled->load(std::memory_order_relaxed)) {
      status = absl::CancelledError("the query was cancelled");
      break;
    }
    for (int64_t b = last_bucket; b >= first_bucket; --b) {
      stats->buckets_scanned++;
      const auto bucket = static_cast<uint32_t>(b);
      auto found = NewestInBucket(store, read, occupancy, bucket, hot.get(), delta.get(),
                                  keys::SeriesBucketPrefix(table.id, bucket, t.pk_hash, t.series),
                                  start, end, stats);
      if (!found.ok()) {
        status = found.status();
        break;
      }
      if (!*found) continue;
      (*found)->series = t.series;
      if (!emit(**found)) stopped = true;
      break;
    }
    if (!status.ok() || stopped) break;
  }
  hot.reset();
  delta.reset();
  store.db()->ReleaseSnapshot(snapshot);
  return status;
}

// The oldest bucket of `table` holding anything in any tier (UINT32_MAX if
// none): a range open to the past starts there, for the statistics.
uint32_t OldestBucket(const Store& store, const MemoryHead& head, uint32_t table_id) {
  const std::string prefix = keys::TableDataPrefix(table_id);
  uint32_t oldest = UINT32_MAX;
  if (std::vector<uint32_t> in_head = head.Buckets(table_id); !in_head.empty()) {
    oldest = in_head.front();
  }
  for (Store::Family family : {Store::kColdDelta, Store::kCold}) {
    std::unique_ptr<rocksdb::Iterator> it(
        store.db()->NewIterator(rocksdb::ReadOptions(), store.family(family)));
    it->Seek(prefix);
    if (it->Valid() && it->key().starts_with(prefix) && it->key().size() >= 8) {
      oldest = std::min(oldest, DecodeFixed32BE(it->key().data() + 4));
    }
  }
  return oldest;
}

// One scan of a table's tiers (the memory head, cold_delta rows, magnetic
// blocks) merged by key, bucket by bucket: the state its loops share. It
// holds a RocksDB snapshot (and the head's rows captured with it) for its
// life.
class MergedScan {
 public:
  MergedScan(const Store& store, const MemoryHead& head, const TableInfo& table, int64_t start,
             int64_t end, const ScanOptions& options,
             const std::function<bool(const ScanRow&)>& emit, ScanStats* stats)
      : store_(store),
        table_(table),
        start_(start),
        end_(end),
        options_(options),
        emit_(emit),
        stats_(*stats),
        table_end_(keys::TableDataPrefix(table.id + 1)),
        hot_(MemoryHead::NewIterator(head.CaptureWithSnapshot(table.id, store.db(), &snapshot_),
                                     table_end_),
             stats),
        delta_(store, Store::kColdDelta, snapshot_, table_end_, stats),
        cold_(store, snapshot_, table_end_, start, end, stats) {}
  ~MergedScan() { store_.db()->ReleaseSnapshot(snapshot_); }
  MergedScan(const MergedScan&) = delete;
  MergedScan& operator=(const MergedScan&) = delete;

  // Reads buckets first_bucket..last_bucket (newest first when the options
  // say so) into `emit`.
  absl::Status Run(uint32_t first_bucket, uint32_t last_bucket);

 private:
  // What a fast path did with the row at the front of the merge.
  enum class Taken { kNo, kYes, kStop };

  // Reads [begin, range_end) of every tier merged; false once the scan must
  // stop (status_ says whether it failed).
  bool ReadRange(const std::string& begin, const std::string& range_end);
  // A whole block that no other tier shares its series and bucket with,
  // offered to ScanOptions::whole_block.
  Taken TakeWholeBlock(std::string_view smallest, const keys::PointKey& key);
  // The rest of a series that only the head holds in this bucket, offered
  // to ScanOptions::whole_head_series. (The ranges read are whole buckets
  // or whole series, so all of it is in the range.)
  Taken TakeHeadSeries(std::string_view smallest, const keys::PointKey& key);
  // Takes the row at `smallest` into row_ (the newest version of it across
  // the tiers), or, for a row one tier alone holds and the reader takes
  // encoded, into encoded_ with *advance_after the source to move on after
  // the emit. False on an error (in status_).
  bool TakeRow(int valid, Source* only, std::string_view smallest, RowSource** advance_after);
  void CountBucket(uint32_t bucket) {
    if (bucket == bucket_seen_) return;
    bucket_seen_ = bucket;
    stats_.buckets_scanned++;
  }
  void RememberOther(std::string_view point_key) {
    std::copy_n(point_key.begin(), keys::kBlockKeySize, other_prefix_.begin());
    took_other_ = true;
  }
  // Whether `s` holds a row of the series and bucket `prefix` at its front.
  bool Shares(const Source& s, std::string_view prefix) const {
    return s.Valid() && s.key().substr(0, keys::kBlockKeySize) == prefix;
  }
  std::string BucketEnd(uint32_t bucket) const {
    return bucket == UINT32_MAX ? table_end_ : keys::BucketPrefix(table_.id, bucket + 1);
  }
  // The first bucket >= `from` that holds any row, so empty stretches of a
  // long time range cost one seek, not one per bucket and series.
  std::optional<uint32_t> NextBucket(uint32_t from);
  // The newest bucket <= `to` that holds any row.
  std::optional<uint32_t> PreviousBucket(uint32_t to);
  // One bucket, all series or the targets; false once the scan must stop.
  bool ReadBucket(uint32_t bucket);

  const Store& store_;
  const TableInfo& table_;
  const int64_t start_, end_;
  const ScanOptions& options_;
  const std::function<bool(const ScanRow&)>& emit_;
  ScanStats& stats_;
  const std::string table_end_;
  const rocksdb::Snapshot* snapshot_ = nullptr;  // set by hot_'s capture
  RowSource hot_;
  RowSource delta_;
  BlockSource cold_;
  // On equal versions the most recently written tier wins (they hold equal
  // values then, by the version rules).
  const std::array<Source*, 3> sources_ = {&hot_, &delta_, &cold_};
  // options_.series, sorted: each sought in each bucket; or (series_dense) kept by the
  // sources while they read whole buckets, by their ids (wanted_), a run of others sought
  // past to the next of them.
  bool seek_each_series_ = false;
  std::vector<SeriesTarget> targets_;
  absl::flat_hash_set<uint64_t> wanted_;

  absl::Status status_;
  bool stopped_ = false;
  uint64_t bucket_seen_ = UINT64_MAX;
  ScanRow row_;
  ScanRow encoded_;  // a row emitted undecoded (ScanOptions::encoded_rows)
  StoredRow candidate_;
  std::array<char, keys::kPointKeySize> current_;
  // The series prefix of the last row taken from the head or cold_delta: a
  // block is alone in its series and bucket only if no such row precedes it.
  std::array<char, keys::kBlockKeySize> other_prefix_;
  bool took_other_ = false;
  // The series prefix last offered to ScanOptions::whole_head_series.
  std::array<char, keys::kBlockKeySize> offered_prefix_{};
  bool offered_any_ = false;
};

MergedScan::Taken MergedScan::TakeWholeBlock(std::string_view smallest, const keys::PointKey& key) {
  const std::string_view prefix = smallest.substr(0, keys::kBlockKeySize);
  const bool alone =
      !Shares(hot_, prefix) && !Shares(delta_, prefix) &&
      !(took_other_ && std::string_view(other_prefix_.data(), other_prefix_.size()) == prefix);
  if (!alone) return Taken::kNo;
  CountBucket(key.bucket);
  const BlockUse use = options_.whole_block({.series = key.series,
                                             .summary = &cold_.summary(),
                                             .bytes = [this] { return cold_.block(); },
                                             .start_nanos = start_,
                                             .end_nanos = end_});
  if (use == BlockUse::kDeclined) return Taken::kNo;
  stats_.blocks_whole++;
  stats_.rows_scanned += cold_.summary().count;
  if (use == BlockUse::kStop) return Taken::kStop;
  cold_.SkipBlock();
  return Taken::kYes;
}

MergedScan::Taken MergedScan::TakeHeadSeries(std::string_view smallest, const keys::PointKey& key) {
  const std::string_view prefix = smallest.substr(0, keys::kBlockKeySize);
  if (offered_any_ && prefix == std::string_view(offered_prefix_.data(), offered_prefix_.size())) {
    return Taken::kNo;
  }
  if (Shares(delta_, prefix) || Shares(cold_, prefix)) return Taken::kNo;
  // Once per series: one the reader declined comes row by row.
  std::copy_n(prefix.begin(), keys::kBlockKeySize, offered_prefix_.begin());
  offered_any_ = true;
  const MemoryHead::Iterator::SeriesRows rest = hot_.head()->RestOfSeries();
  const BlockUse use = options_.whole_head_series({.series = key.series,
                                                   .rows = rest.entries,
                                                   .shapes = rest.shapes,
                                                   .start_nanos = start_,
                                                   .end_nanos = end_});
  if (use == BlockUse::kDeclined) return Taken::kNo;
  CountBucket(key.bucket);
  RememberOther(smallest);
  hot_.CountTaken(rest.entries);
  if (use == BlockUse::kStop) return Taken::kStop;
  hot_.head()->SkipSeries();
  return Taken::kYes;
}

bool MergedScan::TakeRow(int valid, Source* only, std::string_view smallest,
                         RowSource** advance_after) {
  if (valid == 1) {  // one tier holds the rest of this range: nothing to merge
    if (only != &cold_) RememberOther(smallest);
    if (options_.encoded_rows && only != &cold_) {
      *advance_after = only == &hot_ ? &hot_ : &delta_;
      return (status_ = (*advance_after)->TakeEncoded(&encoded_)).ok();
    }
    if (!(status_ = only->Take(&candidate_)).ok()) return false;
    row_.version = candidate_.version;
    std::swap(row_.measures, candidate_.measures);
    only->Next();
    return true;
  }
  // A copy: advancing a source invalidates views of its key.
  std::copy(smallest.begin(), smallest.end(), current_.begin());
  smallest = std::string_view(current_.data(), current_.size());
  bool have = false;
  for (Source* s : sources_) {
    if (!s->Valid() || s->key() != smallest) continue;
    if (s != &cold_) RememberOther(smallest);
    if (!(status_ = s->Take(&candidate_)).ok()) return false;
    if (!have || candidate_.version > row_.version) {
      row_.version = candidate_.version;
      std::swap(row_.measures, candidate_.measures);  // both keep their storage for reuse
      have = true;
    }
  }
  for (Source* s : sources_) {
    if (s->Valid() && s->key() == smallest) s->Next();
  }
  return true;
}

bool MergedScan::ReadRange(const std::string& begin, const std::string& range_end) {
  for (Source* s : sources_) s->Seek(begin, range_end);
  while (true) {
    if (options_.cancelled != nullptr && options_.cancelled->load(std::memory_order_relaxed)) {
      status_ = absl::CancelledError("the query was cancelled");
      return false;
    }
    std::string_view smallest;
    Source* only = nullptr;  // the one source holding `smallest`, if just one is valid
    int valid = 0;
    for (Source* s : sources_) {
      if (!s->Valid()) continue;
      ++valid;
      only = s;
      if (smallest.empty() || s->key() < smallest) smallest = s->key();
    }
    if (smallest.empty()) return true;
    keys::PointKey key;
    if (smallest.size() != current_.size() || !keys::DecodePointKey(smallest, &key)) {
      status_ = absl::DataLossError("a stored point key is malformed; restore from a backup");
      return false;
    }
    Taken fast = Taken::kNo;
    if (options_.whole_block && cold_.AtBlockStart() && cold_.key() == smallest) {
      fast = TakeWholeBlock(smallest, key);
    }
    if (fast == Taken::kNo && options_.whole_head_series && options_.encoded_rows && hot_.Valid() &&
        hot_.key() == smallest) {
      fast = TakeHeadSeries(smallest, key);
    }
    if (fast == Taken::kStop) {
      stopped_ = true;
      return false;
    }
    if (fast == Taken::kYes) continue;
    // A source whose row is emitted as a view of its bytes: it moves on
    // only after the emit.
    RowSource* advance_after = nullptr;
    if (!TakeRow(valid, only, smallest, &advance_after)) return false;
    CountBucket(key.bucket);
    bool go_on = true;
    if (key.time_nanos >= start_ && key.time_nanos < end_) {
      ScanRow& out = advance_after != nullptr ? encoded_ : row_;
      out.series = key.series;
      out.time_nanos = key.time_nanos;
      go_on = emit_(out);
    }
    if (advance_after != nullptr) advance_after->Next();
    if (!go_on) {
      stopped_ = true;
      return false;
    }
  }
}

std::optional<uint32_t> MergedScan::NextBucket(uint32_t from) {
  std::optional<uint32_t> found;
  for (Source* s : sources_) {
    auto b = s->FirstBucketFrom(keys::BucketPrefix(table_.id, from));
    if (b && (!found || *b < *found)) found = b;
  }
  return found;
}

std::optional<uint32_t> MergedScan::PreviousBucket(uint32_t to) {
  std::optional<uint32_t> found;
  for (Source* s : sources_) {
    auto b = s->LastBucketBefore(table_.id, BucketEnd(to));
    if (b && (!found || *b > *found)) found = b;
  }
  return found;
}

bool MergedScan::ReadBucket(uint32_t bucket) {
  if (!seek_each_series_) {
    return ReadRange(keys::BucketPrefix(table_.id, bucket), BucketEnd(bucket));
  }
  for (const SeriesTarget& t : targets_) {
    std::string prefix = keys::SeriesBucketPrefix(table_.id, bucket, t.pk_hash, t.series);
    if (!ReadRange(prefix, keys::PrefixEnd(prefix))) return false;
  }
  return true;
}

absl::Status MergedScan::Run(uint32_t first_bucket, uint32_t last_bucket) {
  if (options_.series != nullptr) {
    targets_ = *options_.series;
    std::sort(targets_.begin(), targets_.end());
  }
  if (options_.series != nullptr && options_.series_dense) {
    for (const SeriesTarget& t : *options_.series) wanted_.insert(t.series);
    for (Source* s : sources_) s->KeepOnly(&wanted_, &targets_);
  } else if (options_.series != nullptr) {
    seek_each_series_ = true;
  }
  if (options_.newest_first) {
    // Empty stretches cost one seek per tier.
    for (int64_t b = last_bucket; b >= first_bucket && status_.ok() && !stopped_;) {
      std::optional<uint32_t> bucket = PreviousBucket(static_cast<uint32_t>(b));
      if (!bucket || *bucket < first_bucket) break;
      if (!ReadBucket(*bucket)) break;
      if (options_.bucket_done &&
          !options_.bucket_done(static_cast<int64_t>(*bucket) * keys::kBucketNanos)) {
        break;
      }
      b = static_cast<int64_t>(*bucket) - 1;
    }
  } else if (!seek_each_series_) {
    ReadRange(keys::BucketPrefix(table_.id, first_bucket), BucketEnd(last_bucket));
  } else {
    for (uint64_t b = first_bucket; b <= last_bucket && status_.ok() && !stopped_;) {
      std::optional<uint32_t> bucket = NextBucket(static_cast<uint32_t>(b));
      if (!bucket || *bucket > last_bucket) break;
      if (!ReadBucket(*bucket)) break;
      b = static_cast<uint64_t>(*bucket) + 1;
    }
  }
  for (Source* s : sources_) {
    if (status_.ok()) status_ = s->status();
  }
  return status_;
}

}  // namespace

absl::Status ScanTable(const Store& store, const MemoryHead& head, const TableInfo& table,
                       int64_t now_nanos, const ScanOptions& options,
                       const std::function<bool(const ScanRow&)>& emit, ScanStats* stats) {
  // RocksDB counts every step of every iterator in thread-local perf
  // counters by default; nothing reads them, and a scan steps millions of
  // times.
  rocksdb::SetPerfLevel(rocksdb::PerfLevel::kDisable);
  // Counted into the caller's stats as the scan goes, so the caller can
  // publish them while it runs (SHOW QUERIES).
  ScanStats own;
  ScanStats& local = stats != nullptr ? *stats : own;
  local = ScanStats{};
  const int64_t start =
      std::max({options.start_nanos, table.RetentionStartNanos(now_nanos), int64_t{0}});
  const int64_t end = options.end_nanos;
  if (start >= end) {
    return absl::OkStatus();
  }
  const uint32_t first_bucket = keys::BucketOf(start);
  const uint32_t last_bucket = keys::BucketOf(end - 1);
  // No row is newer than the writes accept, so the buckets an open-ended
  // range covers end there.
  const int64_t written_end = now_nanos > INT64_MAX - kFutureWindowNanos
                                  ? end
                                  : std::min(end, now_nanos + kFutureWindowNanos);
  // Hours before the table's oldest data are not "pruned": a range open to
  // the past would count every hour since 1970.
  const int64_t counted_from = std::max<int64_t>(first_bucket, OldestBucket(store, head, table.id));
  local.buckets_in_range =
      start < written_end
          ? std::max<int64_t>(0, int64_t{keys::BucketOf(written_end - 1)} - counted_from + 1)
          : 0;
  if (options.last_per_series) {
    if (options.series == nullptr) {
      return absl::InvalidArgumentError("a last-point scan needs the list of series");
    }
    return ScanLastPoints(store, head, table, start, end, options, emit, &local);
  }
  MergedScan scan(store, head, table, start, end, options, emit, &local);
  return scan.Run(first_bucket, last_bucket);
}

}  // namespace strata
