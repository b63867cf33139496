// ClusterShardReads: how a cluster node reads tables for a query (query/base/shard_reads.h),
// under the query's read choice (query/base/read_choice.h): each shard at a node chosen for
// it — its leader, or a replica (this node's own first) — this node's own shards from its
// engine, the others as fragments over the internal service's Scan. A node that cannot be
// reached before it sent a row is replaced by the other nodes holding its shards. The same
// class runs the fragments other nodes ask of this one.
//
// A remote site's columns (a describe_only answer) are remembered for the queries after, so
// that a query costs one round trip to each node, not two; each fragment then carries the
// columns its plan assumed (ScanRequest.checks), which the node compares with its own before
// it reads, and a difference (a column new there) plans the query again.
//
// Thread-safety: every method may be called from any thread.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "cluster/cancel_watch.h"
#include "cluster/peer_stubs.h"
#include "cluster/shard_router.h"
#include "query/base/read_choice.h"
#include "query/base/shard_reads.h"
#include "query/engine.h"
#include "storage/engine.h"
#include "strata/internal/v1/shard.grpc.pb.h"

namespace strata::cluster {

class ClusterShardReads final {
 public:
  // Both must outlive this.
  ClusterShardReads(ShardDirectory* directory, Engine* engine, std::string node_id)
      : directory_(*directory),
        engine_(engine),
        node_id_(std::move(node_id)),
        stubs_(&directory->membership()) {}

  // One query's reads under `choice`: a site for every shard, and this node's own shards
  // brought up to the choice within `wait` (not for a `describe_only` query). No ShardReads
  // when this node reads every shard itself: the plan then reads its engine as a single node
  // does. A `small` leader read (its statement's last run scanned little) is read on this
  // node's replicas when it holds every shard, confirmed against the leaders before its
  // answer goes out (docs/cluster.md, "A small leader read").
  absl::StatusOr<query::PreparedReads> Prepare(const query::ReadChoice& choice,
                                               std::chrono::milliseconds wait, bool describe_only,
                                               bool small);

  // Runs a fragment here over this node's replicas of `shards` into `sink` (the caller
  // brought them up to date); what its scans read.
  absl::StatusOr<query::QueryStats> RunHere(const std::vector<uint32_t>& shards,
                                            const std::string& sql,
                                            const query::FragmentLists& lists, bool describe_only,
                                            std::chrono::steady_clock::time_point deadline,
                                            const std::atomic<bool>* cancelled,
                                            query::ResultSink* sink);

 private:
  class QueryReads;
  // A small leader read on this node's replicas of every shard, confirmed once the shards'
  // leaders say what they applied; nullopt when this node lacks a healthy replica of one, or
  // such a read found a replica behind in the last quarter of a second (a write load keeps
  // followers a little behind their leaders: the query would be read twice each time).
  std::optional<query::PreparedReads> PrepareLocalLeaderRead();
  // What a query's plan assumed of each remote node's columns, by node id (a node's columns
  // of a table are those of every shard it holds, so they hold for any of its sites).
  using ColumnsChecks = std::map<std::string, std::vector<internal::v1::ColumnsCheck>>;
  // A site's columns, and whether they are the site's node's own answer (which a fragment
  // there can check), not other nodes' in its place.
  struct SiteColumns {
    std::vector<query::ResultColumn> columns;
    std::optional<internal::v1::ColumnsCheck> check;
  };
  // Opens the fragment's stream at a remote site and reads its first answer (the columns).
  struct RemoteScan;
  // Its call is cancelled once `*cancelled` is set (CancelWatch), when not null.
  absl::Status OpenInto(RemoteScan* scan, const query::FragmentSite& site, const std::string& sql,
                        const query::FragmentLists& lists, bool describe_only,
                        std::chrono::steady_clock::time_point deadline,
                        const query::ReadChoice& choice, const ColumnsChecks* checks,
                        const std::atomic<bool>* cancelled,
                        const internal::v1::RelayPages* relay = nullptr);
  // Open, and when `choice` hedges and the site's node has not answered after its
  // hedge_after, at another node holding all of the site's shards too: the first to answer
  // is read (`*at` is its site), the other cancelled.
  absl::StatusOr<std::unique_ptr<RemoteScan>> OpenHedged(
      const query::FragmentSite& site, const std::string& sql, const query::FragmentLists& lists,
      bool describe_only, std::chrono::steady_clock::time_point deadline,
      const query::ReadChoice& choice, const ColumnsChecks* checks,
      const std::atomic<bool>* cancelled, query::FragmentSite* at,
      const internal::v1::RelayPages* relay = nullptr);
  absl::StatusOr<std::unique_ptr<RemoteScan>> Open(
      const query::FragmentSite& site, const std::string& sql, const query::FragmentLists& lists,
      bool describe_only, std::chrono::steady_clock::time_point deadline,
      const query::ReadChoice& choice, const ColumnsChecks* checks,
      const std::atomic<bool>* cancelled, const internal::v1::RelayPages* relay = nullptr);
  // The sites `choice` reads every shard at, this node's first (when it reads any).
  absl::StatusOr<std::vector<query::FragmentSite>> Choose(const query::ReadChoice& choice);
  // cluster/site_balance.h over this node's leads and the shards' holders, a shard weighing
  // its series here (a shard without a replica here: the average of those with one).
  void BalanceSites(std::vector<query::FragmentSite>* sites,
                    const std::function<std::vector<uint64_t>()>& series_here, double merge_share);
  // Sites that read `shards`, none of them on a node in `avoid`: this node for the shards it
  // holds, the first other holder for the rest.
  absl::StatusOr<std::vector<query::FragmentSite>> OtherSites(const std::vector<uint32_t>& shards,
                                                              const std::set<std::string>& avoid);
  // `attempt` at `site`; if its node cannot be reached (UNAVAILABLE), at the other nodes
  // holding its shards instead, and so on while some are left.
  absl::Status Reach(const query::FragmentSite& site, std::set<std::string> avoid,
                     const std::function<absl::Status(const query::FragmentSite&)>& attempt);
  // The columns `sql` answers with at `site`: for a remote site, as remembered
  // (`*remembered` turns true) unless `ask_again`, and remembered.
  absl::StatusOr<SiteColumns> Describe(const query::FragmentSite& site, const std::string& sql,
                                       std::chrono::steady_clock::time_point deadline,
                                       const query::ReadChoice& choice, bool ask_again,
                                       bool* remembered);
  // The remembered columns: each under its node, shards and statement.
  static std::string KnownColumnsKey(const query::FragmentSite& site, const std::string& sql);
  bool RemembersColumns(const query::FragmentSite& site, const std::string& sql);
  void ForgetColumnsOf(const std::string& node);
  // What the fragment's scans read is added to `*scanned`.
  absl::Status Run(const query::FragmentSite& site, const std::string& sql,
                   const query::FragmentLists& lists,
                   std::chrono::steady_clock::time_point deadline,
                   const std::atomic<bool>* cancelled, const std::function<void()>& answered,
                   const query::ShardReads::Push& push, const query::ShardReads::Relay* relay,
                   const query::ReadChoice& choice, const ColumnsChecks& checks,
                   query::QueryStats* scanned);
  // A fragment here, after bringing its shards up to `choice` (a site taking over from an
  // unreachable node's).
  absl::StatusOr<query::QueryStats> RunLocal(
      const query::FragmentSite& site, const std::string& sql, const query::FragmentLists& lists,
      bool describe_only, std::chrono::steady_clock::time_point deadline,
      const std::atomic<bool>* cancelled, const query::ReadChoice& choice, query::ResultSink* sink);
  // One fragment at a remote site; `*sent` turns true once a batch or page went to `push`.
  absl::Status RunRemote(const query::FragmentSite& site, const std::string& sql,
                         const query::FragmentLists& lists,
                         std::chrono::steady_clock::time_point deadline,
                         const std::atomic<bool>* cancelled, const std::function<void()>& answered,
                         const query::ShardReads::Push& push, const query::ShardReads::Relay* relay,
                         const query::ReadChoice& choice, const ColumnsChecks& checks, bool* sent,
                         query::QueryStats* scanned);

  ShardDirectory& directory_;
  query::QueryEngine engine_;
  const std::string node_id_;
  PeerStubs stubs_;
  CancelWatch cancel_watch_;  // the remote fragments' calls, by their queries' flags
  // Until when small leader reads fan out (steady_clock nanoseconds since its epoch): one found
  // a replica here behind its leader.
  std::atomic<int64_t> local_reads_paused_until_{0};
  absl::Mutex known_mu_;
  absl::flat_hash_map<std::string, SiteColumns> known_columns_ ABSL_GUARDED_BY(known_mu_);
};

}  // namespace strata::cluster
