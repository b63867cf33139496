// ReplicatedCatalog: the cluster's databases and tables, kept in etcd (docs/cluster.md), and
// this node's Catalog as a copy of them. A DDL call through any node is checked against the
// node's copy (brought up to etcd's revision first, so the errors are a single node's),
// committed to etcd with a compare on the key (created only if absent, changed only if
// unchanged since read), and answered once this node's copy has applied that revision. Every
// node follows etcd's changes with a watch and installs them, so a table created through one
// node is known to all; a shard leader waits for the revision a forwarded write names.
//
// Thread-safety: every method may be called from any thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "absl/synchronization/mutex.h"
#include "cluster/etcd_client.h"
#include "cluster/schema_claims.h"
#include "storage/catalog/catalog.h"
#include "storage/catalog/catalog_changes.h"

namespace strata::cluster {

class ReplicatedCatalog final : public CatalogChanges {
 public:
  // `root` is the cluster's etcd prefix ("/strata/<name>/"). `claims` are the tables' schema
  // claims, forgotten with a dropped table. All must outlive this. `testing_delay`: each
  // change from the watch is applied this much late (a copy that lags; tests only).
  ReplicatedCatalog(EtcdClient* etcd, std::string root, std::string node_id, Catalog* local,
                    SchemaClaims* claims,
                    std::chrono::milliseconds testing_delay = std::chrono::milliseconds(0));

  // Makes the local catalog what etcd holds, then follows etcd's changes.
  absl::Status Start();
  // Waits until the local catalog holds every catalog change up to etcd revision `revision`
  // (catching up through a sync key when the watch alone does not get there soon).
  bool WaitApplied(int64_t revision, std::chrono::milliseconds wait);
  int64_t applied_revision();
  // Brings the local copy up to date with etcd: writes this node's sync key under the
  // catalog prefix and waits for the watch to bring it back (every catalog change before it
  // has then been applied; etcd's revision alone counts changes to other keys too).
  absl::Status CatchUp();

  absl::StatusOr<DatabaseInfo> CreateDatabase(std::string_view name,
                                              std::string_view description) override;
  absl::StatusOr<DatabaseInfo> UpdateDatabase(std::string_view name,
                                              std::string_view description) override;
  absl::Status DeleteDatabase(std::string_view name) override;
  absl::StatusOr<TableInfo> CreateTable(const TableSpec& spec) override;
  absl::StatusOr<TableInfo> UpdateTable(std::string_view database, std::string_view table,
                                        const TableUpdate& update) override;
  absl::Status DeleteTable(std::string_view database, std::string_view table) override;
  // CatchUp, shared: a caller is answered by the first catch-up that began after it came (one
  // that began before may have missed a change the caller was told of), and catch-ups begin at
  // most every 100 ms, so a flood of misses (writes or queries naming a table that does not
  // exist) costs etcd ten writes a second, not one each; callers in a flood wait up to 100 ms.
  bool CatchUpForRead() override;

 private:
  std::string DatabaseKey(std::string_view name) const;
  std::string TableKey(std::string_view database, std::string_view table) const;
  absl::Status AwaitRevision(int64_t revision);
  // Waits until the watch has delivered revision `revision` (or a later one).
  bool WaitForWatch(int64_t revision, std::chrono::milliseconds wait);
  // Installs one key's value (or its removal) into the local catalog.
  absl::Status Apply(const EtcdKeyValue& kv, bool deleted);
  void Applied(int64_t revision);

  EtcdClient& etcd_;
  const std::string root_;
  const std::string node_id_;
  Catalog& local_;
  SchemaClaims& claims_;
  const std::chrono::milliseconds testing_delay_;
  absl::Mutex mu_;
  int64_t applied_ ABSL_GUARDED_BY(mu_) = 0;
  absl::Mutex read_catch_up_mu_;  // held while a read catches up (CatchUpForRead)
  absl::Time read_catch_up_began_ ABSL_GUARDED_BY(read_catch_up_mu_) = absl::InfinitePast();
  bool read_catch_up_ok_ ABSL_GUARDED_BY(read_catch_up_mu_) = false;
};

}  // namespace strata::cluster
