// SchemaClaims: one meaning per name across a table's shards. A node's engine checks a
// table's schema rules (storage/write/schema_rules.h) over the shards it holds, which differ
// from node to node, so two writes racing through two shards' leaders with one new name in
// two types would both enter their logs and a node holding both shards would refuse the one
// it applied second while the others accept it. Before a write is forwarded, the node that
// received it claims every name the table has not seen in etcd — a measure name's kind, a
// column as a dimension or as a MULTI attribute of one type — and rejects the records that
// contradict a claim, as the engine would. Claims of a table change only together with its
// claim counter, in one transaction that compares the counter: they are serialized cluster-
// wide, the limits on measure and attribute names are exact, and every record that enters a
// log agrees with every other on every name (docs/cluster.md, "One type per name").
//
// A node keeps the claims it has read; they never change while the table exists (a dropped
// table's go with it), so a record whose names are all known costs no etcd call.
//
// Thread-safety: every method may be called from any thread.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "cluster/etcd_client.h"
#include "storage/catalog/catalog_types.h"
#include "storage/rows/write_types.h"

namespace strata::cluster {

// What a table's names mean: the claims read from etcd, or those a batch adds.
struct ClaimSet {
  struct Column {
    bool dimension = false;
    ValueType type = ValueType::kVarchar;  // a MULTI attribute's
    bool operator==(const Column&) const = default;
  };
  absl::flat_hash_map<std::string, MeasureKind> measures;
  absl::flat_hash_map<std::string, Column> columns;
  int attributes = 0;  // columns that are MULTI attributes

  bool empty() const { return measures.empty() && columns.empty(); }
};

// Checks `record` against `claimed` and the claims earlier records of its batch `added`:
// the reason it is rejected, or nullopt after adding its new names to `added`.
std::optional<std::string> AdmitRecord(const ClaimSet& claimed, const NormalizedRecord& record,
                                       ClaimSet* added);

class SchemaClaims {
 public:
  // `root` is the cluster's etcd prefix ("/strata/<name>/"). `etcd` must outlive this.
  SchemaClaims(EtcdClient* etcd, std::string root);

  // Checks `records` in order (null ones skipped) against the table's claims and claims the
  // new names of those that pass: for each record, nullopt or why it is rejected.
  // UNAVAILABLE when etcd cannot answer (nothing of the batch may be written then).
  absl::StatusOr<std::vector<std::optional<std::string>>> Check(
      const TableInfo& table, const std::vector<const NormalizedRecord*>& records);

  // Removes the claims of a table about to be dropped (before its catalog key goes, so a
  // table created again under its name cannot lose claims of its own).
  absl::Status Forget(const TableInfo& table);

 private:
  // One table's claims as this node knows them.
  struct Known {
    absl::Mutex mu;
    bool loaded ABSL_GUARDED_BY(mu) = false;
    int64_t counter_revision ABSL_GUARDED_BY(mu) = 0;  // the counter's mod_revision; 0: none
    ClaimSet claims ABSL_GUARDED_BY(mu);
  };
  // The etcd prefix of the table's claims: its creation time tells a table created again
  // under the same name apart.
  std::string Scope(const TableInfo& table) const;
  std::shared_ptr<Known> KnownOf(const TableInfo& table);
  // Reads every claim of the table.
  absl::Status Load(const std::string& scope, Known& known) ABSL_EXCLUSIVE_LOCKS_REQUIRED(known.mu);
  // Writes `added` with the counter, if the counter is still what `known` read: false if
  // another node claimed first.
  absl::StatusOr<bool> Commit(const std::string& scope, Known& known, const ClaimSet& added)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(known.mu);

  EtcdClient& etcd_;
  const std::string root_;
  absl::Mutex mu_;
  absl::flat_hash_map<std::string, std::shared_ptr<Known>> tables_ ABSL_GUARDED_BY(mu_);
};

}  // namespace strata::cluster
