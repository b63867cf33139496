// ClusterShardReads: how a node that holds some shards only reads a table
// (query/base/shard_reads.h): its own shards from its engine, each other shard from a node
// holding it (its leader when that one is a member, else another replica), as fragments over
// the internal service's Scan; a node that cannot be reached before it sent a row is replaced
// by the other nodes holding its shards. The same class runs the fragments other nodes ask of
// this one.
//
// Thread-safety: every method may be called from any thread.
#pragma once

#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "cluster/peer_stubs.h"
#include "cluster/shard_router.h"
#include "query/base/shard_reads.h"
#include "query/engine.h"
#include "storage/engine.h"
#include "strata/internal/v1/shard.grpc.pb.h"

namespace strata::cluster {

class ClusterShardReads final : public query::ShardReads {
 public:
  // Both must outlive this.
  ClusterShardReads(ShardDirectory* directory, Engine* engine, std::string node_id)
      : directory_(*directory),
        engine_(engine),
        node_id_(std::move(node_id)),
        stubs_(&directory->membership()) {}

  absl::StatusOr<std::vector<query::FragmentSite>> Sites() override;
  absl::StatusOr<std::vector<query::ResultColumn>> Describe(
      const query::FragmentSite& site, const std::string& sql,
      std::chrono::steady_clock::time_point deadline) override;
  absl::Status Run(const query::FragmentSite& site, const std::string& sql,
                   std::chrono::steady_clock::time_point deadline,
                   const std::atomic<bool>* cancelled, const Push& push) override;

  // Runs a fragment here over this node's replicas of `shards` into `sink` (the caller
  // brought them up to date).
  absl::Status RunHere(const std::vector<uint32_t>& shards, const std::string& sql,
                       bool describe_only, std::chrono::steady_clock::time_point deadline,
                       const std::atomic<bool>* cancelled, query::ResultSink* sink);

 private:
  // Opens the fragment's stream at a remote site and reads its first answer (the columns).
  struct RemoteScan;
  absl::StatusOr<std::unique_ptr<RemoteScan>> Open(const query::FragmentSite& site,
                                                   const std::string& sql, bool describe_only,
                                                   std::chrono::steady_clock::time_point deadline);
  // Sites on other nodes that read `shards`, none of them on a node in `avoid`.
  absl::StatusOr<std::vector<query::FragmentSite>> RemoteSites(const std::vector<uint32_t>& shards,
                                                               const std::set<std::string>& avoid);
  // `attempt` at `site`; if its node cannot be reached (UNAVAILABLE), at the other nodes
  // holding its shards instead, and so on while some are left.
  absl::Status Reach(const query::FragmentSite& site, std::set<std::string> avoid,
                     const std::function<absl::Status(const query::FragmentSite&)>& attempt);
  // One fragment at a remote site; `*sent` turns true once a batch went to `push`.
  absl::Status RunRemote(const query::FragmentSite& site, const std::string& sql,
                         std::chrono::steady_clock::time_point deadline,
                         const std::atomic<bool>* cancelled, const Push& push, bool* sent);

  ShardDirectory& directory_;
  query::QueryEngine engine_;
  const std::string node_id_;
  PeerStubs stubs_;
};

}  // namespace strata::cluster
