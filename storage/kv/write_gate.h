// The one door of every write, flush, sync and compaction the server asks of
// RocksDB (docs/storage.md, "Full or failing disk"). After a failed
// write, flush or compaction RocksDB stops taking writes; Debian's RocksDB
// 7.8 is built with assertions on, and aborts the process when anything
// writes or syncs a log file after one of its writes failed. So, once the
// store is stopped, nothing passes here until Store::CheckWritable's
// Resume() succeeds: every path (the group commit, the catalog, DELETE,
// tiering, retention, the WAL syncer, backups) meets the same pause.
//
// Resume() moves writes to a new log file only if some memtable holds data
// (it flushes them all, and a flush switches the log); when a log write
// fails right after a flush, every memtable is empty, the failed log stays
// current, and the first write after Resume aborts. So each logged write is
// preceded by an unlogged write of one key to the default column family
// (unused otherwise): whenever a log write fails, a memtable holds data.
//
// Thread-safety: as rocksdb::DB.
#pragma once

#include <atomic>
#include <memory>
#include <string_view>
#include <vector>

#include "rocksdb/utilities/stackable_db.h"

namespace strata {

class WriteGate final : public rocksdb::StackableDB {
 public:
  static constexpr std::string_view kCanaryKey = "";

  // Takes `db`. `stopped` is set by RocksDB's background-error listener
  // and cleared by a successful Resume; the canary is written to
  // `canary_family`.
  WriteGate(rocksdb::DB* db, std::shared_ptr<const std::atomic<bool>> stopped,
            rocksdb::ColumnFamilyHandle* canary_family)
      : StackableDB(db), stopped_(std::move(stopped)), canary_family_(canary_family) {}

  using StackableDB::Put;
  rocksdb::Status Put(const rocksdb::WriteOptions& options, rocksdb::ColumnFamilyHandle* family,
                      const rocksdb::Slice& key, const rocksdb::Slice& value) override {
    return Logged(options, [&] { return db_->Put(options, family, key, value); });
  }
  using StackableDB::Delete;
  rocksdb::Status Delete(const rocksdb::WriteOptions& options, rocksdb::ColumnFamilyHandle* family,
                         const rocksdb::Slice& key) override {
    return Logged(options, [&] { return db_->Delete(options, family, key); });
  }
  using StackableDB::SingleDelete;
  rocksdb::Status SingleDelete(const rocksdb::WriteOptions& options,
                               rocksdb::ColumnFamilyHandle* family,
                               const rocksdb::Slice& key) override {
    return Logged(options, [&] { return db_->SingleDelete(options, family, key); });
  }
  using StackableDB::DeleteRange;
  rocksdb::Status DeleteRange(const rocksdb::WriteOptions& options,
                              rocksdb::ColumnFamilyHandle* family, const rocksdb::Slice& begin,
                              const rocksdb::Slice& end) override {
    return Logged(options, [&] { return db_->DeleteRange(options, family, begin, end); });
  }
  using StackableDB::Merge;
  rocksdb::Status Merge(const rocksdb::WriteOptions& options, rocksdb::ColumnFamilyHandle* family,
                        const rocksdb::Slice& key, const rocksdb::Slice& value) override {
    return Logged(options, [&] { return db_->Merge(options, family, key, value); });
  }
  rocksdb::Status Write(const rocksdb::WriteOptions& options, rocksdb::WriteBatch* batch) override {
    return Logged(options, [&] { return db_->Write(options, batch); });
  }
  using StackableDB::Flush;
  rocksdb::Status Flush(const rocksdb::FlushOptions& options,
                        rocksdb::ColumnFamilyHandle* family) override {
    return Closed() ? Paused() : db_->Flush(options, family);
  }
  rocksdb::Status Flush(const rocksdb::FlushOptions& options,
                        const std::vector<rocksdb::ColumnFamilyHandle*>& families) override {
    return Closed() ? Paused() : db_->Flush(options, families);
  }
  // StackableDB does not pass Resume on (DB's own answers NotSupported).
  rocksdb::Status Resume() override { return db_->Resume(); }
  rocksdb::Status SyncWAL() override { return Closed() ? Paused() : db_->SyncWAL(); }
  rocksdb::Status FlushWAL(bool sync) override { return Closed() ? Paused() : db_->FlushWAL(sync); }
  using StackableDB::CompactRange;
  rocksdb::Status CompactRange(const rocksdb::CompactRangeOptions& options,
                               rocksdb::ColumnFamilyHandle* family, const rocksdb::Slice* begin,
                               const rocksdb::Slice* end) override {
    return Closed() ? Paused() : db_->CompactRange(options, family, begin, end);
  }
  using StackableDB::IngestExternalFile;
  rocksdb::Status IngestExternalFile(rocksdb::ColumnFamilyHandle* family,
                                     const std::vector<std::string>& files,
                                     const rocksdb::IngestExternalFileOptions& options) override {
    return Closed() ? Paused() : db_->IngestExternalFile(family, files, options);
  }

 private:
  bool Closed() const { return stopped_->load(std::memory_order_acquire); }
  // A write that may reach the log: refused while stopped, else after the
  // canary (see above), whose failure is the write's own to report.
  template <typename WriteFn>
  rocksdb::Status Logged(const rocksdb::WriteOptions& options, WriteFn write) {
    if (Closed()) return Paused();
    if (!options.disableWAL) {
      rocksdb::WriteOptions unlogged;
      unlogged.disableWAL = true;
      db_->Put(unlogged, canary_family_, rocksdb::Slice(kCanaryKey.data(), kCanaryKey.size()), "")
          .PermitUncheckedError();
    }
    return write();
  }
  // Read by FromRocks as a full disk: "writes resume by themselves".
  static rocksdb::Status Paused() {
    return rocksdb::Status::NoSpace("writes are paused after a failed write until the store resumes");
  }

  std::shared_ptr<const std::atomic<bool>> stopped_;
  rocksdb::ColumnFamilyHandle* const canary_family_;
};

}  // namespace strata
