#include "storage/jobs/retention.h"

#include <chrono>
#include <memory>

#include "absl/container/flat_hash_set.h"
#include "common/coding.h"
#include "common/status.h"
#include "rocksdb/convenience.h"
#include "rocksdb/write_batch.h"
#include "storage/blocks/block.h"
#include "storage/kv/keys.h"

namespace strata {
namespace {

constexpr Store::Family kDataFamilies[] = {Store::kHeadLog, Store::kColdDelta, Store::kCold,
                                           Store::kColdHeader};

// Counts what [begin, end) holds: rows (a block counts its points, read
// from its header's copy) and buckets.
absl::Status Count(Store& store, MemoryHead& head, const std::string& begin, const std::string& end,
                   RetentionReport* report) {
  const rocksdb::Slice upper(end);
  absl::flat_hash_set<uint32_t> buckets;
  for (Store::Family family : {Store::kHot, Store::kColdDelta, Store::kColdHeader}) {
    rocksdb::ReadOptions options;
    options.iterate_upper_bound = &upper;
    // kHot: the memory head's rows.
    std::unique_ptr<rocksdb::Iterator> iter(
        family == Store::kHot
            ? MemoryHead::NewIterator(head.Capture(DecodeFixed32BE(begin.data())), end)
            : std::unique_ptr<rocksdb::Iterator>(
                  store.db()->NewIterator(options, store.family(family))));
    for (iter->Seek(begin); iter->Valid(); iter->Next()) {
      buckets.insert(DecodeFixed32BE(iter->key().data() + 4));
      if (family != Store::kColdHeader) {
        ++report->rows_dropped;
        continue;
      }
      ASSIGN_OR_RETURN(auto summary, format::DecodeBlockSummary(iter->value().ToStringView()));
      report->rows_dropped += summary.count;
    }
    RETURN_IF_ERROR(FromRocks(iter->status(), "counting expired rows"));
  }
  report->buckets_dropped = static_cast<int64_t>(buckets.size());
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<RetentionReport> RunRetention(Store& store, MemoryHead& head, Writer& writer, const TableInfo& table,
                                             int64_t now_nanos, uint32_t* reclaimed_before) {
  const auto started = std::chrono::steady_clock::now();
  RetentionReport report;
  const uint32_t end_bucket = keys::BucketsBefore(table.RetentionStartNanos(now_nanos));
  if (end_bucket == 0) return report;
  const std::string begin = keys::BucketPrefix(table.id, 0);
  const std::string end = keys::BucketPrefix(table.id, end_bucket);
  // Nothing is written below the retention window, so once counted the
  // range only shrinks: the count is what the delete removes.
  RETURN_IF_ERROR(Count(store, head, begin, end, &report));
  if (report.buckets_dropped > 0) {
    RETURN_IF_ERROR(writer.Exclusive([&] {
      rocksdb::WriteBatch batch;
      for (Store::Family family : kDataFamilies) {
        batch.DeleteRange(store.family(family), begin, end);
      }
      return FromRocks(head.WriteThenDrop(store.db(), store.sync_write_options(), &batch,
                                                  table.id, 0, end_bucket),
                       "dropping expired buckets");
    }));
  }
  if (report.buckets_dropped == 0 && *reclaimed_before >= end_bucket) return report;
  // Give the space back: whole files inside the range go at once, and a
  // compaction of the range rewrites the files that straddle its edges.
  // Checked by bytes, not rows: a run killed after the delete left files
  // whose rows are already invisible.
  const rocksdb::Slice from(begin), to(end);
  for (Store::Family family : kDataFamilies) {
    uint64_t bytes = 0;
    const rocksdb::Range range(from, to);
    rocksdb::SizeApproximationOptions size_options;
    size_options.include_memtables = true;
    RETURN_IF_ERROR(FromRocks(
        store.db()->GetApproximateSizes(size_options, store.family(family), &range, 1, &bytes),
        "estimating expired bytes"));
    if (bytes == 0) continue;
    RETURN_IF_ERROR(FromRocks(
        rocksdb::DeleteFilesInRange(store.db(), store.family(family), &from, &to),
        "deleting expired files"));
    rocksdb::CompactRangeOptions options;
    options.bottommost_level_compaction = rocksdb::BottommostLevelCompaction::kForceOptimized;
    RETURN_IF_ERROR(FromRocks(store.db()->CompactRange(options, store.family(family), &from, &to),
                              "compacting expired ranges"));
  }
  *reclaimed_before = end_bucket;
  report.duration_nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(
                              std::chrono::steady_clock::now() - started).count();
  return report;
}

}  // namespace strata
