// ClusterNode: one stratad node of a cluster (docs/cluster.md), built by stratad --cluster
// around the node's engine. It checks the cluster's settings in etcd, registers the node
// under a lease, keeps a replica of every shard (cluster/replica.h) following its log on
// NATS JetStream, campaigns for shard leadership through etcd (a lease-bound key per shard
// whose create revision is the leader's epoch), and hands the server the cluster's DDL
// (cluster/replicated_catalog.h), its write sink (cluster/shard_router.h), the internal
// service, and a read barrier for queries.
//
// Placement: fixed when the cluster is created. Without --cluster-nodes every node holds a
// replica of every shard (a cluster as many nodes as copies); with it each shard has three
// replicas on the nodes the list places it on, and a query through any node reads the shards
// it does not hold from nodes that do (cluster/shard_reads.h). Moving replicas comes with the
// second cluster issue.
//
// Thread-safety: every public method may be called from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "cluster/cluster_backups.h"
#include "cluster/cluster_options.h"
#include "cluster/etcd_client.h"
#include "cluster/jetstream.h"
#include "cluster/peer_stubs.h"
#include "cluster/placement.h"
#include "cluster/placement_controller.h"
#include "cluster/replica.h"
#include "cluster/replicated_catalog.h"
#include "cluster/replicated_scheduled_queries.h"
#include "cluster/replicated_tokens.h"
#include "cluster/schema_claims.h"
#include "cluster/shard_reads.h"
#include "cluster/shard_router.h"
#include "cluster/shard_service.h"
#include "storage/engine.h"

namespace grpc {
class Service;
}

namespace strata::cluster {

struct ShardStatus {
  uint32_t shard = 0;
  std::string leader;  // node id; empty when none
  int64_t epoch = 0;
  uint64_t first_sequence = 0;  // the log's start (past 1 once trimmed; 0 if unknown)
  uint64_t last_sequence = 0;   // the log's end, as NATS reports it (0 if unknown)
  struct Copy {
    std::string node;
    bool reachable = false;
    uint64_t applied = 0;
    uint64_t digest = 0;
  };
  std::vector<Copy> replicas;
  std::string placement;  // EncodePlacement: the replicas, and a move under way
};

// This node's replica of a shard, as /metrics shows it (no call to NATS or another node).
struct LocalShardStatus {
  uint32_t shard = 0;
  bool leading = false;
  int64_t epoch = 0;    // when leading
  bool healthy = true;  // false: the applier stopped (a gap, a broken chain)
  uint64_t applied = 0;
  Replica::Counts counts;
};

struct NodeStatus {
  std::string id;
  std::string address;
};

class ClusterNode final : public ShardDirectory {
 public:
  // Joins the cluster: FAILED_PRECONDITION or UNAVAILABLE with one line saying what to
  // change (etcd unreachable, another shard count, NATS without JetStream, ...).
  static absl::StatusOr<std::unique_ptr<ClusterNode>> Start(const ClusterOptions& options,
                                                            Engine* engine);
  // Once this node's gRPC port serves (the internal service on it): announces the node at
  // `advertise` (host:port) under its lease and starts campaigning for shard leadership.
  absl::Status Serve(const std::string& advertise);
  // The node is stopping: from now on it takes no vacant leadership and no role (scheduler,
  // placement controller); the shards it leads it keeps until it stops, to finish the writes
  // in flight. Without this, every node of a cluster stopped at once would take over the
  // shards of each one that left before it.
  void Drain() { draining_ = true; }
  // Gives up its leaderships and its lease (others take over at once), then stops.
  ~ClusterNode() override;

  CatalogChanges& catalog_changes() { return *catalog_; }
  ReplicatedTokens& tokens() { return *tokens_; }
  ReplicatedScheduledQueries& scheduled_queries() { return *scheduled_; }
  // True while this node is the one that runs the cluster's scheduled queries (it holds
  // "<root>scheduler" under its lease). `on_became_runner` (set before Serve) runs each time
  // this node takes that role, so it can load what the previous runner recorded.
  bool RunsScheduledQueries() const { return runs_scheduler_.load(); }
  void OnBecameScheduler(std::function<void()> on_became_runner) {
    on_became_scheduler_ = std::move(on_became_runner);
  }
  WriteSink& write_sink() { return *router_; }
  // How a query reads the shards under its read choice (QueryRunner::PrepareReads).
  ClusterShardReads& shard_reads() { return *reads_; }
  query::DeleteSink& delete_sink() { return *router_; }
  // Backups of the whole cluster and their restore (ClusterService).
  ClusterBackups& backups() { return *backups_; }
  QueuedService* internal_service() { return service_.get(); }
  const std::string& node_id() const { return options_.node_id; }

  std::vector<NodeStatus> Nodes();
  // `strata cluster add-node|remove-node|rebalance`: changes the nodes the cluster places
  // its shards on (adding and removing ids; a rebalance changes none) and returns them;
  // the placement controller moves replicas there (placement_controller.h).
  // FAILED_PRECONDITION when fewer than three nodes would be left, INVALID_ARGUMENT for an
  // id that is not one.
  absl::StatusOr<std::vector<std::string>> ChangeNodes(const std::vector<std::string>& add,
                                                       const std::vector<std::string>& remove);
  std::vector<LocalShardStatus> LocalShards();
  // Every shard, with what each node's replica applied (asked over the internal service).
  std::vector<ShardStatus> Shards();

  // ShardDirectory.
  uint32_t shard_count() const override { return shards_; }
  std::string LeaderAddress(uint32_t shard, bool* self) override;
  std::shared_ptr<Replica> LocalReplica(uint32_t shard) override;
  int64_t catalog_revision() override { return catalog_->applied_revision(); }
  bool TakesLeads() const override { return !draining_ && options_.testing_apply_delay_ms == 0; }
  bool CatchUpCatalog() override;
  const Membership& membership() const override { return *membership_; }
  std::vector<ShardHolder> Holders(uint32_t shard) override;
  // Shards whose log end NATS cannot tell are read as they are (writes are refused then).
  absl::Status CatchUpShards(const std::vector<uint32_t>& shards, const query::ReadChoice& choice,
                             std::chrono::milliseconds wait) override;
  bool WaitCatalog(int64_t revision, std::chrono::milliseconds wait) override;
  bool LeadsUnderLease(Replica& replica) override;

 private:
  struct Leader {
    std::string node;
    int64_t epoch = 0;  // the key's create revision
    // The etcd revision this record is as of (the key's last change, or its delete): the
    // watch and a campaign's own answer both record a shard's leader, and the older of the two
    // must not overwrite the newer (a campaign that read the old leader just before the watch
    // told of the new one left the node seeing the old one until the key changed again).
    int64_t revision = 0;
  };
  explicit ClusterNode(const ClusterOptions& options, Engine* engine)
      : options_(options), engine_(*engine), root_("/strata/" + options.name + "/") {}
  absl::Status CheckSettings();
  static constexpr std::chrono::seconds kLeaseMargin{1};
  // The data directory is this cluster's, or empty (then marked as this cluster's): a
  // single node's data, or another cluster's, would be silently replaced by this one's.
  absl::Status CheckDataDirectory(std::string_view cluster_id);
  absl::Status JoinLease();
  void FollowMembership(int64_t revision);
  void Campaign(uint32_t shard);
  // Takes the role key `key` under this node's lease if no node holds it; whether this
  // node holds it now. A holder whose lease ended loses the key, and its role, with it.
  bool HoldsRole(const std::string& key);
  // Holds, or waits to take, the scheduled-query runner's key.
  void CampaignForScheduler();
  // Holds, or waits to take, the placement controller's key, and runs its rounds; trims
  // the shards' logs every --cluster-log-trim-seconds meanwhile.
  void CampaignForController();
  // Trims each shard's log below what its replicas applied (log_trimmer.h), unless it was
  // already trimmed there (`trimmed_below`, by shard: this controller's last trims).
  void TrimLogs(std::vector<uint64_t>& trimmed_below);
  // What `node`'s replica of `shard` applied (asked over the internal service).
  std::optional<uint64_t> AppliedOn(const std::string& node, uint32_t shard);
  // What `node` (at `address`; this node's own answered here) reports of its replicas of
  // `shards`; nullopt when it does not answer.
  std::optional<internal::v1::ShardStateResponse> StateOf(const std::string& node,
                                                         const std::string& address,
                                                         const std::vector<uint32_t>& shards);
  std::vector<std::shared_ptr<Replica>> AllReplicas();
  // Gives up this node's leader key of `shard` (at `epoch`) so that another node may lead at
  // once: the replica steps down first, revoking the read leases it granted (read_leases.h),
  // which must end before another leader acknowledges a write. Every early release of a
  // leader key goes through here or through StepDown first (DropReplica).
  void GiveUpLead(uint32_t shard, Replica& replica, int64_t epoch);
  // A leader's revocation of its live read leases on `shard` (read_leases.h): a call to each
  // holder, all at once; returns once each answered or its lease ended.
  void RevokeReadLeases(uint32_t shard, std::vector<ReadLeaseHolder> live);
  // The node `shard` is first offered to: its placement's first replica, else its turn among
  // the members in id order.
  std::string PreferredLeader(uint32_t shard);
  bool Preferred(uint32_t shard);
  // This node leads `shard` (at `leader`) though another is its first choice: hands the lead
  // back to it if that node is a member whose replica is healthy, would lead and is nearly
  // caught up. True when it did.
  bool HandBack(uint32_t shard, Replica& replica, const Leader& leader);
  // Where `shard` is placed: its etcd key's placement, else the one the cluster was
  // created with (--cluster-nodes), else every member (this node included).
  ShardPlacement PlacementOf(uint32_t shard) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Makes this node's replica of `shard` follow its placement: starts one on a node
  // holding it, drops it (its lead; its applied state and rows a while later,
  // kKeepRowsOfDroppedReplica) on one that no longer does. Returns the replica, null when none, and
  // whether this node serves the shard (a replica, not joining).
  std::shared_ptr<Replica> FollowPlacement(uint32_t shard, bool* serves);
  absl::StatusOr<std::shared_ptr<Replica>> StartReplica(uint32_t shard);
  void DropReplica(uint32_t shard, std::shared_ptr<Replica> replica);
  // Readies the engine for a new replica of `shard` (`kept`: rows of the replica this node
  // gave up a moment ago): resumes from the rows it holds when the log goes on from their
  // state, else copies a peer's checkpoint (CopyFromPeer), else, while the log is whole
  // (a cluster starting, no peer serving), starts from nothing. Says which.
  absl::StatusOr<std::string> PrepareReplica(uint32_t shard, bool kept);
  // Forgets the shard's rows, copies a serving peer's checkpoint (checkpoint.h; a follower
  // first) and stores the state it holds.
  absl::StatusOr<std::string> CopyFromPeer(uint32_t shard);
  // Resets this node's applied state of `shard` and deletes its rows.
  absl::Status ForgetShard(uint32_t shard);
  // Records a placement key's value (Serve's listing, the watch).
  void PlacementChanged(std::string_view key, const std::string* value)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::string LeaderKey(uint32_t shard) const;
  // Records what etcd says of a shard's leader, unless what is recorded is newer.
  void RecordLeader(uint32_t shard, Leader leader) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const ClusterOptions options_;
  Engine& engine_;
  const std::string root_;
  uint32_t shards_ = 0;
  size_t shard_replicas_ = kDefaultShardReplicas;  // of each shard under a placement (the config's)
  std::unique_ptr<Membership> membership_;
  std::unique_ptr<PeerStubs> peers_;  // the internal service of the other nodes
  std::unique_ptr<EtcdClient> etcd_;
  std::unique_ptr<JetStream> log_;
  std::unique_ptr<SchemaClaims> claims_;
  std::unique_ptr<ReplicatedCatalog> catalog_;
  std::unique_ptr<ReplicatedTokens> tokens_;
  std::unique_ptr<ReplicatedScheduledQueries> scheduled_;
  // The placement the cluster was created with (--cluster-nodes); empty: every node holds
  // every shard. A shard's etcd placement key, once written, overrides it (placement_).
  std::vector<std::string> created_placement_;
  absl::Mutex replicas_mu_;
  // By shard: this node's replica, null for a shard it does not hold.
  std::vector<std::shared_ptr<Replica>> replicas_ ABSL_GUARDED_BY(replicas_mu_);
  // By shard: whether its campaigner looked for rows left by an earlier replica (its own
  // thread's alone).
  std::vector<bool> leftovers_checked_;
  // By shard: when the rows of the replica it gave up go (InfiniteFuture: none kept). Placed
  // here again before then, the replica resumes from them (its campaigner's alone).
  std::vector<absl::Time> forget_rows_at_;
  // By shard: when to try again to build a replica that could not be (its campaigner's alone).
  std::vector<absl::Time> build_again_at_;
  std::unique_ptr<ShardRouter> router_;
  std::unique_ptr<ClusterShardReads> reads_;
  std::unique_ptr<ClusterBackups> backups_;
  std::unique_ptr<ShardServiceImpl> service_;

  absl::Mutex mu_;
  int64_t lease_ ABSL_GUARDED_BY(mu_) = 0;
  std::string advertise_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::string> nodes_ ABSL_GUARDED_BY(mu_);  // id -> address
  // When a node joined or left the members last (leads are handed back only after a calm).
  absl::Time members_changed_at_ ABSL_GUARDED_BY(mu_) = absl::Now();
  std::vector<Leader> leaders_ ABSL_GUARDED_BY(mu_);
  // By shard: its etcd placement key's value, nullopt while it has none.
  std::vector<std::optional<ShardPlacement>> placement_ ABSL_GUARDED_BY(mu_);
  absl::Notification stopping_;
  std::atomic<bool> draining_{false};
  std::vector<std::thread> campaigners_;
  std::atomic<bool> runs_scheduler_{false};
  std::function<void()> on_became_scheduler_;
};

}  // namespace strata::cluster
