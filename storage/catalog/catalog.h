// Catalog: the databases and tables of a Strata server, with Timestream's
// rules (docs/api.md). Every change is one synced RocksDB write to the
// `catalog` column family, so an acknowledged change survives a crash; reads
// are served from an in-memory copy loaded at open.
//
// Errors: INVALID_ARGUMENT (bad name, out-of-range property, partition key
// change), ALREADY_EXISTS, NOT_FOUND, FAILED_PRECONDITION (deleting a
// database that has tables); others come from the store.
// Thread-safety: safe for concurrent use.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "common/clock.h"
#include "storage/catalog/catalog_types.h"
#include "storage/head/memory_head.h"
#include "storage/kv/store.h"

namespace strata {

inline constexpr int kDefaultPageSize = 100;
inline constexpr int kMaxPageSize = 1000;
inline constexpr size_t kMaxDescriptionBytes = 2048;

class Catalog {
 public:
  // Loads the catalog from `store`. Both must outlive the Catalog.
  static absl::StatusOr<std::unique_ptr<Catalog>> Load(Store* store, MemoryHead* head, const Clock* clock);

  absl::StatusOr<DatabaseInfo> CreateDatabase(std::string_view name, std::string_view description);
  absl::StatusOr<DatabaseInfo> DescribeDatabase(std::string_view name) const;
  // NOT_FOUND for database `name`, without suggestions: also the answer for
  // a database the caller may not see, which must read the same.
  static absl::Status NoSuchDatabase(std::string_view name);
  // `max_results` 0 means kDefaultPageSize; `next_token` from a previous page.
  absl::StatusOr<Page<DatabaseInfo>> ListDatabases(int max_results,
                                                   std::string_view next_token) const;
  absl::StatusOr<DatabaseInfo> UpdateDatabase(std::string_view name, std::string_view description);
  absl::Status DeleteDatabase(std::string_view name);

  absl::StatusOr<TableInfo> CreateTable(const TableSpec& spec);
  absl::StatusOr<TableInfo> DescribeTable(std::string_view database, std::string_view table) const;
  // The shared, immutable description used on hot paths (no copy); a later
  // UpdateTable publishes a new one.
  absl::StatusOr<std::shared_ptr<const TableInfo>> FindTable(std::string_view database,
                                                             std::string_view table) const;
  // `database` empty lists the tables of every database.
  absl::StatusOr<Page<TableInfo>> ListTables(std::string_view database, int max_results,
                                             std::string_view next_token) const;
  absl::StatusOr<TableInfo> UpdateTable(std::string_view database, std::string_view table,
                                        const TableUpdate& update);
  // Removes the table and, in the same atomic write, all of its data.
  absl::Status DeleteTable(std::string_view database, std::string_view table);
  // Deletes what is stored under the ids of dropped tables: rows a write
  // group or a conversion that raced DROP TABLE wrote after it (neither waits
  // for the other). Run at open and by each maintenance pass; returns how
  // many dropped tables had something left.
  absl::StatusOr<int> SweepDroppedTables();
  // Every table of every database, for the background jobs.
  std::vector<std::shared_ptr<const TableInfo>> AllTables() const;

 private:
  using TableKey = std::pair<std::string, std::string>;

  Catalog(Store* store, MemoryHead* head, const Clock* clock)
      : store_(store), head_(head), clock_(clock) {}
  absl::Status LoadAll();
  int64_t TableCountLocked(std::string_view database) const ABSL_SHARED_LOCKS_REQUIRED(mu_);
  DatabaseInfo WithCountLocked(const DatabaseInfo& db) const ABSL_SHARED_LOCKS_REQUIRED(mu_);
  absl::Status DatabaseNotFound(std::string_view name) const ABSL_SHARED_LOCKS_REQUIRED(mu_);
  absl::Status TableNotFound(std::string_view database, std::string_view table) const
      ABSL_SHARED_LOCKS_REQUIRED(mu_);

  Store* const store_;
  MemoryHead* const head_;
  const Clock* const clock_;

  mutable absl::Mutex mu_;
  std::map<std::string, DatabaseInfo, std::less<>> databases_ ABSL_GUARDED_BY(mu_);
  std::map<TableKey, std::shared_ptr<const TableInfo>> tables_ ABSL_GUARDED_BY(mu_);
  uint32_t next_database_id_ ABSL_GUARDED_BY(mu_) = 1;
  uint32_t next_table_id_ ABSL_GUARDED_BY(mu_) = 1;
};

// Checks a table's retention, magnetic-write and partition-key settings.
absl::Status ValidateTableSettings(const RetentionProperties& retention,
                                   const PartitionKey& partition_key);

}  // namespace strata
