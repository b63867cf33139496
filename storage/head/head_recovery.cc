#include "storage/head/head_recovery.h"

#include <string>
#include <vector>

#include "common/status.h"
#include "rocksdb/write_batch.h"
#include "storage/head/head_log.h"
#include "storage/kv/keys.h"
#include "storage/kv/write_gate.h"

namespace strata {
namespace {

// `hot` held the memory store's rows before the head.
absl::Status MoveHotIntoHeadLog(Store& store) {
  std::unique_ptr<rocksdb::Iterator> iter(
      store.db()->NewIterator(rocksdb::ReadOptions(), store.family(Store::kHot)));
  iter->SeekToFirst();
  // One bucket at a time: its rows become one log entry, written with the
  // deletion of its `hot` range, so a crash midway leaves every row in
  // exactly one of the two.
  while (iter->Valid()) {
    keys::PointKey first;
    if (!keys::DecodePointKey(iter->key().ToStringView(), &first)) {
      return absl::DataLossError("a stored point key is malformed; restore from a backup");
    }
    head_log::EntryBuilder entry;
    const std::string begin = keys::BucketPrefix(first.table_id, first.bucket);
    for (; iter->Valid() && iter->key().starts_with(begin); iter->Next()) {
      keys::PointKey key;
      if (!keys::DecodePointKey(iter->key().ToStringView(), &key)) {
        return absl::DataLossError("a stored point key is malformed; restore from a backup");
      }
      entry.Put(key, iter->value().ToStringView());
    }
    RETURN_IF_ERROR(FromRocks(iter->status(), "reading the memory store"));
    rocksdb::WriteBatch batch;
    batch.Put(store.family(Store::kHeadLog), head_log::Key(first.table_id, first.bucket, 0),
              entry.bytes());
    batch.DeleteRange(store.family(Store::kHot), begin,
                      keys::BucketPrefix(first.table_id, first.bucket + 1));
    RETURN_IF_ERROR(FromRocks(store.db()->Write(store.sync_write_options(), &batch),
                              "moving the memory store into its log"));
  }
  return FromRocks(iter->status(), "reading the memory store");
}

absl::Status ReplayHeadLog(Store& store, MemoryHead& head) {
  std::unique_ptr<rocksdb::Iterator> iter(
      store.db()->NewIterator(rocksdb::ReadOptions(), store.family(Store::kHeadLog)));
  std::vector<MemoryHead::Change> changes;
  for (iter->SeekToFirst(); iter->Valid(); iter->Next()) {
    if (iter->key().ToStringView() == WriteGate::kCanaryKey) continue;  // not an entry
    changes.clear();
    uint64_t sequence = 0;
    RETURN_IF_ERROR(head_log::Decode(iter->key().ToStringView(), iter->value().ToStringView(),
                                     &changes, &sequence));
    head.Apply(changes);
    head.SawLogSequence(sequence);
  }
  return FromRocks(iter->status(), "reading the memory store's log");
}

}  // namespace

absl::StatusOr<std::unique_ptr<MemoryHead>> RecoverMemoryHead(Store& store) {
  RETURN_IF_ERROR(MoveHotIntoHeadLog(store));
  auto head = std::make_unique<MemoryHead>();
  RETURN_IF_ERROR(ReplayHeadLog(store, *head));
  return head;
}

}  // namespace strata
