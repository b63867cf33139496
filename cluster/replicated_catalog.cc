#include "cluster/replicated_catalog.h"

#include <spdlog/spdlog.h>

#include <set>
#include <thread>

#include "common/status.h"
#include "common/strings.h"
#include "storage/catalog/catalog_codec.h"

namespace strata::cluster {
namespace {

constexpr std::chrono::milliseconds kApplyWait{10000};
// Between the starts of two catch-ups for reads (CatchUpForRead).
constexpr absl::Duration kReadCatchUpSpacing = absl::Milliseconds(100);
// How long a revision is awaited from the watch alone before a sync key is put.
constexpr std::chrono::milliseconds kWatchPatience{500};

}  // namespace

ReplicatedCatalog::ReplicatedCatalog(EtcdClient* etcd, std::string root, std::string node_id,
                                     Catalog* local, SchemaClaims* claims,
                                     std::chrono::milliseconds testing_delay)
    : etcd_(*etcd),
      root_(std::move(root)),
      node_id_(std::move(node_id)),
      local_(*local),
      claims_(*claims),
      testing_delay_(testing_delay) {}

std::string ReplicatedCatalog::DatabaseKey(std::string_view name) const {
  return StrCat(root_, "catalog/db/", name);
}

std::string ReplicatedCatalog::TableKey(std::string_view database, std::string_view table) const {
  return StrCat(root_, "catalog/table/", database, "/", table);
}

absl::Status ReplicatedCatalog::Apply(const EtcdKeyValue& kv, bool deleted) {
  const std::string db_prefix = StrCat(root_, "catalog/db/");
  const std::string table_prefix = StrCat(root_, "catalog/table/");
  if (kv.key.starts_with(db_prefix)) {
    const std::string name = kv.key.substr(db_prefix.size());
    if (deleted) return local_.RemoveDatabase(name);
    ASSIGN_OR_RETURN(DatabaseInfo db, DecodeDatabase(kv.value));
    return local_.InstallDatabase(db).status();
  }
  if (kv.key.starts_with(table_prefix)) {
    const std::string path = kv.key.substr(table_prefix.size());
    const size_t slash = path.find('/');
    if (slash == std::string::npos) return absl::DataLossError(StrCat("etcd key ", kv.key));
    if (deleted) return local_.RemoveTable(path.substr(0, slash), path.substr(slash + 1));
    ASSIGN_OR_RETURN(TableInfo table, DecodeTable(kv.value));
    return local_.InstallTable(table).status();
  }
  return absl::OkStatus();
}

void ReplicatedCatalog::Applied(int64_t revision) {
  absl::MutexLock lock(&mu_);
  applied_ = std::max(applied_, revision);
}

absl::Status ReplicatedCatalog::Start() {
  int64_t revision = 0;
  ASSIGN_OR_RETURN(std::vector<EtcdKeyValue> kvs, etcd_.List(StrCat(root_, "catalog/"), &revision));
  // Databases sort before tables ("db/" < "table/"): installed first.
  std::set<std::string> databases;
  std::set<std::pair<std::string, std::string>> tables;
  const std::string db_prefix = DatabaseKey("");
  const std::string table_prefix = TableKey("", "");
  for (const EtcdKeyValue& kv : kvs) {
    RETURN_IF_ERROR(Apply(kv, false));
    if (kv.key.starts_with(db_prefix)) {
      databases.insert(kv.key.substr(db_prefix.size()));
    } else if (kv.key.starts_with(table_prefix.substr(0, table_prefix.size() - 1))) {
      const std::string path = kv.key.substr(table_prefix.size() - 1);
      const size_t slash = path.find('/');
      if (slash != std::string::npos)
        tables.insert({path.substr(0, slash), path.substr(slash + 1)});
    }
  }
  // What this node holds and etcd no longer does was dropped while it was away.
  for (const auto& table : local_.AllTables()) {
    if (!tables.contains({table->database_name, table->name})) {
      RETURN_IF_ERROR(local_.RemoveTable(table->database_name, table->name));
    }
  }
  ASSIGN_OR_RETURN(Page<DatabaseInfo> page, local_.ListDatabases(kMaxPageSize, ""));
  for (const DatabaseInfo& db : page.items) {
    if (!databases.contains(db.name)) RETURN_IF_ERROR(local_.RemoveDatabase(db.name));
  }
  Applied(revision);
  etcd_.Watch(StrCat(root_, "catalog/"), revision, [this](const EtcdEvent& event) {
    if (testing_delay_.count() > 0) std::this_thread::sleep_for(testing_delay_);
    if (absl::Status s = Apply(event.kv, event.deleted); !s.ok()) {
      spdlog::error("cluster catalog: could not apply {}: {}", event.kv.key, s.message());
    }
    Applied(event.kv.mod_revision);
  });
  return absl::OkStatus();
}

bool ReplicatedCatalog::WaitForWatch(int64_t revision, std::chrono::milliseconds wait) {
  absl::MutexLock lock(&mu_);
  auto reached = [this, revision]()
                     ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return applied_ >= revision; };
  return mu_.AwaitWithTimeout(absl::Condition(&reached), absl::FromChrono(wait));
}

bool ReplicatedCatalog::WaitApplied(int64_t revision, std::chrono::milliseconds wait) {
  if (WaitForWatch(revision, std::min(wait, kWatchPatience))) return true;
  // etcd's revision counts every key (leaders, members), and a node that started read the
  // catalog at the store's revision: a write it forwards may name a revision past every
  // catalog change this node's watch has delivered, and no catalog change may come to pass
  // it. A sync key put answers: once the watch brings it back, every change before it is here.
  return CatchUp().ok() && WaitForWatch(revision, std::chrono::milliseconds(0));
}

int64_t ReplicatedCatalog::applied_revision() {
  absl::MutexLock lock(&mu_);
  return applied_;
}

absl::Status ReplicatedCatalog::AwaitRevision(int64_t revision) {
  if (WaitForWatch(revision, kApplyWait)) return absl::OkStatus();
  return absl::UnavailableError(StrCat("this node has not received the cluster catalog's revision ",
                                       revision, " from etcd yet; retry"));
}

absl::Status ReplicatedCatalog::CatchUp() {
  ASSIGN_OR_RETURN(int64_t revision, etcd_.Put(StrCat(root_, "catalog/sync/", node_id_), ""));
  return AwaitRevision(revision);
}

bool ReplicatedCatalog::CatchUpForRead() {
  const absl::Time arrived = absl::Now();
  absl::MutexLock lock(&read_catch_up_mu_);
  if (read_catch_up_began_ > arrived) return read_catch_up_ok_;  // began after: it covers this
  // Held while waiting: the callers that queue meanwhile share the next catch-up.
  absl::SleepFor(read_catch_up_began_ + kReadCatchUpSpacing - absl::Now());
  read_catch_up_began_ = absl::Now();
  read_catch_up_ok_ = CatchUp().ok();
  return read_catch_up_ok_;
}

absl::StatusOr<DatabaseInfo> ReplicatedCatalog::CreateDatabase(std::string_view name,
                                                               std::string_view description) {
  RETURN_IF_ERROR(CatchUp());
  ASSIGN_OR_RETURN(DatabaseInfo db, local_.PlanCreateDatabase(name, description));
  bool created = false;
  ASSIGN_OR_RETURN(EtcdKeyValue kv,
                   etcd_.CreateIfAbsent(DatabaseKey(name), EncodeDatabase(db), 0, &created));
  if (!created) return absl::AlreadyExistsError(StrCat("database \"", name, "\" already exists"));
  RETURN_IF_ERROR(AwaitRevision(kv.create_revision));
  return local_.DescribeDatabase(name);
}

absl::StatusOr<DatabaseInfo> ReplicatedCatalog::UpdateDatabase(std::string_view name,
                                                               std::string_view description) {
  RETURN_IF_ERROR(CatchUp());
  ASSIGN_OR_RETURN(std::optional<EtcdKeyValue> kv, etcd_.Get(DatabaseKey(name)));
  ASSIGN_OR_RETURN(DatabaseInfo updated, local_.PlanUpdateDatabase(name, description));
  if (!kv.has_value()) return local_.DescribeDatabase(name);  // NOT_FOUND, worded as ever
  ASSIGN_OR_RETURN(bool changed, etcd_.PutIfUnchanged(DatabaseKey(name), EncodeDatabase(updated),
                                                      kv->mod_revision));
  if (!changed) {
    return absl::AbortedError(StrCat("database \"", name,
                                     "\" was changed through another "
                                     "node at the same time; retry"));
  }
  RETURN_IF_ERROR(CatchUp());
  return local_.DescribeDatabase(name);
}

absl::Status ReplicatedCatalog::DeleteDatabase(std::string_view name) {
  RETURN_IF_ERROR(CatchUp());
  RETURN_IF_ERROR(local_.PlanDeleteDatabase(name));
  ASSIGN_OR_RETURN(std::optional<EtcdKeyValue> kv, etcd_.Get(DatabaseKey(name)));
  if (!kv.has_value()) return Catalog::NoSuchDatabase(name);
  RETURN_IF_ERROR(etcd_.Delete(DatabaseKey(name), kv->create_revision));
  return CatchUp();
}

absl::StatusOr<TableInfo> ReplicatedCatalog::CreateTable(const TableSpec& spec) {
  RETURN_IF_ERROR(CatchUp());
  ASSIGN_OR_RETURN(TableInfo table, local_.PlanCreateTable(spec));
  bool created = false;
  ASSIGN_OR_RETURN(EtcdKeyValue kv,
                   etcd_.CreateIfAbsent(TableKey(spec.database_name, spec.table_name),
                                        EncodeTable(table), 0, &created));
  if (!created) {
    return absl::AlreadyExistsError(StrCat(
        "table \"", spec.table_name, "\" already exists in database \"", spec.database_name, "\""));
  }
  RETURN_IF_ERROR(AwaitRevision(kv.create_revision));
  return local_.DescribeTable(spec.database_name, spec.table_name);
}

absl::StatusOr<TableInfo> ReplicatedCatalog::UpdateTable(std::string_view database,
                                                         std::string_view table,
                                                         const TableUpdate& update) {
  RETURN_IF_ERROR(CatchUp());
  ASSIGN_OR_RETURN(TableInfo updated, local_.PlanUpdateTable(database, table, update));
  ASSIGN_OR_RETURN(std::optional<EtcdKeyValue> kv, etcd_.Get(TableKey(database, table)));
  if (!kv.has_value()) return local_.DescribeTable(database, table);
  ASSIGN_OR_RETURN(bool changed, etcd_.PutIfUnchanged(TableKey(database, table),
                                                      EncodeTable(updated), kv->mod_revision));
  if (!changed) {
    return absl::AbortedError(StrCat("table \"", database, "\".\"", table,
                                     "\" was changed through another node at the same time; "
                                     "retry"));
  }
  RETURN_IF_ERROR(CatchUp());
  return local_.DescribeTable(database, table);
}

absl::Status ReplicatedCatalog::DeleteTable(std::string_view database, std::string_view table) {
  RETURN_IF_ERROR(CatchUp());
  RETURN_IF_ERROR(local_.PlanDeleteTable(database, table));
  ASSIGN_OR_RETURN(std::optional<EtcdKeyValue> kv, etcd_.Get(TableKey(database, table)));
  if (!kv.has_value()) return local_.PlanDeleteTable(database, table);
  ASSIGN_OR_RETURN(TableInfo dropped, DecodeTable(kv->value));
  RETURN_IF_ERROR(claims_.Forget(dropped));
  RETURN_IF_ERROR(etcd_.Delete(TableKey(database, table), kv->create_revision));
  return CatchUp();
}

}  // namespace strata::cluster
