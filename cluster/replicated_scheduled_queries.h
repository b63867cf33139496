// ReplicatedScheduledQueries: the cluster's scheduled queries, kept in etcd (docs/cluster.md):
// each definition with its schedule cursor under "<root>scheduled/q/<name>" and its run
// history under "<root>scheduled/r/<name>/<sequence, 20 digits>". server/scheduler keeps them
// as it keeps them on one node; one node of the cluster runs them (ClusterNode elects it), and
// every node lists and describes them.
//
// Every change is a compare on the definition key's revision as this node last saw it: a
// change racing another node's (an Update through one node while the runner records a run) is
// refused (ABORTED) rather than merged; a run refused so is not recorded and runs again,
// which its records' versions make a no-op.
//
// Thread-safety: every method may be called from any thread.
#pragma once

#include <functional>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/synchronization/mutex.h"
#include "cluster/etcd_client.h"
#include "storage/catalog/scheduled_query_store.h"

namespace strata::cluster {

class ReplicatedScheduledQueries final : public ScheduledQueryRecords {
 public:
  // `root` is the cluster's etcd prefix ("/strata/<name>/"); `etcd` must outlive this.
  ReplicatedScheduledQueries(EtcdClient* etcd, std::string root);

  absl::StatusOr<std::vector<ScheduledQueryRecord>> LoadAll() const override;
  absl::StatusOr<std::optional<ScheduledQueryRecord>> Load(std::string_view name) const override;
  absl::Status Put(const ScheduledQueryRecord& record) override;
  absl::Status Delete(std::string_view name) override;
  absl::StatusOr<std::vector<ScheduledQueryRun>> LoadRuns(std::string_view name) const override;
  absl::Status PutRun(const ScheduledQueryRecord& record, const ScheduledQueryRun& run,
                      uint64_t keep_from) override;

  // Calls `on_change` with the scheduled query's name (on the etcd client's thread) after
  // each change another node makes to it or its runs.
  void Follow(std::function<void(std::string_view name)> on_change);

  // A scheduled query from a cluster backup (cluster_backups.h), with its run history:
  // ALREADY_EXISTS when one of its name is here. Then this node's `on_change` is called with
  // its name, as for another node's change.
  absl::Status Restore(const ScheduledQueryRecord& record,
                       const std::vector<ScheduledQueryRun>& runs);

 private:
  std::string QueryKey(std::string_view name) const;
  std::string RunPrefix(std::string_view name) const;
  std::string RunKey(std::string_view name, uint64_t sequence) const;
  // Commits `changes` guarded by the definition key of `name`; records what it saw.
  absl::Status Commit(std::string_view name, std::vector<EtcdClient::Change> changes);

  EtcdClient& etcd_;
  const std::string root_;
  mutable absl::Mutex mu_;
  // Definition key -> its mod_revision as this node last saw it (0: absent).
  mutable absl::flat_hash_map<std::string, int64_t> seen_ ABSL_GUARDED_BY(mu_);
  // Revisions of this node's own transactions whose watch events have not come back yet.
  absl::flat_hash_set<int64_t> own_ ABSL_GUARDED_BY(mu_);
  mutable int64_t loaded_revision_ ABSL_GUARDED_BY(mu_) = 0;
  // The last revision and name `on_change` was called for (one transaction, several keys).
  int64_t notified_ ABSL_GUARDED_BY(mu_) = 0;
  std::string notified_name_ ABSL_GUARDED_BY(mu_);
  std::function<void(std::string_view name)> on_change_ ABSL_GUARDED_BY(mu_);
};

}  // namespace strata::cluster
