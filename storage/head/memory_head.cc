#include "storage/head/memory_head.h"

#include <algorithm>
#include <array>
#include <cstring>

#include "absl/base/attributes.h"
#include "rocksdb/write_batch.h"

namespace strata {
namespace {

// Arena blocks double from the first to the largest: a bucket with a few
// late rows holds a few KB, a busy one thousands of rows per block.
constexpr size_t kFirstBlockBytes = 4 << 10;
constexpr size_t kLargestBlockBytes = 256 << 10;
// What a row costs besides its bytes: its index entry.
constexpr int64_t kEntryBytes = sizeof(MemoryHead::Entry);
// Rows of more shapes than this in one bucket (attributes that come and go
// in every combination) are stored as they are.
constexpr size_t kMaxShapesPerBucket = 1024;

template <typename Entries>  // const or not
auto ByTime(Entries& entries, int64_t time) {
  return std::lower_bound(entries.begin(), entries.end(), time,
                          [](const MemoryHead::Entry& e, int64_t t) { return e.time_nanos < t; });
}

}  // namespace

std::string_view EncodedRow(const MemoryHead::Entry& entry, const RowShape* shape,
                            std::string* scratch) {
  if (entry.shape == 0) return entry.stored();
  scratch->clear();
  shape->AppendEncodedRow(entry.stored(), scratch);
  return *scratch;
}

char* MemoryHead::Bucket::Allocate(size_t size) {
  if (size > block_left_) {
    const size_t block = blocks_.empty() ? kFirstBlockBytes
                                         : std::min(2 * block_size_, kLargestBlockBytes);
    block_size_ = block;
    const size_t bytes = std::max(block, size);
    // Not zeroed: every byte handed out is written before it is indexed.
    blocks_.push_back(std::make_unique_for_overwrite<char[]>(bytes));
    block_next_ = blocks_.back().get();
    block_left_ = bytes;
    bytes_.fetch_add(static_cast<int64_t>(bytes), std::memory_order_relaxed);
  }
  char* data = block_next_;
  block_next_ += size;
  block_left_ -= size;
  return data;
}

MemoryHead::Entry MemoryHead::Bucket::CopyRow(int64_t time_nanos, uint64_t sequence,
                                            std::string_view row) {
  char* data = Allocate(row.size());
  // An empty row first in a bucket has no arena yet (null): memcpy must not
  // see it, even for no bytes (found by head_log_fuzz under UBSan).
  if (!row.empty()) std::memcpy(data, row.data(), row.size());
  return {time_nanos, sequence, data, static_cast<uint32_t>(row.size())};
}

void MemoryHead::Bucket::AppendCopy(Series* to, const Entry& entry) {
  Entry copy = CopyRow(entry.time_nanos, entry.sequence, entry.stored());
  copy.shape = entry.shape;
  to->last_shape = entry.shape;
  absl::MutexLock lock(&to->mu);
  to->entries.push_back(copy);
  rows_.fetch_add(1, std::memory_order_relaxed);
  bytes_.fetch_add(kEntryBytes, std::memory_order_relaxed);
}

std::shared_ptr<MemoryHead::Bucket> MemoryHead::FindBucket(uint32_t table_id,
                                                           uint32_t bucket) const {
  absl::ReaderMutexLock lock(&mu_);
  auto table = tables_.find(table_id);
  if (table == tables_.end()) return nullptr;
  auto it = table->second.find(bucket);
  return it == table->second.end() ? nullptr : it->second;
}

std::shared_ptr<MemoryHead::Bucket> MemoryHead::AddBucket(uint32_t table_id, uint32_t bucket) {
  absl::MutexLock lock(&mu_);
  std::shared_ptr<Bucket>& slot = tables_[table_id][bucket];
  if (!slot) slot = std::make_shared<Bucket>();
  return slot;
}

uint32_t MemoryHead::ShapeOf(Bucket* bucket, Series* series, std::string_view row) {
  // Tried first: the series' last shape, or for a new series the bucket's
  // newest (series of a table mostly share one).
  const uint32_t likely = series->last_shape != 0
                              ? series->last_shape
                              : static_cast<uint32_t>(bucket->writer_shapes_.size());
  if (likely != 0 && bucket->writer_shapes_[likely - 1]->SplitIfMatches(row, &parts_)) {
    series->last_shape = likely;
    return likely;
  }
  if (!SplitEncodedRow(row, &parts_) || parts_.measures.empty()) return 0;
  const std::string signature = RowShape::Signature(parts_);
  auto it = bucket->shape_ids_.find(signature);
  const uint32_t shape = it != bucket->shape_ids_.end() ? it->second : AddShape(bucket, signature);
  if (shape != 0) series->last_shape = shape;
  return shape;
}

uint32_t MemoryHead::AddShape(Bucket* bucket, std::string_view signature) {
  if (bucket->shape_ids_.size() >= kMaxShapesPerBucket) return 0;
  auto made = std::make_shared<const RowShape>(parts_);
  bucket->bytes_.fetch_add(static_cast<int64_t>(made->bytes() + signature.size()),
                           std::memory_order_relaxed);
  bucket->writer_shapes_.push_back(made.get());
  const auto shape = static_cast<uint32_t>(bucket->writer_shapes_.size());
  bucket->shape_ids_.emplace(std::string(signature), shape);
  absl::MutexLock lock(&bucket->mu);
  bucket->shapes.push_back(std::move(made));
  return shape;
}

uint32_t MemoryHead::ShapeOfSignature(Bucket* bucket, std::string_view signature) {
  if (signature.data() == last_signature_ && bucket == last_signature_bucket_) {
    return last_signature_shape_;
  }
  uint32_t shape = 0;
  if (auto it = bucket->shape_ids_.find(absl::string_view(signature.data(), signature.size()));
      it != bucket->shape_ids_.end()) {
    shape = it->second;
  } else if (SplitSignature(signature, &parts_)) {
    shape = AddShape(bucket, signature);
  }
  last_signature_ = signature.data();
  last_signature_bucket_ = bucket;
  last_signature_shape_ = shape;
  return shape;
}

void MemoryHead::ApplyTo(Bucket* bucket, Series* series, const Change& change) {
  const int64_t time = change.key.time_nanos;
  // Before the series' lock: a new shape takes the bucket's, which readers
  // take before a series'. (Arena bytes are invisible until indexed.)
  std::optional<Entry> entry;
  if (change.row && !change.shape.empty()) {
    // Compact already: stored as it is, under the bucket's id of its shape.
    if (const uint32_t shape = ShapeOfSignature(bucket, change.shape); shape != 0) {
      entry = bucket->CopyRow(time, change.sequence, *change.row);
      entry->shape = shape;
      series->last_shape = shape;
    } else {  // past the bucket's shapes: whole (a rare, hostile table)
      rebuilt_.clear();
      if (SplitSignature(change.shape, &parts_)) {
        RowShape(parts_).AppendEncodedRow(*change.row, &rebuilt_);
      }
      entry = bucket->CopyRow(time, change.sequence, rebuilt_);
    }
  } else if (change.row) {
    if (const uint32_t shape = ShapeOf(bucket, series, *change.row); shape == 0) {
      entry = bucket->CopyRow(time, change.sequence, *change.row);
    } else {
      const size_t size = RowShape::CompactSize(parts_);
      char* data = bucket->Allocate(size);
      RowShape::WriteCompact(parts_, data);
      entry = Entry{time, change.sequence, data, static_cast<uint32_t>(size), shape};
    }
  }
  absl::MutexLock lock(&series->mu);
  std::vector<Entry>& entries = series->entries;
  auto it = entries.empty() || entries.back().time_nanos < time ? entries.end()
                                                                : ByTime(entries, time);
  const bool stored = it != entries.end() && it->time_nanos == time;
  if (!change.row) {
    if (stored) {
      entries.erase(it);
      ++series->edits;
      bucket->rows_.fetch_sub(1, std::memory_order_relaxed);
    }
    return;
  }
  if (stored) {
    *it = *entry;  // the old bytes stay in the arena until the bucket goes
    ++series->edits;
    return;
  }
  if (it != entries.end()) ++series->edits;
  entries.insert(it, *entry);  // at the end for an append, the common case
  bucket->rows_.fetch_add(1, std::memory_order_relaxed);
  bucket->bytes_.fetch_add(kEntryBytes, std::memory_order_relaxed);
}

MemoryHead::Series* MemoryHead::Bucket::AddSeries(const SeriesId& id,
                                                  std::unique_ptr<Series> fresh) {
  Series* added = nullptr;
  {
    absl::MutexLock lock(&mu);
    // try_emplace: should the two indexes ever disagree, the series already
    // in the btree is the one used, and `fresh` is dropped unmoved.
    auto [it, inserted] = series.try_emplace(id, std::move(fresh));
    added = it->second.get();
    series_added_ += inserted;
  }
  writer_series_.insert_or_assign(id, added);
  return added;
}

std::shared_ptr<const MemoryHead::Bucket::SeriesList> MemoryHead::Bucket::SharedSeriesList()
    const {
  absl::MutexLock lock(&list_mu_);
  if (list_ == nullptr || list_added_ != series_added_) {
    auto list = std::make_shared<SeriesList>();
    list->reserve(series.size());
    for (const auto& [id, s] : series) list->emplace_back(id, s.get());
    list_ = std::move(list);
    list_added_ = series_added_;
  }
  return list_;
}

int64_t MemoryHead::Apply(const std::vector<Change>& changes) {
  // Signatures are known by address within one call only.
  last_signature_ = nullptr;
  last_signature_bucket_ = nullptr;
  // First each change's series is found (or added), then the changes are
  // applied with the series a few changes ahead asked for: a group's rows
  // are mostly one per series, among hundreds or thousands, so each change's
  // series and the end of its row index were cache misses, one after the
  // other (ApplyTo was the committer's top function in a profile).
  targets_.clear();
  targets_.reserve(changes.size());
  // Changes of one write group come grouped by table and bucket: a bucket
  // is looked up once per run, and held until the changes are applied.
  std::vector<std::shared_ptr<Bucket>> buckets;
  uint32_t table_id = 0, bucket_id = 0;
  for (const Change& change : changes) {
    const keys::PointKey& key = change.key;
    if (buckets.empty() || buckets.back() == nullptr || key.table_id != table_id ||
        key.bucket != bucket_id) {
      table_id = key.table_id;
      bucket_id = key.bucket;
      std::shared_ptr<Bucket> bucket = FindBucket(table_id, bucket_id);
      if (bucket == nullptr && change.row) bucket = AddBucket(table_id, bucket_id);
      buckets.push_back(std::move(bucket));
    }
    Bucket* bucket = buckets.back().get();
    Series* series = bucket == nullptr ? nullptr : bucket->WriterFind({key.pk_hash, key.series});
    if (series == nullptr && change.row) {
      series = bucket->AddSeries({key.pk_hash, key.series}, std::make_unique<Series>());
    }
    targets_.push_back({bucket, series});  // null: an erase of nothing
  }
  int64_t added = 0;
  const Bucket* last_bucket = nullptr;
  for (size_t i = 0; i < changes.size(); ++i) {
    if (i + kSeriesPrefetchedAhead < targets_.size()) {
      PrefetchSeriesEnd(targets_[i + kSeriesPrefetchedAhead].series);
    }
    auto [bucket, series] = targets_[i];
    if (series == nullptr) continue;
    // Another bucket may reuse a freed one's address.
    if (bucket != last_bucket) last_signature_ = nullptr;
    last_bucket = bucket;
    const int64_t before = bucket->bytes();
    ApplyTo(bucket, series, changes[i]);
    added += bucket->bytes() - before;
  }
  return bytes_.fetch_add(added, std::memory_order_relaxed) + added;
}

void MemoryHead::PrefetchSeriesEnd(const Series* series) {
  if (series == nullptr) return;
  // Only the writer changes a series' index, and this is the writer: the
  // read needs no lock (the readers' lock is for them).
  const std::vector<Entry>& entries = ABSL_TS_UNCHECKED_READ(series->entries);
  if (!entries.empty()) __builtin_prefetch(&entries.back(), 1);
}

std::optional<std::string> MemoryHead::Find(const keys::PointKey& key) const {
  const std::shared_ptr<const Bucket> bucket = FindBucket(key.table_id, key.bucket);
  if (bucket == nullptr) return std::nullopt;
  absl::ReaderMutexLock bucket_lock(&bucket->mu);
  auto it = bucket->series.find(SeriesId{key.pk_hash, key.series});
  if (it == bucket->series.end()) return std::nullopt;
  absl::ReaderMutexLock lock(&it->second->mu);
  const std::vector<Entry>& entries = it->second->entries;
  auto found = ByTime(entries, key.time_nanos);
  if (found == entries.end() || found->time_nanos != key.time_nanos) return std::nullopt;
  if (found->shape == 0) return std::string(found->stored());
  std::string row;
  bucket->shapes[found->shape - 1]->AppendEncodedRow(found->stored(), &row);
  return row;
}

int64_t MemoryHead::NewestTime(uint32_t table_id, uint32_t bucket_id, uint64_t pk_hash,
                               uint64_t series) const {
  const std::shared_ptr<const Bucket> bucket = FindBucket(table_id, bucket_id);
  if (bucket == nullptr) return INT64_MIN;
  absl::ReaderMutexLock bucket_lock(&bucket->mu);
  auto it = bucket->series.find(SeriesId{pk_hash, series});
  if (it == bucket->series.end()) return INT64_MIN;
  absl::ReaderMutexLock lock(&it->second->mu);
  const std::vector<Entry>& entries = it->second->entries;
  return entries.empty() ? INT64_MIN : entries.back().time_nanos;
}

void MemoryHead::DropLocked(uint32_t table_id, uint32_t from, uint32_t to) {
  auto table = tables_.find(table_id);
  if (table == tables_.end()) return;
  BucketMap& buckets = table->second;
  auto first = buckets.lower_bound(from);
  auto last = to == UINT32_MAX ? buckets.end() : buckets.lower_bound(to);
  int64_t freed = 0;
  for (auto it = first; it != last; ++it) freed += it->second->bytes();
  buckets.erase(first, last);
  if (buckets.empty()) tables_.erase(table);
  bytes_.fetch_sub(freed, std::memory_order_relaxed);
}

void MemoryHead::DropBuckets(uint32_t table_id, uint32_t from, uint32_t to) {
  absl::MutexLock lock(&mu_);
  DropLocked(table_id, from, to);
}

MemoryHead::View MemoryHead::CaptureLocked(uint32_t table_id) const {
  View view{.table_id = table_id};
  auto table = tables_.find(table_id);
  if (table == tables_.end()) return view;
  view.buckets.reserve(table->second.size());
  for (const auto& [bucket, data] : table->second) view.buckets.emplace_back(bucket, data);
  return view;
}

MemoryHead::View MemoryHead::Capture(uint32_t table_id) const {
  absl::ReaderMutexLock lock(&mu_);
  return CaptureLocked(table_id);
}

MemoryHead::View MemoryHead::CaptureWithSnapshot(uint32_t table_id, rocksdb::DB* db,
                                                 const rocksdb::Snapshot** snapshot) const {
  // WriteThenDrop and WriteThenKeepAfter hold mu_ exclusively across their
  // write and their change to the head.
  absl::ReaderMutexLock lock(&mu_);
  *snapshot = db->GetSnapshot();
  return CaptureLocked(table_id);
}

rocksdb::Status MemoryHead::WriteThenDrop(rocksdb::DB* db, const rocksdb::WriteOptions& options,
                                          rocksdb::WriteBatch* batch, uint32_t table_id,
                                          uint32_t from, uint32_t to) {
  absl::MutexLock lock(&mu_);
  rocksdb::Status s = db->Write(options, batch);
  if (s.ok()) DropLocked(table_id, from, to);
  return s;
}

std::optional<std::pair<uint32_t, uint32_t>> MemoryHead::OldestBucket(
    const std::vector<std::pair<uint32_t, uint32_t>>& skip) const {
  std::optional<std::pair<uint32_t, uint32_t>> oldest;
  absl::ReaderMutexLock lock(&mu_);
  for (const auto& [table_id, buckets] : tables_) {
    for (const auto& [bucket, data] : buckets) {
      if (data->rows() == 0 ||
          std::find(skip.begin(), skip.end(), std::pair{table_id, bucket}) != skip.end()) {
        continue;
      }
      if (!oldest || bucket < oldest->second) oldest = {table_id, bucket};
      break;  // a table's later buckets are newer
    }
  }
  return oldest;
}

rocksdb::Status MemoryHead::WriteThenKeepAfter(rocksdb::DB* db,
                                               const rocksdb::WriteOptions& options,
                                               rocksdb::WriteBatch* batch, uint32_t table_id,
                                               uint32_t bucket_id, uint64_t sequence) {
  absl::MutexLock lock(&mu_);
  rocksdb::Status s = db->Write(options, batch);
  if (!s.ok()) return s;
  auto table = tables_.find(table_id);
  if (table == tables_.end()) return s;
  auto it = table->second.find(bucket_id);
  if (it == table->second.end()) return s;
  // Readers that captured the old bucket keep it whole; from now on the
  // bucket is what was written after `sequence`, copied into a new arena.
  const std::shared_ptr<Bucket> old = it->second;
  auto kept = std::make_shared<Bucket>();
  {
    absl::ReaderMutexLock old_lock(&old->mu);
    for (const auto& [id, series] : old->series) {
      absl::ReaderMutexLock series_lock(&series->mu);
      std::unique_ptr<Series> copy;
      for (const Entry& e : series->entries) {
        if (e.sequence <= sequence) continue;
        if (!copy) copy = std::make_unique<Series>();
        kept->AppendCopy(copy.get(), e);
      }
      if (copy) kept->AddSeries(id, std::move(copy));
    }
  }
  if (kept->rows() > 0) CopyShapes(*old, kept.get());
  kept->rows_in_series_order_ = kept->rows();  // copied a series at a time
  bytes_.fetch_add(kept->bytes() - old->bytes(), std::memory_order_relaxed);
  if (kept->rows() == 0) {
    table->second.erase(it);
    if (table->second.empty()) tables_.erase(table);
  } else {
    it->second = std::move(kept);
  }
  return s;
}

void MemoryHead::CopyShapes(const Bucket& from, Bucket* to) {
  // Rows copied keep their shape numbers.
  to->shape_ids_ = from.shape_ids_;
  to->writer_shapes_ = from.writer_shapes_;
  for (const auto& [signature, shape] : to->shape_ids_) {
    to->bytes_.fetch_add(
        static_cast<int64_t>(to->writer_shapes_[shape - 1]->bytes() + signature.size()),
        std::memory_order_relaxed);
  }
  absl::ReaderMutexLock from_lock(&from.mu);
  absl::MutexLock to_lock(&to->mu);
  to->shapes = from.shapes;
}

std::unique_ptr<MemoryHead::Regrouping> MemoryHead::StartRegroup(uint32_t table_id,
                                                                 uint32_t bucket) const {
  std::shared_ptr<Bucket> old = FindBucket(table_id, bucket);
  if (old == nullptr) return nullptr;
  auto regrouping = std::make_unique<Regrouping>();
  regrouping->table_id = table_id;
  regrouping->bucket = bucket;
  regrouping->fresh = std::make_shared<Bucket>();
  std::shared_ptr<const Bucket::SeriesList> list;
  {
    absl::ReaderMutexLock lock(&old->mu);
    list = old->SharedSeriesList();
  }
  Bucket& fresh = *regrouping->fresh;
  std::vector<Entry> rows;
  for (const auto& [id, series] : *list) {
    uint64_t edits = 0;
    {
      // A copy of the index under the series' lock, as a reader's: the
      // writer waits for it at most; the row bytes never change.
      absl::ReaderMutexLock lock(&series->mu);
      rows = series->entries;
      edits = series->edits;
    }
    auto copy = std::make_unique<Series>();
    for (const Entry& e : rows) fresh.AppendCopy(copy.get(), e);
    Series* added = fresh.AddSeries(id, std::move(copy));
    regrouping->copied[series] = {.fresh = added, .rows = rows.size(), .edits = edits};
  }
  regrouping->old = std::move(old);
  return regrouping;
}

bool MemoryHead::FinishRegroup(Regrouping& regrouping) {
  Bucket& old = *regrouping.old;
  Bucket& fresh = *regrouping.fresh;
  {
    absl::ReaderMutexLock old_lock(&old.mu);
    for (const auto& [id, series] : old.series) {
      absl::ReaderMutexLock lock(&series->mu);
      auto copied = regrouping.copied.find(series.get());
      Series* to = nullptr;
      size_t from = 0;
      if (copied == regrouping.copied.end()) {  // a series added since step one
        to = fresh.AddSeries(id, std::make_unique<Series>());
      } else if (copied->second.edits == series->edits &&
                 copied->second.rows <= series->entries.size()) {
        to = copied->second.fresh;  // only appends since: the rows after those copied
        from = copied->second.rows;
      } else {  // changed otherwise: copied again (the first copy's bytes are left unused)
        to = copied->second.fresh;
        absl::MutexLock to_lock(&to->mu);
        fresh.rows_.fetch_sub(static_cast<int64_t>(to->entries.size()),
                              std::memory_order_relaxed);
        fresh.bytes_.fetch_sub(static_cast<int64_t>(to->entries.size()) * kEntryBytes,
                               std::memory_order_relaxed);
        to->entries.clear();
      }
      for (size_t i = from; i < series->entries.size(); ++i) {
        fresh.AppendCopy(to, series->entries[i]);
      }
      to->last_shape = series->last_shape;
      absl::MutexLock to_lock(&to->mu);
      to->edits = series->edits;
    }
  }
  CopyShapes(old, &fresh);
  fresh.rows_in_series_order_ = fresh.rows();
  absl::MutexLock lock(&mu_);
  auto table = tables_.find(regrouping.table_id);
  if (table == tables_.end()) return false;
  auto it = table->second.find(regrouping.bucket);
  if (it == table->second.end() || it->second != regrouping.old) return false;
  bytes_.fetch_add(fresh.bytes() - old.bytes(), std::memory_order_relaxed);
  it->second = regrouping.fresh;
  return true;
}

std::vector<MemoryHead::BucketToRegroup> MemoryHead::BucketsToRegroup(int64_t min_rows) const {
  // A series of a few rows costs a reader a miss or two wherever they lie:
  // a bucket of many short series (100,000 hosts reporting twice a minute)
  // is not worth a copy (which took first touches of as much new memory,
  // and writes waited on those page faults: the longest request at 100,000
  // series rose from ~60 to 270-400 ms).
  constexpr int64_t kMinRowsPerSeries = 64;
  std::vector<BucketToRegroup> out;
  absl::ReaderMutexLock lock(&mu_);
  for (const auto& [table_id, buckets] : tables_) {
    for (const auto& [bucket, data] : buckets) {
      const int64_t rows = data->rows();
      const int64_t scattered = rows - data->rows_in_series_order();
      if (scattered < std::max(min_rows, data->rows_in_series_order())) continue;
      absl::ReaderMutexLock bucket_lock(&data->mu);
      if (rows >= kMinRowsPerSeries * static_cast<int64_t>(data->series.size())) {
        out.push_back({table_id, bucket, data->bytes()});
      }
    }
  }
  return out;
}

std::vector<uint32_t> MemoryHead::TableIds() const {
  std::vector<uint32_t> out;
  absl::ReaderMutexLock lock(&mu_);
  out.reserve(tables_.size());
  for (const auto& [table_id, buckets] : tables_) out.push_back(table_id);
  return out;
}

std::vector<uint32_t> MemoryHead::Buckets(uint32_t table_id) const {
  std::vector<uint32_t> out;
  absl::ReaderMutexLock lock(&mu_);
  auto table = tables_.find(table_id);
  if (table == tables_.end()) return out;
  for (const auto& [bucket, data] : table->second) {
    if (data->rows() > 0) out.push_back(bucket);
  }
  return out;
}

std::pair<int64_t, int64_t> MemoryHead::TableUsage(uint32_t table_id) const {
  int64_t bytes = 0, rows = 0;
  absl::ReaderMutexLock lock(&mu_);
  auto table = tables_.find(table_id);
  if (table == tables_.end()) return {0, 0};
  for (const auto& [bucket, data] : table->second) {
    bytes += data->bytes();
    rows += data->rows();
  }
  return {bytes, rows};
}

namespace {

// -1: every key starting with `prefix` sorts before `target`; +1: every one
// sorts at or after it; 0: some do, some do not (target extends prefix).
int Classify(std::string_view prefix, std::string_view target) {
  const size_t n = std::min(prefix.size(), target.size());
  const int c = std::memcmp(prefix.data(), target.data(), n);
  if (c != 0) return c < 0 ? -1 : 1;
  return target.size() <= prefix.size() ? 1 : 0;
}

// Reads a captured table in point-key order. Position: bucket b_, series
// s_ (of series_, the bucket's series list as it was when the iterator entered it)
// and entry e_ (of entries_, the series' index copied likewise).
class HeadIterator final : public MemoryHead::Iterator {
 public:
  HeadIterator(MemoryHead::View view, std::string upper, uint64_t max_sequence)
      : view_(std::move(view)), upper_(std::move(upper)), max_sequence_(max_sequence) {}

  bool Valid() const override {
    return positioned_ && (upper_.empty() || std::string_view(key_.data(), key_.size()) <
                                                 std::string_view(upper_));
  }
  void SeekToFirst() override {
    if (!EnterBucket(0)) return Invalidate();
    SettleForward();
  }
  void SeekToLast() override {
    if (!upper_.empty()) {
      PositionBefore(upper_);
      return;
    }
    if (!EnterBucket(static_cast<int>(view_.buckets.size()) - 1, /*at_end=*/true)) {
      return Invalidate();
    }
    SettleBackward();
  }
  void Seek(const rocksdb::Slice& target) override { SeekAtOrAfter(target.ToStringView()); }
  void SeekForPrev(const rocksdb::Slice& target) override {
    std::string_view t = target.ToStringView();
    if (!upper_.empty() && t >= std::string_view(upper_)) {
      PositionBefore(upper_);
      return;
    }
    SeekAtOrAfter(t);
    if (!positioned_) {
      SeekToLast();
      return;
    }
    if (std::string_view(key_.data(), key_.size()) != t) Prev();
  }
  void Next() override {
    ++e_;
    SettleForward();
    Prefetch(e_ + kRowsPrefetchedAhead);
  }
  void Prev() override {
    --e_;
    SettleBackward();
  }
  rocksdb::Slice key() const override { return {key_.data(), key_.size()}; }
  rocksdb::Slice value() const override {
    if (!value_ready_) {
      const MemoryHead::Entry& e = entries_[e_];
      value_ = EncodedRow(e, e.shape == 0 ? nullptr : shapes_[e.shape - 1], &row_);
      value_ready_ = true;
    }
    return {value_.data(), value_.size()};
  }
  rocksdb::Status status() const override { return rocksdb::Status::OK(); }
  std::pair<std::string_view, const RowShape*> stored() const override {
    const MemoryHead::Entry& e = entries_[e_];
    return {e.stored(), e.shape == 0 ? nullptr : shapes_[e.shape - 1]};
  }
  SeriesRows RestOfSeries() const override {
    return {absl::MakeConstSpan(entries_).subspan(e_), shapes_};
  }
  void SkipSeries() override {
    e_ = static_cast<int>(entries_.size());
    SettleForward();
  }
  void KeepOnly(const absl::flat_hash_set<uint64_t>* series) override { wanted_ = series; }

 private:
  void Invalidate() { positioned_ = false; }

  // The last key before `bound` (exclusive).
  void PositionBefore(std::string_view bound) {
    SeekAtOrAfter(bound);
    if (positioned_) {
      Prev();
      return;
    }
    if (!EnterBucket(static_cast<int>(view_.buckets.size()) - 1, /*at_end=*/true)) {
      return Invalidate();
    }
    SettleBackward();
  }

  // Copies bucket `b`'s series list and places s_ at its first (or last)
  // series with e_ before its first entry (or at its last); false past the ends.
  bool EnterBucket(int b, bool at_end = false) {
    if (b < 0 || b >= static_cast<int>(view_.buckets.size())) return false;
    b_ = b;
    const MemoryHead::Bucket& bucket = *view_.buckets[b].second;
    {
      absl::ReaderMutexLock lock(&bucket.mu);
      series_list_ = bucket.SharedSeriesList();
      CopyShapes(bucket);
    }
    series_ = absl::MakeConstSpan(*series_list_);
    s_ = at_end ? static_cast<int>(series_.size()) - 1 : 0;
    LoadSeries(at_end);
    return true;
  }
  // Copies series s_'s entries (none when s_ is outside the list or not kept).
  void LoadSeries(bool at_end) {
    entries_.clear();
    if (s_ >= 0 && s_ < static_cast<int>(series_.size()) &&
        (wanted_ == nullptr || wanted_->contains(series_[s_].first.second))) {
      const MemoryHead::Series& s = *series_[s_].second;
      absl::ReaderMutexLock lock(&s.mu);
      if (max_sequence_ == UINT64_MAX) {
        entries_ = s.entries;
      } else {
        for (const MemoryHead::Entry& e : s.entries) {
          if (e.sequence <= max_sequence_) entries_.push_back(e);
        }
      }
    }
    // Rows written since the bucket was entered may have new shapes.
    uint32_t newest_shape = 0;
    for (const MemoryHead::Entry& e : entries_) newest_shape = std::max(newest_shape, e.shape);
    if (newest_shape > shapes_.size()) {
      const MemoryHead::Bucket& bucket = *view_.buckets[b_].second;
      absl::ReaderMutexLock lock(&bucket.mu);
      CopyShapes(bucket);
    }
    e_ = at_end ? static_cast<int>(entries_.size()) - 1 : 0;
    if (!at_end) {
      for (int i = 0; i < kRowsPrefetchedAhead; ++i) Prefetch(i);
    }
  }
  // Reading a series row by row took a cache miss per row (a scan of the
  // head spent half its time on the first byte of each row): the row a few
  // ahead is asked for (PrefetchRow).
  ABSL_ATTRIBUTE_ALWAYS_INLINE void Prefetch(int e) const {
    if (e < static_cast<int>(entries_.size())) PrefetchRow(entries_[e]);
  }
  void CopyShapes(const MemoryHead::Bucket& bucket) ABSL_SHARED_LOCKS_REQUIRED(bucket.mu) {
    shapes_.clear();
    for (const auto& shape : bucket.shapes) shapes_.push_back(shape.get());
  }
  // Moves forward from (b_, s_, e_) to the first existing entry.
  void SettleForward() {
    while (e_ >= static_cast<int>(entries_.size())) {
      if (s_ + 1 < static_cast<int>(series_.size())) {
        ++s_;
        LoadSeries(false);
      } else if (!EnterBucket(b_ + 1)) {
        return Invalidate();
      }
    }
    Place();
  }
  void SettleBackward() {
    while (e_ < 0) {
      if (s_ > 0) {
        --s_;
        LoadSeries(true);
      } else if (!EnterBucket(b_ - 1, /*at_end=*/true)) {
        return Invalidate();
      }
    }
    Place();
  }
  void Place() {
    const auto& [pk_hash, series] = series_[s_].first;
    keys::EncodePointKeyTo({.table_id = view_.table_id,
                            .bucket = view_.buckets[b_].first,
                            .pk_hash = pk_hash,
                            .series = series,
                            .time_nanos = entries_[e_].time_nanos},
                           key_.data());
    positioned_ = true;
    value_ready_ = false;
  }

  void SeekAtOrAfter(std::string_view target) {
    std::array<char, keys::kPointKeySize> probe;
    auto prefix = [&](uint32_t bucket, uint64_t pk, uint64_t series, int64_t time, size_t n) {
      keys::EncodePointKeyTo({.table_id = view_.table_id, .bucket = bucket, .pk_hash = pk,
                              .series = series, .time_nanos = time},
                             probe.data());
      return std::string_view(probe.data(), n);
    };
    const int buckets = static_cast<int>(view_.buckets.size());
    for (int b = 0; b < buckets; ++b) {
      const int c = Classify(prefix(view_.buckets[b].first, 0, 0, 0, 8), target);
      if (c < 0) continue;
      EnterBucket(b);
      if (c > 0) return SettleForward();
      // The target falls inside this bucket: the first series not wholly before it.
      const uint32_t bucket = view_.buckets[b].first;
      auto series_end = std::partition_point(series_.begin(), series_.end(), [&](const auto& s) {
        return Classify(prefix(bucket, s.first.first, s.first.second, 0, 24), target) < 0;
      });
      s_ = static_cast<int>(series_end - series_.begin());
      LoadSeries(false);
      if (s_ < static_cast<int>(series_.size())) {
        // Not a structured binding: clang 14 (scripts/fuzz.sh) cannot capture one.
        const auto pk = series_[s_].first.first;
        const auto series = series_[s_].first.second;
        auto entry = std::partition_point(entries_.begin(), entries_.end(), [&](const auto& e) {
          return prefix(bucket, pk, series, e.time_nanos, keys::kPointKeySize) < target;
        });
        e_ = static_cast<int>(entry - entries_.begin());
      }
      return SettleForward();
    }
    Invalidate();
  }

  const MemoryHead::View view_;
  const std::string upper_;
  const uint64_t max_sequence_;
  std::shared_ptr<const MemoryHead::Bucket::SeriesList> series_list_;  // bucket b_'s, shared
  absl::Span<const std::pair<MemoryHead::SeriesId, const MemoryHead::Series*>> series_;
  std::vector<MemoryHead::Entry> entries_;
  std::vector<const RowShape*> shapes_;  // bucket b_'s shapes, as copied
  const absl::flat_hash_set<uint64_t>* wanted_ = nullptr;  // KeepOnly's
  // value(), made once per position: rebuilt into row_ from a compact row.
  mutable std::string row_;
  mutable std::string_view value_;
  mutable bool value_ready_ = false;
  int b_ = 0, s_ = 0, e_ = 0;
  bool positioned_ = false;
  std::array<char, keys::kPointKeySize> key_{};
};

}  // namespace

std::unique_ptr<MemoryHead::Iterator> MemoryHead::NewIterator(View view, std::string upper,
                                                              uint64_t max_sequence) {
  return std::make_unique<HeadIterator>(std::move(view), std::move(upper), max_sequence);
}

}  // namespace strata
