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
#include "storage/catalog/catalog_changes.h"
#include "storage/catalog/catalog_types.h"
#include "storage/head/memory_head.h"
#include "storage/kv/store.h"

namespace strata {

inline constexpr int kDefaultPageSize = 100;
inline constexpr int kMaxPageSize = 1000;
inline constexpr size_t kMaxDescriptionBytes = 2048;

class Catalog final : public CatalogChanges {
 public:
  // Loads the catalog from `store`. Both must outlive the Catalog.
  static absl::StatusOr<std::unique_ptr<Catalog>> Load(Store* store, MemoryHead* head, const Clock* clock);

  absl::StatusOr<DatabaseInfo> CreateDatabase(std::string_view name,
                                              std::string_view description) override;
  absl::StatusOr<DatabaseInfo> DescribeDatabase(std::string_view name) const;
  // NOT_FOUND for database `name`, without suggestions: also the answer for
  // a database the caller may not see, which must read the same.
  static absl::Status NoSuchDatabase(std::string_view name);
  // `max_results` 0 means kDefaultPageSize; `next_token` from a previous page.
  absl::StatusOr<Page<DatabaseInfo>> ListDatabases(int max_results,
                                                   std::string_view next_token) const;
  absl::StatusOr<DatabaseInfo> UpdateDatabase(std::string_view name,
                                              std::string_view description) override;
  absl::Status DeleteDatabase(std::string_view name) override;

  absl::StatusOr<TableInfo> CreateTable(const TableSpec& spec) override;
  absl::StatusOr<TableInfo> DescribeTable(std::string_view database, std::string_view table) const;
  // The shared, immutable description used on hot paths (no copy); a later
  // UpdateTable publishes a new one.
  absl::StatusOr<std::shared_ptr<const TableInfo>> FindTable(std::string_view database,
                                                             std::string_view table) const;
  // `database` empty lists the tables of every database.
  absl::StatusOr<Page<TableInfo>> ListTables(std::string_view database, int max_results,
                                             std::string_view next_token) const;
  absl::StatusOr<TableInfo> UpdateTable(std::string_view database, std::string_view table,
                                        const TableUpdate& update) override;
  // Removes the table and, in the same atomic write, all of its data.
  absl::Status DeleteTable(std::string_view database, std::string_view table) override;
  // Deletes what is stored under the ids of dropped tables: rows a write
  // group or a conversion that raced DROP TABLE wrote after it (neither waits
  // for the other). Run at open and by each maintenance pass; returns how
  // many dropped tables had something left.
  absl::StatusOr<int> SweepDroppedTables();
  // Every table of every database, for the background jobs.
  std::vector<std::shared_ptr<const TableInfo>> AllTables() const;

  // A cluster's catalog lives in etcd (cluster/replicated_catalog.h), and each node's catalog
  // is its copy. A DDL call through a node plans the change against the copy (the same
  // checks and errors as above; nothing saved), commits it to etcd, and every node installs
  // what etcd holds: the description as decided (times, retention floors), under the node's
  // own table id. Install replaces a database or table of the same name; Remove of one that
  // is not there succeeds.
  absl::StatusOr<DatabaseInfo> PlanCreateDatabase(std::string_view name,
                                                  std::string_view description) const;
  absl::StatusOr<DatabaseInfo> PlanUpdateDatabase(std::string_view name,
                                                  std::string_view description) const;
  absl::Status PlanDeleteDatabase(std::string_view name) const;
  absl::StatusOr<TableInfo> PlanCreateTable(const TableSpec& spec) const;
  absl::StatusOr<TableInfo> PlanUpdateTable(std::string_view database, std::string_view table,
                                            const TableUpdate& update) const;
  absl::Status PlanDeleteTable(std::string_view database, std::string_view table) const;
  absl::StatusOr<DatabaseInfo> InstallDatabase(const DatabaseInfo& db);
  absl::StatusOr<TableInfo> InstallTable(const TableInfo& table);
  absl::Status RemoveDatabase(std::string_view name);
  // With all of the table's data, as DeleteTable.
  absl::Status RemoveTable(std::string_view database, std::string_view table);

 private:
  using TableKey = std::pair<std::string, std::string>;

  Catalog(Store* store, MemoryHead* head, const Clock* clock)
      : store_(store), head_(head), clock_(clock) {}
  absl::Status LoadAll();
  absl::StatusOr<DatabaseInfo> PlanCreateDatabaseLocked(std::string_view name,
                                                        std::string_view description) const
      ABSL_SHARED_LOCKS_REQUIRED(mu_);
  absl::StatusOr<DatabaseInfo> PlanUpdateDatabaseLocked(std::string_view name,
                                                        std::string_view description) const
      ABSL_SHARED_LOCKS_REQUIRED(mu_);
  absl::Status PlanDeleteDatabaseLocked(std::string_view name) const ABSL_SHARED_LOCKS_REQUIRED(mu_);
  absl::StatusOr<TableInfo> PlanCreateTableLocked(const TableSpec& spec) const
      ABSL_SHARED_LOCKS_REQUIRED(mu_);
  absl::StatusOr<TableInfo> PlanUpdateTableLocked(std::string_view database,
                                                  std::string_view table,
                                                  const TableUpdate& update) const
      ABSL_SHARED_LOCKS_REQUIRED(mu_);
  absl::Status PlanDeleteTableLocked(std::string_view database, std::string_view table) const
      ABSL_SHARED_LOCKS_REQUIRED(mu_);
  // Saves a new or changed database or table (a new one gets the next id; a changed one
  // keeps its own).
  absl::StatusOr<DatabaseInfo> SaveDatabaseLocked(DatabaseInfo db) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::StatusOr<TableInfo> SaveTableLocked(TableInfo table) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status RemoveDatabaseLocked(std::string_view name) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status RemoveTableLocked(std::string_view database, std::string_view table)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
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
