// ReplicatedTokens: the cluster's API tokens, kept in etcd (docs/cluster.md), so a token
// created, revoked or re-granted through one node is honoured by every node. The tokens are
// the records server/auth stores (the secret's hash, never the secret) under
// "<root>tokens/id/<id>"; "<root>tokens/name/<name>" names the token that holds a name, so two
// nodes cannot give one name to two live tokens. Every change is a compare on the revisions
// this node last saw: a change that raced another node's is refused (ABORTED), never merged,
// so a revocation is not undone by a concurrent grant change. The last use of a token is kept
// by each node in its own catalog (publishing every use would load etcd for no decision).
//
// Thread-safety: every method may be called from any thread.
#pragma once

#include <functional>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "cluster/etcd_client.h"
#include "storage/catalog/token_store.h"

namespace strata::cluster {

class ReplicatedTokens final : public TokenRecords {
 public:
  // `root` is the cluster's etcd prefix ("/strata/<name>/"); `etcd` and `local` (this node's
  // own token store, for last uses) must outlive this.
  ReplicatedTokens(EtcdClient* etcd, std::string root, TokenStore* local);

  absl::StatusOr<std::vector<TokenRecord>> LoadAll() const override;
  absl::Status Put(const TokenRecord& token) override;
  absl::Status PutLastUse(const TokenRecord& token) override;

  // Calls `on_change` (on the etcd client's thread) for every token another node creates or
  // changes after the last LoadAll.
  void Follow(std::function<void(TokenRecord)> on_change);

  // A token from a cluster backup (cluster_backups.h): stored as Put does, then handed to
  // this node's `on_change` too, as another node's change would be.
  absl::Status Restore(const TokenRecord& token);

 private:
  std::string IdKey(std::string_view id) const;
  std::string NameKey(std::string_view name) const;
  // Records the revision a key was seen at; false if this node already saw it as new.
  bool Saw(const std::string& key, int64_t mod_revision) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  EtcdClient& etcd_;
  const std::string root_;
  TokenStore& local_;
  mutable absl::Mutex mu_;
  // Key -> the mod_revision this node last saw (its own changes included).
  mutable absl::flat_hash_map<std::string, int64_t> seen_ ABSL_GUARDED_BY(mu_);
  mutable int64_t loaded_revision_ ABSL_GUARDED_BY(mu_) = 0;
  std::function<void(TokenRecord)> on_change_ ABSL_GUARDED_BY(mu_);
};

}  // namespace strata::cluster
