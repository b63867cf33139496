#include "storage/jobs/tiering.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>

#include "common/coding.h"
#include "common/status.h"
#include "rocksdb/write_batch.h"
#include "storage/blocks/block.h"
#include "storage/blocks/block_format.h"
#include "storage/head/head_log.h"
#include "storage/kv/keys.h"
#include "storage/read/stored_blocks.h"
#include "storage/rows/head_rows.h"
#include "storage/rows/row_codec.h"

namespace strata {
namespace {

// A point read from one tier; `rank` orders tiers by recency of writing
// (block 0, delta 1, hot 2) for ties between equal versions.
struct Candidate {
  int64_t time;
  int rank;
  format::BlockPoint point;
};

std::unique_ptr<rocksdb::Iterator> Iterate(Store& store, Store::Family family,
                                           const rocksdb::Slice* upper,
                                           const rocksdb::Snapshot* snapshot = nullptr) {
  rocksdb::ReadOptions options;
  options.iterate_upper_bound = upper;
  options.snapshot = snapshot;
  return std::unique_ptr<rocksdb::Iterator>(store.db()->NewIterator(options, store.family(family)));
}

// The first bucket in [from, end) holding `hot` or `cold_delta` rows.
std::optional<uint32_t> NextBucket(Store& store, const MemoryHead& head, uint32_t table_id, uint32_t from, uint32_t end) {
  const std::string upper = keys::BucketPrefix(table_id, end);
  const rocksdb::Slice upper_slice(upper);
  std::optional<uint32_t> found;
  for (uint32_t bucket : head.Buckets(table_id)) {
    if (bucket >= from && bucket < end) {
      found = bucket;
      break;
    }
  }
  for (Store::Family family : {Store::kColdDelta}) {
    auto iter = Iterate(store, family, &upper_slice);
    iter->Seek(keys::BucketPrefix(table_id, from));
    if (!iter->Valid()) continue;
    const uint32_t bucket = DecodeFixed32BE(iter->key().data() + 4);
    if (!found || bucket < *found) found = bucket;
  }
  return found;
}

// A conversion writes its blocks in batches of about this size.
constexpr size_t kBlocksChunkBytes = 4 << 20;

// One bucket's conversion, ready to commit: the batch that writes its blocks
// and drops its memory-store rows and late writes.
struct Conversion {
  rocksdb::WriteBatch batch;
  TieringReport counts;
  // A series too large for one block: the bucket stays in the memory store.
  bool stays_in_memory = false;
};

// Converts one bucket series by series: the memory-store rows and late
// writes of each series are merged with its block as they are read, so
// memory holds one series at a time plus the encoded blocks of the batch.
class BucketConverter {
 public:
  explicit BucketConverter(Store& store) : store_(store) {}

  // Reads the bucket as of `snapshot` and `head` (captured with it; null
  // snapshot: now), the head's rows up to log sequence `sequence`.
  absl::StatusOr<Conversion> Convert(uint32_t table_id, uint32_t bucket,
                                     const rocksdb::Snapshot* snapshot,
                                     const MemoryHead::View& head, uint64_t sequence) {
    snapshot_ = snapshot;
    const std::string begin = keys::BucketPrefix(table_id, bucket);
    const std::string end = keys::BucketPrefix(table_id, bucket + 1);
    const rocksdb::Slice upper(end);
    auto hot = MemoryHead::NewIterator(head, end, sequence);
    auto delta = Iterate(store_, Store::kColdDelta, &upper, snapshot);
    hot->Seek(begin);
    delta->Seek(begin);
    Conversion conversion;
    rocksdb::WriteBatch& batch = conversion.batch;
    TieringReport& counts = conversion.counts;
    std::vector<Candidate> candidates;
    while (hot->Valid() || delta->Valid()) {
      // The next series: the smaller prefix of the two cursors.
      std::string_view prefix;
      for (rocksdb::Iterator* iter : {static_cast<rocksdb::Iterator*>(hot.get()), delta.get()}) {
        if (!iter->Valid()) continue;
        if (iter->key().size() != keys::kPointKeySize) return Malformed();
        const std::string_view p = iter->key().ToStringView().substr(0, keys::kBlockKeySize);
        if (prefix.empty() || p < prefix) prefix = p;
      }
      const std::string block_key(prefix);
      ASSIGN_OR_RETURN(std::optional<std::string> existing, ReadSnapshotBlock(block_key));
      std::optional<std::string> block;
      if (!existing && !(delta->Valid() && delta->key().starts_with(block_key))) {
        // Only the head holds the series here: its rows may freeze as they are.
        ASSIGN_OR_RETURN(block, FreezeHeadSeries(hot.get(), block_key, &counts.rows_moved));
      }
      if (!block) {
        candidates.clear();
        RETURN_IF_ERROR(TakeSeries(hot.get(), hot.get(), block_key, 2, &candidates,
                                   &counts.rows_moved));
        RETURN_IF_ERROR(TakeSeries(delta.get(), nullptr, block_key, 1, &candidates,
                                   &counts.delta_rows_merged));
        if (existing) {
          ASSIGN_OR_RETURN(auto points, format::DecodeBlock(*existing));
          for (auto& p : points) candidates.push_back({p.time_nanos, 0, std::move(p)});
        }
        std::vector<format::BlockPoint> points = Resolve(&candidates);
        if (points.size() > format::kMaxPointsPerBlock) {
          // One block cannot hold this series' hour: the bucket stays in the
          // memory store (still read and expired normally).
          conversion.stays_in_memory = true;
          return conversion;
        }
        ASSIGN_OR_RETURN(block, format::EncodeBlock(points));
      }
      RETURN_IF_ERROR(PutBlock(store_, block_key, *block, &batch));
      ++counts.blocks_written;
      if (batch.GetDataSize() > kBlocksChunkBytes) {
        // Written ahead of the commit: a block holds the series' rows up to
        // the conversion's sequence, which the head and its log still hold
        // too until the commit, and equal keys of equal versions read as one
        // row. A killed or abandoned conversion leaves such blocks; the next
        // one merges them again. (DELETE, which rewrites blocks, waits for
        // conversions: Engine::Delete.) Without this a bucket of 100,000
        // series was one batch of hundreds of MB, held twice while written.
        RETURN_IF_ERROR(FromRocks(store_.db()->Write(store_.write_options(), &batch),
                                  "writing magnetic-store blocks"));
        batch.Clear();
      }
    }
    RETURN_IF_ERROR(FromRocks(hot->status(), "reading the memory store"));
    RETURN_IF_ERROR(FromRocks(delta->status(), "reading the magnetic store's late writes"));
    // The range deletes begin at the 8-byte bucket prefix on purpose: RocksDB
    // (7.8) shares the memtable insert hints of `hot` and `cold_delta`
    // (keyed by the 24-byte series prefix, storage/kv/store.cc) between point
    // and range-deletion entries, and a range deletion whose begin key is in
    // the hint's domain corrupts the skiplist splice.
    // The log entries of the rows read; later ones stay with their rows.
    batch.DeleteRange(store_.family(Store::kHeadLog), head_log::Key(table_id, bucket, 0),
                      head_log::Key(table_id, bucket, sequence + 1));
    batch.DeleteRange(store_.family(Store::kColdDelta), begin, end);
    return conversion;
  }

 private:
  static absl::Status Malformed() {
    return absl::DataLossError("a stored point key is malformed; restore from a backup");
  }

  // Reads the rows of one series (keys starting with `prefix`) from `iter`,
  // which is `head` for the memory head's rows (read as it stores them).
  static absl::Status TakeSeries(rocksdb::Iterator* iter, const MemoryHead::Iterator* head,
                                 std::string_view prefix, int rank,
                                 std::vector<Candidate>* candidates, int64_t* count) {
    for (; iter->Valid() && iter->key().starts_with(prefix); iter->Next()) {
      keys::PointKey point;
      if (!keys::DecodePointKey(iter->key().ToStringView(), &point)) return Malformed();
      StoredRow row;
      const auto [bytes, shape] = head != nullptr
                                      ? head->stored()
                                      : std::pair{iter->value().ToStringView(), nullptr};
      RETURN_IF_ERROR(DecodeRowInto(bytes, shape, &row));
      candidates->push_back(
          {point.time_nanos, rank, {point.time_nanos, row.version, std::move(row.measures)}});
      ++*count;
    }
    return absl::OkStatus();
  }

  // The series' block in the bucket as of the snapshot, if it has one.
  absl::StatusOr<std::optional<std::string>> ReadSnapshotBlock(const std::string& block_key) {
    rocksdb::ReadOptions options;
    options.snapshot = snapshot_;
    return ReadBlock(store_, options, block_key);
  }

  // The block of the series at `head` (keys starting with `prefix`) encoded
  // straight from the head's rows, when they are all stored compact in one
  // shape (storage/rows/head_rows.h: a series' rows nearly always are) and fit in
  // one block: each value read into its column, where the general path
  // decodes every row into measures with their names, sorts them with the
  // other tiers' and encodes them again. A shape of fixed-size values
  // (doubles, booleans) is read in place; others value by value. Moves
  // `head` past the series. Nullopt (nothing read) otherwise.
  static absl::StatusOr<std::optional<std::string>> FreezeHeadSeries(MemoryHead::Iterator* head,
                                                                     std::string_view prefix,
                                                                     int64_t* count) {
    if (!head->Valid() || !head->key().starts_with(prefix)) return std::nullopt;
    const MemoryHead::Iterator::SeriesRows series = head->RestOfSeries();
    const uint32_t shape_id = series.entries.front().shape;
    if (shape_id == 0 || shape_id > series.shapes.size() ||
        series.entries.size() > format::kMaxPointsPerBlock) {
      return std::nullopt;
    }
    for (const MemoryHead::Entry& e : series.entries) {
      if (e.shape != shape_id) return std::nullopt;
    }
    const RowShape& shape = *series.shapes[shape_id - 1];
    const size_t n = series.entries.size();
    std::vector<int64_t> times(n), versions(n);
    std::vector<format::ColumnToEncode> columns(shape.size());
    for (size_t c = 0; c < shape.size(); ++c) {
      columns[c].name = shape.name(c);
      format::ColumnValues& values = columns[c].values;
      values.type = shape.type(c);
      switch (values.type) {
        case ValueType::kDouble: values.reals.resize(n); break;
        case ValueType::kVarchar: values.texts.resize(n); break;  // views of the head's rows
        default: values.numbers.resize(n); break;
      }
    }
    const bool fixed = !shape.fixed_offsets().empty();
    for (size_t i = 0; i < n; ++i) {
      const MemoryHead::Entry& e = series.entries[i];
      times[i] = e.time_nanos;
      RowReader reader(e.stored(), &shape);
      if (!reader.Start(&versions[i])) return CorruptionError("row");
      if (fixed) {
        std::string_view values;
        if (!FixedValues(e.stored(), shape, &values)) return CorruptionError("row");
        for (size_t c = 0; c < shape.size(); ++c) {
          const uint32_t offset = shape.fixed_offsets()[c];
          if (shape.type(c) == ValueType::kDouble) {
            columns[c].values.reals[i] = FixedDoubleAt(values.data(), offset);
          } else {  // BOOLEAN, the other fixed-size type
            columns[c].values.numbers[i] = FixedBooleanAt(values.data(), offset);
          }
        }
        continue;
      }
      MeasureView m;
      for (size_t c = 0; c < shape.size(); ++c) {
        if (!reader.Next(&m)) return CorruptionError("row");
        format::ColumnValues& values = columns[c].values;
        switch (values.type) {
          case ValueType::kDouble: values.reals[i] = m.real; break;
          case ValueType::kVarchar: values.texts[i] = m.text; break;
          default: values.numbers[i] = m.number; break;
        }
      }
      if (reader.Next(&m) || !reader.ok()) return CorruptionError("row");
    }
    ASSIGN_OR_RETURN(std::string block, format::EncodeBlockColumns(times, versions, columns));
    *count += static_cast<int64_t>(n);
    head->SkipSeries();
    return block;
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

  Store& store_;
  const rocksdb::Snapshot* snapshot_ = nullptr;
};

// Writes `conversion` of the bucket (its head rows up to log sequence
// `sequence`), keeps only the later rows in the memory head, and counts it
// in `report`.
absl::Status Commit(Store& store, MemoryHead& head, uint32_t table_id, uint32_t bucket, uint64_t sequence,
                    Conversion& conversion, TieringReport* report) {
  if (conversion.stays_in_memory) {
    ++report->series_left_in_memory;
    return absl::OkStatus();
  }
  RETURN_IF_ERROR(FromRocks(head.WriteThenKeepAfter(store.db(), store.write_options(),
                                                            &conversion.batch, table_id, bucket,
                                                            sequence),
                            "writing magnetic-store blocks"));
  report->rows_moved += conversion.counts.rows_moved;
  report->delta_rows_merged += conversion.counts.delta_rows_merged;
  report->blocks_written += conversion.counts.blocks_written;
  return absl::OkStatus();
}

// How many times a bucket is read outside the writer's lock before its
// conversion stops waiting for writes to settle and runs under the lock.
constexpr int kOptimisticAttempts = 2;

// What ConvertBucket does when writes keep touching the bucket.
enum class IfWritten {
  kConvertUnderLock,  // a sealed hour: it must move (late writes are rare)
  kLeaveIt,           // a quiet hour that is quiet no more: it stays rows
};

// Converts one bucket; false if it was left (IfWritten::kLeaveIt). It is
// read and encoded from a snapshot while writes go on, then committed under
// Writer::Exclusive only if no write group (or DELETE) touched the bucket
// since the snapshot: writers wait for the commit, not the conversion
// (which took over a second under the lock). Retention, the other job that
// changes buckets, runs in the same maintenance pass, never beside this.
absl::StatusOr<bool> ConvertBucket(Store& store, MemoryHead& head, Writer& writer, uint32_t table_id,
                                   uint32_t bucket, IfWritten if_written, TieringReport* report) {
  auto commit = [&](Conversion& conversion, uint64_t sequence) -> absl::Status {
    RETURN_IF_ERROR(Commit(store, head, table_id, bucket, sequence, conversion, report));
    if (!conversion.stays_in_memory) writer.BucketConverted(table_id, bucket);
    return absl::OkStatus();
  };
  BucketConverter converter(store);
  const int attempts = if_written == IfWritten::kLeaveIt ? 1 : kOptimisticAttempts;
  for (int attempt = 0; attempt < attempts; ++attempt) {
    // Between write groups: every head row up to `sequence` is applied, and
    // the rows written from here on stay in the head at the commit.
    const rocksdb::Snapshot* snapshot = nullptr;
    uint64_t sequence = 0;
    const MemoryHead::View view = writer.Exclusive([&] {
      writer.WatchBucket(table_id, bucket);
      sequence = head.LastLogSequence();
      return head.CaptureWithSnapshot(table_id, store.db(), &snapshot);
    });
    absl::StatusOr<Conversion> conversion =
        converter.Convert(table_id, bucket, snapshot, view, sequence);
    store.db()->ReleaseSnapshot(snapshot);
    std::optional<absl::Status> committed = writer.Exclusive([&]() -> std::optional<absl::Status> {
      if (writer.UnwatchBucket(table_id, bucket)) return std::nullopt;  // changed: again
      if (!conversion.ok()) return conversion.status();
      return commit(*conversion, sequence);
    });
    if (committed) {
      RETURN_IF_ERROR(*committed);
      return true;
    }
  }
  if (if_written == IfWritten::kLeaveIt) return false;
  RETURN_IF_ERROR(writer.Exclusive([&]() -> absl::Status {
    const uint64_t sequence = head.LastLogSequence();
    ASSIGN_OR_RETURN(Conversion conversion,
                     converter.Convert(table_id, bucket, nullptr, head.Capture(table_id),
                                       sequence));
    return commit(conversion, sequence);
  }));
  return true;
}

}  // namespace

absl::StatusOr<TieringReport> ConvertBucketNow(Store& store, MemoryHead& head, Writer& writer, uint32_t table_id,
                                               uint32_t bucket) {
  const auto started = std::chrono::steady_clock::now();
  TieringReport report;
  ASSIGN_OR_RETURN(bool converted, ConvertBucket(store, head, writer, table_id, bucket,
                                                 IfWritten::kConvertUnderLock, &report));
  if (converted) ++report.buckets;
  report.duration_nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(
                              std::chrono::steady_clock::now() - started).count();
  return report;
}

absl::StatusOr<TieringReport> RunTiering(Store& store, MemoryHead& head, Writer& writer, const TableInfo& table,
                                         int64_t now_nanos) {
  const auto started = std::chrono::steady_clock::now();
  TieringReport report;
  std::optional<uint32_t> first, last;
  auto convert = [&](uint32_t bucket, IfWritten if_written) -> absl::Status {
    ASSIGN_OR_RETURN(bool converted,
                     ConvertBucket(store, head, writer, table.id, bucket, if_written, &report));
    if (!converted) return absl::OkStatus();
    ++report.buckets;
    if (!first) first = bucket;
    last = bucket;
    return absl::OkStatus();
  };
  // Hours past the memory store's window, and sealed hours.
  const int64_t seal_after = writer.seal_after_nanos();
  const uint32_t end = keys::BucketsBefore(table.BlocksBeforeNanos(now_nanos, seal_after));
  for (uint32_t from = 0; from < end;) {
    std::optional<uint32_t> bucket = NextBucket(store, head, table.id, from, end);
    if (!bucket) break;
    RETURN_IF_ERROR(convert(*bucket, IfWritten::kConvertUnderLock));
    from = *bucket + 1;
  }
  // Hours no write touched for as long (the open hour after a load, or the
  // last one before a pause): rows would keep 5-10x the bytes of blocks on
  // disk while nothing arrives. A write after this is checked against the
  // blocks like a late write to a sealed hour.
  if (seal_after > 0) {
    const uint32_t open_end = keys::BucketOf(now_nanos + kFutureWindowNanos) + 1;
    for (uint32_t from = end; from < open_end;) {
      std::optional<uint32_t> bucket = NextBucket(store, head, table.id, from, open_end);
      if (!bucket) break;
      const bool quiet = writer.Exclusive(
          [&] { return writer.LastWriteNanos(table.id, *bucket) <= now_nanos - seal_after; });
      if (quiet) RETURN_IF_ERROR(convert(*bucket, IfWritten::kLeaveIt));
      from = *bucket + 1;
    }
  }
  if (first) {
    // The moved rows are deleted by range, but their bytes stay in the
    // memory store's files until a compaction drops them, and every scan of
    // those hours steps over them. Compacting the moved range frees both.
    // (Not DeleteFilesInRange: it ignores the snapshots running queries read.)
    const std::string from = keys::BucketPrefix(table.id, *first);
    const std::string to = keys::BucketPrefix(table.id, *last + 1);
    const rocksdb::Slice begin_key(from), end_key(to);
    rocksdb::CompactRangeOptions options;
    options.bottommost_level_compaction = rocksdb::BottommostLevelCompaction::kForceOptimized;
    for (Store::Family family : {Store::kHeadLog, Store::kColdDelta}) {
      RETURN_IF_ERROR(FromRocks(
          store.db()->CompactRange(options, store.family(family), &begin_key, &end_key),
          "compacting the moved memory-store range"));
    }
    // The compaction flushed `hot`; the new blocks sit in `cold`'s memtable,
    // and with them every log file since: flush them so the log can go
    // (after a load settled, the log held 6x the table's own bytes).
    RETURN_IF_ERROR(store.FlushBurstFamilies());
  }
  report.duration_nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(
                              std::chrono::steady_clock::now() - started).count();
  return report;
}

}  // namespace strata

namespace strata {
namespace {
// A key no table's data uses (those start with a 4-byte table id).
constexpr std::string_view kHeadersCompleteKey = "";
}  // namespace

absl::Status BackfillBlockHeaders(Store& store) {
  std::string marker;
  rocksdb::Status found = store.db()->Get(rocksdb::ReadOptions(), store.family(Store::kColdHeader),
                                          kHeadersCompleteKey, &marker);
  if (found.ok()) return absl::OkStatus();
  if (!found.IsNotFound()) return FromRocks(found, "reading the block-header marker");
  std::unique_ptr<rocksdb::Iterator> iter(
      store.db()->NewIterator(rocksdb::ReadOptions(), store.family(Store::kCold)));
  rocksdb::WriteBatch batch;
  auto write = [&] {
    absl::Status s = FromRocks(store.db()->Write(store.sync_write_options(), &batch),
                               "writing block headers");
    batch.Clear();
    return s;
  };
  for (iter->SeekToFirst(); iter->Valid(); iter->Next()) {
    // A corrupt block keeps all its bytes as the copy: reads of it then fail
    // with DATA_LOSS as they did, rather than the block vanishing from scans.
    const std::string_view block = iter->value().ToStringView();
    // Bodies stored apart were written with their header (never the case in
    // a data directory without the marker, but harmless to skip).
    if (!format::IsWholeBlock(block)) continue;
    absl::StatusOr<std::string_view> header = format::BlockHeaderBytes(block);
    batch.Put(store.family(Store::kColdHeader), iter->key(), header.ok() ? *header : block);
    if (batch.GetDataSize() > (4 << 20)) RETURN_IF_ERROR(write());
  }
  RETURN_IF_ERROR(FromRocks(iter->status(), "reading magnetic-store blocks"));
  batch.Put(store.family(Store::kColdHeader), kHeadersCompleteKey, "1");
  return write();
}

}  // namespace strata
