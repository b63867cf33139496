#include "storage/catalog/catalog.h"

#include "absl/container/flat_hash_set.h"
#include "absl/strings/escaping.h"
#include "common/coding.h"
#include "common/status.h"
#include "common/strings.h"
#include "common/suggest.h"
#include "rocksdb/write_batch.h"
#include "storage/catalog/catalog_codec.h"
#include "storage/catalog/names.h"
#include "storage/catalog/table_data.h"
#include "storage/kv/keys.h"

namespace strata {
namespace {

constexpr std::string_view kDatabaseIdCounter = "database_id";
constexpr std::string_view kTableIdCounter = "table_id";

absl::StatusOr<int> PageSize(int max_results) {
  if (max_results == 0) return kDefaultPageSize;
  if (max_results < 0 || max_results > kMaxPageSize) {
    return absl::InvalidArgumentError(
        StrCat("max_results must be in 1..", kMaxPageSize, " (or 0 for the default of ",
                     kDefaultPageSize, "), got ", max_results));
  }
  return max_results;
}

// Page tokens are the web-safe base64 of the last key returned: stable under
// concurrent creates and deletes, and opaque to clients.
std::string EncodePageToken(std::string_view last_key) {
  return absl::WebSafeBase64Escape(std::string(last_key));
}

absl::Status BadTokenError() {
  return absl::InvalidArgumentError(
      "next_token is not a token this server issued; pass the next_token of the previous "
      "response unchanged, or none for the first page");
}

absl::StatusOr<std::string> DecodePageToken(std::string_view token) {
  std::string key;
  if (!absl::WebSafeBase64Unescape(std::string(token), &key)) return BadTokenError();
  return key;
}

absl::Status ValidateDescription(std::string_view description) {
  if (description.size() > kMaxDescriptionBytes) {
    return absl::InvalidArgumentError(StrCat("description is ", description.size(),
                                                   " bytes; the limit is ", kMaxDescriptionBytes));
  }
  return absl::OkStatus();
}

void PutCounter(rocksdb::WriteBatch* batch, rocksdb::ColumnFamilyHandle* family,
                std::string_view name, uint32_t next) {
  std::string value;
  PutFixed64BE(&value, next);
  batch->Put(family, keys::Counter(name), value);
}

}  // namespace

absl::Status ValidateTableSettings(const RetentionProperties& retention,
                                   const PartitionKey& partition_key) {
  if (retention.memory_store_retention_hours < 1 ||
      retention.memory_store_retention_hours > kMaxMemoryRetentionHours) {
    return absl::InvalidArgumentError(
        StrCat("memory_store_retention_hours must be in 1..", kMaxMemoryRetentionHours,
                     " (one year), got ", retention.memory_store_retention_hours));
  }
  if (retention.magnetic_store_retention_days < 1 ||
      retention.magnetic_store_retention_days > kMaxMagneticRetentionDays) {
    return absl::InvalidArgumentError(
        StrCat("magnetic_store_retention_days must be in 1..", kMaxMagneticRetentionDays,
                     " (200 years), got ", retention.magnetic_store_retention_days));
  }
  if (partition_key.type == PartitionKeyType::kMeasure) {
    if (!partition_key.name.empty()) {
      return absl::InvalidArgumentError(
          StrCat("a MEASURE partition key partitions by measure_name and takes no name, got "
                       "\"", partition_key.name,
                       "\"; use type DIMENSION to partition by a dimension"));
    }
    return absl::OkStatus();
  }
  if (partition_key.name.empty()) {
    return absl::InvalidArgumentError(
        "a DIMENSION partition key needs the name of the dimension to partition by");
  }
  absl::Status name = ValidateDimensionName(partition_key.name);
  if (!name.ok()) {
    return absl::InvalidArgumentError(StrCat("partition key: ", name.message()));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Catalog>> Catalog::Load(Store* store, MemoryHead* head, const Clock* clock) {
  auto catalog = std::unique_ptr<Catalog>(new Catalog(store, head, clock));
  RETURN_IF_ERROR(catalog->LoadAll());
  return catalog;
}

absl::Status Catalog::LoadAll() {
  absl::MutexLock lock(&mu_);
  std::unique_ptr<rocksdb::Iterator> it(
      store_->db()->NewIterator(rocksdb::ReadOptions(), store_->family(Store::kCatalog)));
  for (it->Seek(keys::DatabasePrefix()); it->Valid() && it->key().starts_with(keys::DatabasePrefix());
       it->Next()) {
    ASSIGN_OR_RETURN(DatabaseInfo db, DecodeDatabase(it->value().ToStringView()));
    databases_.emplace(db.name, std::move(db));
  }
  for (it->Seek(keys::TablePrefix()); it->Valid() && it->key().starts_with(keys::TablePrefix());
       it->Next()) {
    ASSIGN_OR_RETURN(TableInfo table, DecodeTable(it->value().ToStringView()));
    TableKey key(table.database_name, table.name);
    tables_.emplace(std::move(key), std::make_shared<const TableInfo>(std::move(table)));
  }
  RETURN_IF_ERROR(FromRocks(it->status(), "reading the catalog"));

  for (auto [name, counter] : {std::pair{kDatabaseIdCounter, &next_database_id_},
                               std::pair{kTableIdCounter, &next_table_id_}}) {
    std::string value;
    rocksdb::Status s = store_->db()->Get(rocksdb::ReadOptions(), store_->family(Store::kCatalog),
                                          keys::Counter(name), &value);
    if (s.IsNotFound()) continue;
    RETURN_IF_ERROR(FromRocks(s, "reading the catalog counters"));
    if (value.size() != 8) return CorruptionError("catalog counter");
    *counter = static_cast<uint32_t>(DecodeFixed64BE(value.data()));
  }
  return absl::OkStatus();
}

int64_t Catalog::TableCountLocked(std::string_view database) const {
  auto it = tables_.lower_bound(TableKey(std::string(database), ""));
  int64_t count = 0;
  for (; it != tables_.end() && it->first.first == database; ++it) ++count;
  return count;
}

DatabaseInfo Catalog::WithCountLocked(const DatabaseInfo& db) const {
  DatabaseInfo result = db;
  result.table_count = TableCountLocked(db.name);
  return result;
}

absl::Status Catalog::NoSuchDatabase(std::string_view name) {
  return absl::NotFoundError(StrCat("database \"", name, "\" does not exist"));
}

absl::Status Catalog::DatabaseNotFound(std::string_view name) const {
  std::vector<std::string_view> names;
  for (const auto& [n, db] : databases_) names.push_back(n);
  const std::string hint = DidYouMean(name, names);
  if (hint.empty()) return NoSuchDatabase(name);
  return absl::NotFoundError(StrCat("database \"", name, "\" does not exist", hint));
}

absl::Status Catalog::TableNotFound(std::string_view database, std::string_view table) const {
  std::vector<std::string_view> names;
  for (auto it = tables_.lower_bound(TableKey(std::string(database), ""));
       it != tables_.end() && it->first.first == database; ++it) {
    names.push_back(it->first.second);
  }
  return absl::NotFoundError(StrCat("table \"", table, "\" does not exist in database \"",
                                          database, "\"", DidYouMean(table, names)));
}

absl::StatusOr<DatabaseInfo> Catalog::PlanCreateDatabaseLocked(std::string_view name,
                                                                std::string_view description) const {
  RETURN_IF_ERROR(ValidateNewResourceName("database", name));
  RETURN_IF_ERROR(ValidateDescription(description));
  if (name == "information_schema") {
    return absl::InvalidArgumentError(
        "database name \"information_schema\" is reserved: SQL reads it as the standard's "
        "catalog views (schemata, tables, columns); choose another name");
  }
  if (name == "pg_catalog") {
    return absl::InvalidArgumentError(
        "database name \"pg_catalog\" is reserved: SQL reads it as PostgreSQL's catalog "
        "(pg_class, pg_attribute, pg_type, ...); choose another name");
  }
  if (name == kSystemDatabaseName) {
    return absl::InvalidArgumentError(
        StrCat("database name \"", name, "\" is reserved: SQL reads \"", name,
               "\".\"<table>\" as the server's own tables (scheduled query runs); choose another "
               "name"));
  }
  if (databases_.contains(name)) {
    return absl::AlreadyExistsError(StrCat("database \"", name, "\" already exists"));
  }
  DatabaseInfo db;
  db.name = name;
  db.description = description;
  db.creation_time_nanos = db.last_updated_time_nanos = clock_->NowNanos();
  return db;
}

absl::StatusOr<DatabaseInfo> Catalog::SaveDatabaseLocked(DatabaseInfo db) {
  auto existing = databases_.find(db.name);
  const bool is_new = existing == databases_.end();
  db.id = is_new ? next_database_id_ : existing->second.id;
  rocksdb::WriteBatch batch;
  auto* family = store_->family(Store::kCatalog);
  batch.Put(family, keys::Database(db.name), EncodeDatabase(db));
  if (is_new) PutCounter(&batch, family, kDatabaseIdCounter, db.id + 1);
  RETURN_IF_ERROR(FromRocks(store_->db()->Write(store_->sync_write_options(), &batch),
                            "saving the database"));
  if (is_new) {
    ++next_database_id_;
    databases_.emplace(db.name, db);
  } else {
    existing->second = db;
  }
  return WithCountLocked(db);
}

absl::StatusOr<DatabaseInfo> Catalog::CreateDatabase(std::string_view name,
                                                     std::string_view description) {
  absl::MutexLock lock(&mu_);
  ASSIGN_OR_RETURN(DatabaseInfo db, PlanCreateDatabaseLocked(name, description));
  return SaveDatabaseLocked(std::move(db));
}

absl::StatusOr<DatabaseInfo> Catalog::DescribeDatabase(std::string_view name) const {
  RETURN_IF_ERROR(ValidateResourceName("database", name));
  absl::ReaderMutexLock lock(&mu_);
  auto it = databases_.find(name);
  if (it == databases_.end()) return DatabaseNotFound(name);
  return WithCountLocked(it->second);
}

absl::StatusOr<Page<DatabaseInfo>> Catalog::ListDatabases(int max_results,
                                                          std::string_view next_token) const {
  ASSIGN_OR_RETURN(int limit, PageSize(max_results));
  ASSIGN_OR_RETURN(std::string after, DecodePageToken(next_token));
  absl::ReaderMutexLock lock(&mu_);
  Page<DatabaseInfo> page;
  auto it = next_token.empty() ? databases_.begin() : databases_.upper_bound(after);
  for (; it != databases_.end() && static_cast<int>(page.items.size()) < limit; ++it) {
    page.items.push_back(WithCountLocked(it->second));
  }
  if (it != databases_.end()) page.next_token = EncodePageToken(page.items.back().name);
  return page;
}

absl::StatusOr<DatabaseInfo> Catalog::PlanUpdateDatabaseLocked(std::string_view name,
                                                                std::string_view description) const {
  RETURN_IF_ERROR(ValidateNewResourceName("database", name));
  RETURN_IF_ERROR(ValidateDescription(description));
  auto it = databases_.find(name);
  if (it == databases_.end()) return DatabaseNotFound(name);
  DatabaseInfo updated = it->second;
  if (updated.description == description) return updated;
  updated.description = description;
  updated.last_updated_time_nanos = clock_->NowNanos();
  return updated;
}

absl::StatusOr<DatabaseInfo> Catalog::UpdateDatabase(std::string_view name,
                                                     std::string_view description) {
  absl::MutexLock lock(&mu_);
  ASSIGN_OR_RETURN(DatabaseInfo updated, PlanUpdateDatabaseLocked(name, description));
  if (updated.last_updated_time_nanos == databases_.find(name)->second.last_updated_time_nanos) {
    return WithCountLocked(updated);  // unchanged
  }
  return SaveDatabaseLocked(std::move(updated));
}

absl::Status Catalog::PlanDeleteDatabaseLocked(std::string_view name) const {
  RETURN_IF_ERROR(ValidateResourceName("database", name));
  if (!databases_.contains(name)) return DatabaseNotFound(name);
  if (int64_t count = TableCountLocked(name); count > 0) {
    return absl::FailedPreconditionError(
        StrCat("database \"", name, "\" still has ", count, count == 1 ? " table" : " tables",
               "; delete its tables first (DROP TABLE, strata table delete)"));
  }
  return absl::OkStatus();
}

absl::Status Catalog::RemoveDatabaseLocked(std::string_view name) {
  auto it = databases_.find(name);
  if (it == databases_.end()) return absl::OkStatus();
  RETURN_IF_ERROR(FromRocks(store_->db()->Delete(store_->sync_write_options(),
                                                 store_->family(Store::kCatalog),
                                                 keys::Database(name)),
                            "deleting the database"));
  databases_.erase(it);
  return absl::OkStatus();
}

absl::Status Catalog::DeleteDatabase(std::string_view name) {
  absl::MutexLock lock(&mu_);
  RETURN_IF_ERROR(PlanDeleteDatabaseLocked(name));
  return RemoveDatabaseLocked(name);
}

absl::StatusOr<TableInfo> Catalog::PlanCreateTableLocked(const TableSpec& spec) const {
  RETURN_IF_ERROR(ValidateResourceName("database", spec.database_name));
  RETURN_IF_ERROR(ValidateNewResourceName("table", spec.table_name));
  RETURN_IF_ERROR(ValidateTableSettings(spec.retention, spec.partition_key));
  if (!databases_.contains(spec.database_name)) return DatabaseNotFound(spec.database_name);
  if (tables_.contains(TableKey(spec.database_name, spec.table_name))) {
    return absl::AlreadyExistsError(StrCat("table \"", spec.table_name,
                                                 "\" already exists in database \"",
                                                 spec.database_name, "\""));
  }
  TableInfo table;
  table.database_name = spec.database_name;
  table.name = spec.table_name;
  table.retention = spec.retention;
  table.enable_magnetic_store_writes = spec.enable_magnetic_store_writes;
  table.partition_key = spec.partition_key;
  table.creation_time_nanos = table.last_updated_time_nanos = clock_->NowNanos();
  return table;
}

absl::StatusOr<TableInfo> Catalog::SaveTableLocked(TableInfo table) {
  TableKey key(table.database_name, table.name);
  auto existing = tables_.find(key);
  const bool is_new = existing == tables_.end();
  table.id = is_new ? next_table_id_ : existing->second->id;
  rocksdb::WriteBatch batch;
  auto* family = store_->family(Store::kCatalog);
  batch.Put(family, keys::Table(table.database_name, table.name), EncodeTable(table));
  if (is_new) PutCounter(&batch, family, kTableIdCounter, table.id + 1);
  RETURN_IF_ERROR(FromRocks(store_->db()->Write(store_->sync_write_options(), &batch),
                            "saving the table"));
  auto saved = std::make_shared<const TableInfo>(table);
  if (is_new) {
    ++next_table_id_;
    tables_.emplace(std::move(key), std::move(saved));
  } else {
    existing->second = std::move(saved);
  }
  return table;
}

absl::StatusOr<TableInfo> Catalog::CreateTable(const TableSpec& spec) {
  absl::MutexLock lock(&mu_);
  ASSIGN_OR_RETURN(TableInfo table, PlanCreateTableLocked(spec));
  return SaveTableLocked(std::move(table));
}

absl::StatusOr<std::shared_ptr<const TableInfo>> Catalog::FindTable(std::string_view database,
                                                                    std::string_view table) const {
  absl::ReaderMutexLock lock(&mu_);
  auto it = tables_.find(TableKey(std::string(database), std::string(table)));
  if (it != tables_.end()) return it->second;
  if (!databases_.contains(database)) return DatabaseNotFound(database);
  return TableNotFound(database, table);
}

absl::StatusOr<TableInfo> Catalog::DescribeTable(std::string_view database,
                                                 std::string_view table) const {
  RETURN_IF_ERROR(ValidateResourceName("database", database));
  RETURN_IF_ERROR(ValidateResourceName("table", table));
  ASSIGN_OR_RETURN(auto info, FindTable(database, table));
  return *info;
}

absl::StatusOr<Page<TableInfo>> Catalog::ListTables(std::string_view database, int max_results,
                                                    std::string_view next_token) const {
  if (!database.empty()) RETURN_IF_ERROR(ValidateResourceName("database", database));
  ASSIGN_OR_RETURN(int limit, PageSize(max_results));
  ASSIGN_OR_RETURN(std::string after, DecodePageToken(next_token));
  absl::ReaderMutexLock lock(&mu_);
  if (!database.empty() && !databases_.contains(database)) return DatabaseNotFound(database);

  auto it = tables_.begin();
  if (!next_token.empty()) {
    size_t split = after.find('\0');
    if (split == std::string::npos) return BadTokenError();
    it = tables_.upper_bound(TableKey(after.substr(0, split), after.substr(split + 1)));
  } else if (!database.empty()) {
    it = tables_.lower_bound(TableKey(std::string(database), ""));
  }
  auto in_scope = [&] {
    return it != tables_.end() && (database.empty() || it->first.first == database);
  };
  Page<TableInfo> page;
  for (; in_scope() && static_cast<int>(page.items.size()) < limit; ++it) {
    page.items.push_back(*it->second);
  }
  if (in_scope()) {
    const TableInfo& last = page.items.back();
    page.next_token =
        EncodePageToken(StrCat(last.database_name, std::string_view("\0", 1), last.name));
  }
  return page;
}

absl::StatusOr<TableInfo> Catalog::PlanUpdateTableLocked(std::string_view database,
                                                          std::string_view table,
                                                          const TableUpdate& update) const {
  RETURN_IF_ERROR(ValidateResourceName("database", database));
  RETURN_IF_ERROR(ValidateResourceName("table", table));
  auto it = tables_.find(TableKey(std::string(database), std::string(table)));
  if (it == tables_.end()) {
    if (!databases_.contains(database)) return DatabaseNotFound(database);
    return TableNotFound(database, table);
  }
  TableInfo updated = *it->second;
  int64_t now = clock_->NowNanos();
  if (update.partition_key) {
    const PartitionKey& want = *update.partition_key;
    if (want.type != updated.partition_key.type || want.name != updated.partition_key.name) {
      return absl::InvalidArgumentError(
          "the partition key's type and name are fixed when the table is created; only its "
          "enforcement_in_record can change");
    }
    updated.partition_key.enforcement = want.enforcement;
  }
  if (update.retention) {
    RETURN_IF_ERROR(ValidateTableSettings(*update.retention, updated.partition_key));
    // Forward only: what already left a window stays out of it.
    if (update.retention->MemoryNanos() > updated.retention.MemoryNanos()) {
      updated.memory_store_floor_nanos = updated.MemoryStoreStartNanos(now);
    }
    if (update.retention->TotalNanos() > updated.retention.TotalNanos()) {
      updated.retention_floor_nanos = updated.RetentionStartNanos(now);
    }
    updated.retention = *update.retention;
  }
  if (update.enable_magnetic_store_writes) {
    updated.enable_magnetic_store_writes = *update.enable_magnetic_store_writes;
  }
  updated.last_updated_time_nanos = now;
  return updated;
}

absl::StatusOr<TableInfo> Catalog::UpdateTable(std::string_view database, std::string_view table,
                                               const TableUpdate& update) {
  absl::MutexLock lock(&mu_);
  ASSIGN_OR_RETURN(TableInfo updated, PlanUpdateTableLocked(database, table, update));
  return SaveTableLocked(std::move(updated));
}

absl::Status Catalog::PlanDeleteTableLocked(std::string_view database,
                                            std::string_view table) const {
  RETURN_IF_ERROR(ValidateResourceName("database", database));
  RETURN_IF_ERROR(ValidateResourceName("table", table));
  if (tables_.contains(TableKey(std::string(database), std::string(table)))) {
    return absl::OkStatus();
  }
  if (!databases_.contains(database)) return DatabaseNotFound(database);
  return TableNotFound(database, table);
}

absl::Status Catalog::RemoveTableLocked(std::string_view database, std::string_view table) {
  auto it = tables_.find(TableKey(std::string(database), std::string(table)));
  if (it == tables_.end()) return absl::OkStatus();
  const uint32_t id = it->second->id;
  rocksdb::WriteBatch batch;
  batch.Delete(store_->family(Store::kCatalog), keys::Table(database, table));
  AddTableDataDeletion(*store_, id, &batch);
  RETURN_IF_ERROR(CommitTableDataDeletion(*store_, *head_, id, &batch));
  tables_.erase(it);
  return absl::OkStatus();
}

absl::Status Catalog::DeleteTable(std::string_view database, std::string_view table) {
  absl::MutexLock lock(&mu_);
  RETURN_IF_ERROR(PlanDeleteTableLocked(database, table));
  return RemoveTableLocked(database, table);
}

absl::StatusOr<DatabaseInfo> Catalog::PlanCreateDatabase(std::string_view name,
                                                         std::string_view description) const {
  absl::ReaderMutexLock lock(&mu_);
  return PlanCreateDatabaseLocked(name, description);
}

absl::StatusOr<DatabaseInfo> Catalog::PlanUpdateDatabase(std::string_view name,
                                                         std::string_view description) const {
  absl::ReaderMutexLock lock(&mu_);
  return PlanUpdateDatabaseLocked(name, description);
}

absl::Status Catalog::PlanDeleteDatabase(std::string_view name) const {
  absl::ReaderMutexLock lock(&mu_);
  return PlanDeleteDatabaseLocked(name);
}

absl::StatusOr<TableInfo> Catalog::PlanCreateTable(const TableSpec& spec) const {
  absl::ReaderMutexLock lock(&mu_);
  return PlanCreateTableLocked(spec);
}

absl::StatusOr<TableInfo> Catalog::PlanUpdateTable(std::string_view database,
                                                   std::string_view table,
                                                   const TableUpdate& update) const {
  absl::ReaderMutexLock lock(&mu_);
  return PlanUpdateTableLocked(database, table, update);
}

absl::Status Catalog::PlanDeleteTable(std::string_view database, std::string_view table) const {
  absl::ReaderMutexLock lock(&mu_);
  return PlanDeleteTableLocked(database, table);
}

absl::StatusOr<DatabaseInfo> Catalog::InstallDatabase(const DatabaseInfo& db) {
  absl::MutexLock lock(&mu_);
  return SaveDatabaseLocked(db);
}

absl::StatusOr<TableInfo> Catalog::InstallTable(const TableInfo& table) {
  absl::MutexLock lock(&mu_);
  return SaveTableLocked(table);
}

absl::Status Catalog::RemoveDatabase(std::string_view name) {
  absl::MutexLock lock(&mu_);
  return RemoveDatabaseLocked(name);
}

absl::Status Catalog::RemoveTable(std::string_view database, std::string_view table) {
  absl::MutexLock lock(&mu_);
  return RemoveTableLocked(database, table);
}

absl::StatusOr<int> Catalog::SweepDroppedTables() {
  // Ids are read before the catalog: a table's data is written only once
  // it is in tables_, so an id stored but not in tables_ is a dropped one's.
  const std::vector<uint32_t> stored = StoredTableIds(*store_, *head_);
  std::vector<uint32_t> dropped;
  {
    absl::ReaderMutexLock lock(&mu_);
    absl::flat_hash_set<uint32_t> live;
    for (const auto& [key, table] : tables_) live.insert(table->id);
    for (uint32_t id : stored) {
      if (id < next_table_id_ && !live.contains(id)) dropped.push_back(id);
    }
  }
  for (uint32_t id : dropped) {
    rocksdb::WriteBatch batch;
    AddTableDataDeletion(*store_, id, &batch);
    RETURN_IF_ERROR(CommitTableDataDeletion(*store_, *head_, id, &batch));
  }
  return static_cast<int>(dropped.size());
}

std::vector<std::shared_ptr<const TableInfo>> Catalog::AllTables() const {
  absl::ReaderMutexLock lock(&mu_);
  std::vector<std::shared_ptr<const TableInfo>> tables;
  tables.reserve(tables_.size());
  for (const auto& [key, table] : tables_) tables.push_back(table);
  return tables;
}

}  // namespace strata
