#include "cluster/cluster_node.h"

#include <grpcpp/grpcpp.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <future>
#include <random>
#include <set>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "cluster/checkpoint.h"
#include "cluster/leader_applied.h"
#include "cluster/log_trimmer.h"
#include "cluster/shard_map.h"
#include "cluster/shard_service.h"
#include "common/status.h"
#include "common/strings.h"
#include "storage/kv/keys.h"

namespace strata::cluster {
namespace {

using std::chrono::milliseconds;

constexpr milliseconds kConnectTimeout{3000};
// How long a node waits before it campaigns for a leaderless shard that another node
// prefers (spreads leaders over the nodes, and leaves the preferred node the first try).
constexpr absl::Duration kDeferToPreferred = absl::Milliseconds(1500);
// A node leading a shard another node is the first choice for hands it back once it has led
// it this long (a first choice that comes and goes does not move the lead each time), looking
// this often, if the first choice's replica is at most kHandBackLag entries behind.
constexpr absl::Duration kHandBackAfter = absl::Seconds(10);
constexpr absl::Duration kHandBackLookEvery = absl::Seconds(5);
constexpr uint64_t kHandBackLag = 100;
// How long a node keeps the rows of a replica it gave up, for queries that began reading them.
constexpr absl::Duration kKeepRowsOfDroppedReplica = absl::Seconds(60);
// A replica that could not be built (no peer could send a checkpoint) is tried again after.
constexpr absl::Duration kBuildAgainAfter = absl::Seconds(5);
// The most nodes a cluster's list holds (one etcd value, well under its 1.5 MB limit).
constexpr size_t kMaxClusterNodes = 1024;

bool ValidName(std::string_view name) {
  return !name.empty() && name.size() <= 64 && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
  });
}

std::string TextAfter(std::string_view text, std::string_view key) {
  while (!text.empty()) {
    const size_t end = std::min(text.find(';'), text.size());
    std::string_view part = text.substr(0, end);
    text.remove_prefix(std::min(end + 1, text.size()));
    if (part.starts_with(key)) return std::string(part.substr(key.size()));
  }
  return "";
}

std::optional<int> IntAfter(std::string_view text, std::string_view key) {
  const std::string value = TextAfter(text, key);
  int out = 0;
  if (value.empty() ||
      std::from_chars(value.data(), value.data() + value.size(), out).ec != std::errc()) {
    return std::nullopt;
  }
  return out;
}

// Each shard's stream, created if missing. NATS servers just started elect their JetStream
// leader first, and nodes starting together race to create the streams: an unanswered
// request is made again for a while. Several at once, each waiting a second at most: a
// replicated stream's creation is a round of the JetStream meta group (~0.2 s on loopback),
// one after another 16 shards took 3.4 s of a node's start, and a request NATS leaves
// unanswered (a stream another node is creating) cost the whole connect timeout (3 s).
absl::Status EnsureStreams(JetStream& log, const std::string& cluster, uint32_t shards,
                           int replicas) {
  constexpr uint32_t kAtOnce = 16;
  static constexpr milliseconds kAskWait{1000};  // static: read, not captured, by the workers
  const absl::Time deadline = absl::Now() + absl::Seconds(30);
  std::atomic<uint32_t> next{0};
  std::vector<absl::Status> failed(std::min(kAtOnce, shards));
  std::vector<std::thread> workers;
  for (absl::Status& failure : failed) {
    workers.emplace_back([&log, &cluster, &next, &failure, shards, replicas, deadline] {
      for (uint32_t shard; (shard = next.fetch_add(1)) < shards;) {
        while (true) {
          absl::Status made = log.EnsureStream(StreamName(cluster, shard),
                                               SubjectName(cluster, shard), replicas, kAskWait);
          if (made.ok()) break;
          if (!absl::IsUnavailable(made) || absl::Now() > deadline) {
            failure = made;
            next = shards;  // the others stop after the stream at hand
            return;
          }
          std::this_thread::sleep_for(milliseconds(100));
        }
      }
    });
  }
  for (std::thread& worker : workers) worker.join();
  for (const absl::Status& failure : failed) RETURN_IF_ERROR(failure);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<ClusterNode>> ClusterNode::Start(const ClusterOptions& options,
                                                                Engine* engine) {
  if (!ValidName(options.name)) {
    return absl::InvalidArgumentError(
        StrCat("--cluster-name \"", options.name, "\" must be 1..64 of [A-Za-z0-9_-]"));
  }
  if (!ValidName(options.node_id)) {
    return absl::InvalidArgumentError(StrCat("--node-id \"", options.node_id,
                                             "\" must be 1..64 of [A-Za-z0-9_-] (give every node "
                                             "its own)"));
  }
  if (options.etcd.empty()) return absl::InvalidArgumentError("--etcd names no etcd endpoint");
  if (options.nats.empty()) return absl::InvalidArgumentError("--nats names no NATS server");
  if (options.shards != 0 && !ValidShardCount(options.shards)) {
    return absl::InvalidArgumentError(
        StrCat("--cluster-shards ", options.shards, " must be a power of two in 1..1024"));
  }
  if (options.shard_replicas < 0 || options.shard_replicas > static_cast<int>(kMaxShardReplicas)) {
    return absl::InvalidArgumentError(StrCat("--cluster-shard-replicas ", options.shard_replicas,
                                             " must be 1..", kMaxShardReplicas));
  }
  if (!options.placement.empty() && options.shard_replicas > 0 &&
      options.placement.size() < static_cast<size_t>(options.shard_replicas)) {
    return absl::InvalidArgumentError(
        StrCat("--cluster-nodes names ", options.placement.size(), " nodes, fewer than the ",
               options.shard_replicas, " replicas --cluster-shard-replicas asks of each shard"));
  }
  if (options.dead_node_grace_seconds < 1) {
    return absl::InvalidArgumentError(StrCat(
        "--dead-node-grace-seconds ", options.dead_node_grace_seconds, " must be at least 1"));
  }
  for (size_t i = 0; i < options.placement.size(); ++i) {
    const std::string& id = options.placement[i];
    if (!ValidName(id) || std::find(options.placement.begin(), options.placement.begin() + i, id) !=
                              options.placement.begin() + i) {
      return absl::InvalidArgumentError(StrCat("--cluster-nodes names \"", id,
                                               "\", not a node id or twice; give each node's "
                                               "--node-id once, comma-separated"));
    }
  }
  auto node = std::unique_ptr<ClusterNode>(new ClusterNode(options, engine));
  ASSIGN_OR_RETURN(node->membership_, Membership::Create(options.member_tls, options.secret));
  node->peers_ = std::make_unique<PeerStubs>(node->membership_.get());
  ASSIGN_OR_RETURN(node->etcd_, EtcdClient::Connect(options.etcd, kConnectTimeout, options.etcd_tls,
                                                    options.etcd_login));
  RETURN_IF_ERROR(node->CheckSettings());
  ASSIGN_OR_RETURN(node->log_,
                   JetStream::Connect(options.nats, StrCat("stratad-", options.node_id),
                                      kConnectTimeout, options.nats_tls, options.nats_login));
  RETURN_IF_ERROR(EnsureStreams(*node->log_, options.name, node->shards_, options.log_replicas));
  node->claims_ = std::make_unique<SchemaClaims>(node->etcd_.get(), node->root_);
  node->catalog_ = std::make_unique<ReplicatedCatalog>(
      node->etcd_.get(), node->root_, options.node_id, &engine->catalog(), node->claims_.get(),
      milliseconds(options.testing_catalog_delay_ms));
  RETURN_IF_ERROR(node->catalog_->Start());
  node->tokens_ =
      std::make_unique<ReplicatedTokens>(node->etcd_.get(), node->root_, &engine->tokens());
  node->scheduled_ = std::make_unique<ReplicatedScheduledQueries>(node->etcd_.get(), node->root_);
  {
    absl::MutexLock lock(&node->mu_);
    node->leaders_.resize(node->shards_);
    node->placement_.resize(node->shards_);
  }
  {
    // The shards placed since the cluster was created; Serve reads them again under its
    // watch, and each shard's campaigner follows later changes.
    ASSIGN_OR_RETURN(std::vector<EtcdKeyValue> placed,
                     node->etcd_->List(PlacementController::ShardKeyPrefix(node->root_), nullptr));
    absl::MutexLock lock(&node->mu_);
    for (const EtcdKeyValue& kv : placed) node->PlacementChanged(kv.key, &kv.value);
  }
  {
    absl::MutexLock lock(&node->replicas_mu_);
    node->replicas_.resize(node->shards_);
    node->leftovers_checked_.assign(node->shards_, false);
    node->forget_rows_at_.assign(node->shards_, absl::InfiniteFuture());
    node->build_again_at_.assign(node->shards_, absl::InfinitePast());
  }
  for (uint32_t shard = 0; shard < node->shards_; ++shard) {
    bool holds = false;
    {
      absl::MutexLock lock(&node->mu_);
      holds = node->PlacementOf(shard).Holds(options.node_id);
    }
    if (!holds) continue;  // another node's shard: read through it
    ASSIGN_OR_RETURN(std::shared_ptr<Replica> replica, node->StartReplica(shard));
    absl::MutexLock lock(&node->replicas_mu_);
    node->replicas_[shard] = std::move(replica);
  }
  node->router_ = std::make_unique<ShardRouter>(node.get(), &engine->catalog(), node->claims_.get(),
                                                64, options.peer_page_bytes());
  node->reads_ = std::make_unique<ClusterShardReads>(node.get(), engine, options.node_id);
  JetStream* log = node->log_.get();
  const std::string cluster = options.name;
  node->backups_ = std::make_unique<ClusterBackups>(
      ClusterBackups::Parts{.directory = node.get(),
                            .engine = engine,
                            .ddl = node->catalog_.get(),
                            .sink = node->router_.get(),
                            .tokens = node->tokens_.get(),
                            .scheduled = node->scheduled_.get()},
      options.name, [log, cluster](uint32_t shard) {
        return log->LastSequence(StreamName(cluster, shard), std::chrono::seconds(5));
      });
  node->service_ = std::make_unique<ShardServiceImpl>(
      node.get(), node->reads_.get(), engine, options.node_id, options.peer_page_bytes(),
      options.page_encoders, std::chrono::milliseconds(options.testing_query_delay_ms));
  return node;
}

absl::Status ClusterNode::Serve(const std::string& advertise) {
  {
    absl::MutexLock lock(&mu_);
    advertise_ = advertise;
  }
  RETURN_IF_ERROR(JoinLease());
  int64_t revision = 0;
  ASSIGN_OR_RETURN(std::vector<EtcdKeyValue> members, etcd_->List(root_ + "nodes/", &revision));
  ASSIGN_OR_RETURN(std::vector<EtcdKeyValue> leaders, etcd_->List(root_ + "leaders/", nullptr));
  // Listed after the watch's revision: a change in between is seen twice, never missed.
  ASSIGN_OR_RETURN(std::vector<EtcdKeyValue> placed,
                   etcd_->List(PlacementController::ShardKeyPrefix(root_), nullptr));
  {
    absl::MutexLock lock(&mu_);
    for (const EtcdKeyValue& kv : placed) PlacementChanged(kv.key, &kv.value);
    for (const EtcdKeyValue& kv : members) nodes_[kv.key.substr(root_.size() + 6)] = kv.value;
    for (const EtcdKeyValue& kv : leaders) {
      uint32_t shard = 0;
      const std::string id = kv.key.substr(root_.size() + 8);
      if (std::from_chars(id.data(), id.data() + id.size(), shard).ec == std::errc() &&
          shard < shards_) {
        leaders_[shard] = {kv.value, kv.create_revision, kv.mod_revision};
      }
    }
  }
  FollowMembership(revision);
  for (uint32_t shard = 0; shard < shards_; ++shard) {
    campaigners_.emplace_back([this, shard] { Campaign(shard); });
  }
  campaigners_.emplace_back([this] { CampaignForScheduler(); });
  campaigners_.emplace_back([this] { CampaignForController(); });
  spdlog::info("cluster {}: node {} serves at {} ({} shards, logs on NATS with {} copies)",
               options_.name, options_.node_id, advertise, shards_, options_.log_replicas);
  return absl::OkStatus();
}

ClusterNode::~ClusterNode() {
  stopping_.Notify();
  for (std::thread& t : campaigners_) t.join();
  const std::vector<std::shared_ptr<Replica>> replicas_stopping = AllReplicas();
  for (const std::shared_ptr<Replica>& replica : replicas_stopping) {
    replica->BeginStop();
    replica->StepDown();
  }
  // An applier may be waiting for the catalog, which asks etcd: every replica's threads end
  // before the client goes (a query may hold a replica past this node, not its threads).
  // They were told at once above, so this waits for the slowest of them.
  for (const std::shared_ptr<Replica>& replica : replicas_stopping) replica->AwaitStopped();
  int64_t lease = 0;
  {
    absl::MutexLock lock(&mu_);
    lease = lease_;
  }
  // Revoking the lease deletes this node's key and its leader keys: others take over now
  // rather than when the lease would have expired.
  if (lease != 0 && etcd_ != nullptr) etcd_->RevokeLease(lease).IgnoreError();
  // The client's threads (watches, keep-alive) call into the catalog, the replicas and this
  // node: they stop first.
  etcd_.reset();
  router_.reset();
  // Destroyed outside the lock: a replica's last callbacks may look replicas up.
  std::vector<std::shared_ptr<Replica>> replicas;
  {
    absl::MutexLock lock(&replicas_mu_);
    replicas.swap(replicas_);
  }
  replicas.clear();
}

absl::Status ClusterNode::CheckSettings() {
  const int wanted = options_.shards != 0 ? options_.shards : kDefaultShards;
  bool created = false;
  std::random_device random;
  const std::string new_id =
      absl::StrCat(absl::Hex(random(), absl::kZeroPad8), absl::Hex(random(), absl::kZeroPad8));
  ASSIGN_OR_RETURN(
      EtcdKeyValue config,
      etcd_->CreateIfAbsent(
          root_ + "config",
          StrCat("shards=", wanted, ";log_replicas=", options_.log_replicas, ";replicas=",
                 options_.shard_replicas != 0 ? options_.shard_replicas : kDefaultShardReplicas,
                 ";id=", new_id, options_.placement.empty() ? "" : ";nodes=",
                 absl::StrJoin(options_.placement, ",")),
          0, &created));
  const std::optional<int> shards = IntAfter(config.value, "shards=");
  if (!shards.has_value() || !ValidShardCount(*shards)) {
    return absl::FailedPreconditionError(
        StrCat("etcd's ", root_, "config holds \"", config.value, "\", not a cluster's settings"));
  }
  if (options_.shards != 0 && options_.shards != *shards) {
    return absl::FailedPreconditionError(StrCat("cluster \"", options_.name, "\" has ", *shards,
                                                " shards, and this node was started "
                                                "with --cluster-shards=",
                                                options_.shards,
                                                "; drop the flag (a node takes the "
                                                "cluster's count) or name another --cluster-name"));
  }
  shards_ = static_cast<uint32_t>(*shards);
  // A cluster created before the count was a setting has three.
  const int replicas = IntAfter(config.value, "replicas=").value_or(kDefaultShardReplicas);
  if (replicas < 1 || replicas > static_cast<int>(kMaxShardReplicas)) {
    return absl::FailedPreconditionError(
        StrCat("etcd's ", root_, "config holds \"", config.value, "\", not a cluster's settings"));
  }
  if (options_.shard_replicas != 0 && options_.shard_replicas != replicas) {
    return absl::FailedPreconditionError(
        StrCat("cluster \"", options_.name, "\" keeps ", replicas,
               " replicas of each shard, and this node was started with --cluster-shard-replicas=",
               options_.shard_replicas, "; drop the flag (a node takes the cluster's count)"));
  }
  shard_replicas_ = static_cast<size_t>(replicas);
  const std::string nodes = TextAfter(config.value, "nodes=");
  if (!nodes.empty()) created_placement_ = absl::StrSplit(nodes, ',');
  if (!options_.placement.empty() && options_.placement != created_placement_) {
    return absl::FailedPreconditionError(StrCat(
        "cluster \"", options_.name, "\" places its shards ",
        created_placement_.empty() ? "on every node" : StrCat("on the nodes ", nodes),
        ", and this node was started with --cluster-nodes=", absl::StrJoin(options_.placement, ","),
        "; drop the flag (a node takes the cluster's placement) or give the same list"));
  }
  if (created) spdlog::info("cluster {}: created with {} shards", options_.name, shards_);
  RETURN_IF_ERROR(CheckDataDirectory(TextAfter(config.value, "id=")));
  // A node id in use by a live node: two processes would apply the same replicas' state
  // into different data directories under one name. A node restarted after a crash finds
  // its old key until its lease expires: wait that long.
  const std::string key = root_ + "nodes/" + options_.node_id;
  for (int waited = 0;; waited += 250) {
    ASSIGN_OR_RETURN(std::optional<EtcdKeyValue> existing, etcd_->Get(key));
    if (!existing.has_value()) return absl::OkStatus();
    if (waited > (options_.lease_seconds + 2) * 1000) {
      return absl::FailedPreconditionError(
          StrCat("node id \"", options_.node_id, "\" is in use by a running node (at ",
                 existing->value, "); give this node another --node-id"));
    }
    std::this_thread::sleep_for(milliseconds(250));
  }
}

absl::Status ClusterNode::CheckDataDirectory(std::string_view cluster_id) {
  ASSIGN_OR_RETURN(std::optional<std::string> member,
                   engine_.ReadCatalogEntry(keys::ClusterMembership()));
  if (member.has_value()) {
    if (*member == cluster_id) return absl::OkStatus();
    return absl::FailedPreconditionError(
        StrCat("the data directory belongs to another cluster (id ", *member,
               "), not to cluster \"", options_.name, "\" (id ", cluster_id,
               ") at these etcd endpoints; start this node with "
               "an empty --data-dir, or point it at its own cluster"));
  }
  ASSIGN_OR_RETURN(Page<DatabaseInfo> databases, engine_.catalog().ListDatabases(1, ""));
  if (!databases.items.empty()) {
    // The cluster's catalog would replace what it holds (tables dropped).
    return absl::FailedPreconditionError(
        "the data directory holds a single node's databases; a cluster node starts from an "
        "empty --data-dir (copy the data in through a client, e.g. strata query and import)");
  }
  std::promise<absl::Status> saved;
  WriteOptions membership{.must_apply = true};
  membership.catalog_puts.emplace_back(keys::ClusterMembership(), std::string(cluster_id));
  engine_.writer().CommitAsync(std::move(membership), [&saved](absl::StatusOr<WriteResult> r) {
    saved.set_value(r.status());
  });
  return saved.get_future().get();
}

absl::Status ClusterNode::JoinLease() {
  ASSIGN_OR_RETURN(int64_t lease, etcd_->GrantLease(options_.lease_seconds, [this] {
    spdlog::warn("cluster: node {} lost its etcd lease; giving up its shards", options_.node_id);
    {
      absl::MutexLock lock(&mu_);
      lease_ = 0;
    }
    for (const std::shared_ptr<Replica>& replica : AllReplicas()) replica->StepDown();
  }));
  absl::MutexLock lock(&mu_);
  RETURN_IF_ERROR(etcd_->Put(root_ + "nodes/" + options_.node_id, advertise_, lease).status());
  lease_ = lease;
  return absl::OkStatus();
}

void ClusterNode::FollowMembership(int64_t revision) {
  const std::string nodes = root_ + "nodes/";
  const std::string leaders = root_ + "leaders/";
  const std::string placed = PlacementController::ShardKeyPrefix(root_);
  etcd_->Watch(root_, revision, [this, nodes, leaders, placed](const EtcdEvent& event) {
    absl::MutexLock lock(&mu_);
    const std::string& key = event.kv.key;
    if (key.starts_with(placed)) {
      PlacementChanged(key, event.deleted ? nullptr : &event.kv.value);
    } else if (key.starts_with(nodes)) {
      const std::string id = key.substr(nodes.size());
      const bool known = nodes_.contains(id);
      if (event.deleted) {
        nodes_.erase(id);
      } else {
        nodes_[id] = event.kv.value;
      }
      if (known == event.deleted) members_changed_at_ = absl::Now();
    } else if (key.starts_with(leaders)) {
      uint32_t shard = 0;
      const std::string id = key.substr(leaders.size());
      if (std::from_chars(id.data(), id.data() + id.size(), shard).ec != std::errc() ||
          shard >= leaders_.size()) {
        return;
      }
      RecordLeader(shard, event.deleted ? Leader{.revision = event.kv.mod_revision}
                                        : Leader{event.kv.value, event.kv.create_revision,
                                                 event.kv.mod_revision});
    }
  });
}

void ClusterNode::RecordLeader(uint32_t shard, Leader leader) {
  if (leader.revision < leaders_[shard].revision) return;
  leaders_[shard] = std::move(leader);
}

std::string ClusterNode::LeaderKey(uint32_t shard) const {
  return StrCat(root_, "leaders/", shard);
}

ShardPlacement ClusterNode::PlacementOf(uint32_t shard) {
  if (shard < placement_.size() && placement_[shard].has_value()) return *placement_[shard];
  ShardPlacement placement;
  if (created_placement_.empty()) {
    for (const auto& [id, address] : nodes_) placement.replicas.push_back(id);
    if (!placement.Serves(options_.node_id)) placement.replicas.push_back(options_.node_id);
    std::sort(placement.replicas.begin(), placement.replicas.end());
    return placement;
  }
  const size_t n = created_placement_.size();
  for (size_t i = 0; i < std::min<size_t>(shard_replicas_, n); ++i) {
    placement.replicas.push_back(created_placement_[(shard + i) % n]);
  }
  return placement;
}

void ClusterNode::PlacementChanged(std::string_view key, const std::string* value) {
  const std::string_view id = key.substr(PlacementController::ShardKeyPrefix(root_).size());
  uint32_t shard = 0;
  if (std::from_chars(id.data(), id.data() + id.size(), shard).ec != std::errc() ||
      shard >= placement_.size()) {
    return;
  }
  if (value == nullptr) {
    placement_[shard].reset();
    return;
  }
  std::optional<ShardPlacement> placement = DecodePlacement(*value);
  if (!placement.has_value()) {
    spdlog::error("cluster: etcd's {} holds \"{}\", not a placement; keeping shard {}'s", key,
                  *value, shard);
    return;
  }
  placement_[shard] = *std::move(placement);
}

std::vector<ShardHolder> ClusterNode::Holders(uint32_t shard) {
  absl::MutexLock lock(&mu_);
  std::vector<ShardHolder> holders;
  const std::string leader = shard < leaders_.size() ? leaders_[shard].node : "";
  for (const std::string& id : PlacementOf(shard).replicas) {
    ShardHolder holder{.node = id, .self = id == options_.node_id, .leader = id == leader};
    if (holder.self) {
      if (LocalReplica(shard) == nullptr) continue;
      holder.address = advertise_;
    } else {
      auto it = nodes_.find(id);
      if (it == nodes_.end()) continue;  // not a member now (its lease ended)
      holder.address = it->second;
    }
    holders.insert(id == leader ? holders.begin() : holders.end(), std::move(holder));
  }
  return holders;
}

bool ClusterNode::WaitCatalog(int64_t revision, milliseconds wait) {
  return catalog_->WaitApplied(revision, wait);
}

std::string ClusterNode::PreferredLeader(uint32_t shard) {
  absl::MutexLock lock(&mu_);
  if (placement_[shard].has_value() || !created_placement_.empty()) {
    const ShardPlacement placement = PlacementOf(shard);
    return placement.replicas.empty() ? "" : placement.replicas.front();
  }
  if (nodes_.empty()) return options_.node_id;
  auto it = nodes_.begin();
  std::advance(it, shard % nodes_.size());
  return it->first;
}

bool ClusterNode::Preferred(uint32_t shard) { return PreferredLeader(shard) == options_.node_id; }

bool ClusterNode::HandBack(uint32_t shard, Replica& replica, const Leader& leader) {
  const std::string preferred = PreferredLeader(shard);
  if (preferred.empty() || preferred == options_.node_id) return false;
  std::string address;
  {
    absl::MutexLock lock(&mu_);
    // Without a placement, a shard's first choice follows the members: while they change (a
    // node lost, or back), the nodes may not agree on it yet, and a lead handed on would come
    // straight back.
    if (absl::Now() - members_changed_at_ < kHandBackAfter) return false;
    auto it = nodes_.find(preferred);
    if (it == nodes_.end()) return false;  // away: this node keeps the lead
    address = it->second;
  }
  const std::optional<internal::v1::ShardStateResponse> state =
      StateOf(preferred, address, {shard});
  if (!state.has_value()) return false;
  const uint64_t applied = replica.state().applied;
  for (const internal::v1::ShardState& s : state->shards()) {
    // Its replica must take the lead at once: healthy, willing, and nearly caught up.
    if (s.shard() != shard || !s.may_lead() || s.applied_sequence() + kHandBackLag < applied) {
      continue;
    }
    spdlog::info("cluster: node {} hands shard {}'s lead back to node {}, its first choice",
                 options_.node_id, shard, preferred);
    GiveUpLead(shard, replica, leader.epoch);
    absl::MutexLock lock(&mu_);
    // Not this node's any more, before the watch says so: the next look must not lead again
    // under the key just deleted.
    if (leaders_[shard].node == options_.node_id && leaders_[shard].epoch == leader.epoch) {
      leaders_[shard] = Leader{.revision = leaders_[shard].revision};
    }
    return true;
  }
  return false;
}

void ClusterNode::Campaign(uint32_t shard) {
  absl::Time vacant_since = absl::InfiniteFuture();
  // Since when this node leads the shard, and when it looks next whether to hand it back.
  absl::Time led_since = absl::InfiniteFuture();
  absl::Time hand_back_look = absl::InfinitePast();
  while (!stopping_.WaitForNotificationWithTimeout(absl::Milliseconds(200))) {
    bool serves = false;
    const std::shared_ptr<Replica> held = FollowPlacement(shard, &serves);
    Leader leader;
    int64_t lease = 0;
    {
      absl::MutexLock lock(&mu_);
      leader = leaders_[shard];
      lease = lease_;
    }
    if (lease == 0) {
      // The lease was lost (etcd unreachable past its TTL, or this process paused): rejoin.
      if (shard == 0) {
        if (absl::Status s = JoinLease(); !s.ok()) spdlog::warn("cluster: {}", s.message());
      }
      continue;
    }
    // A node joining the shard builds its replica from the log; it leads once it serves.
    if (held == nullptr || !serves) continue;
    Replica& replica = *held;
    if (!replica.health().ok()) {
      // A replica that stopped (a gap, a broken digest chain) must not lead: its key goes to
      // a healthy one.
      if (leader.node == options_.node_id) GiveUpLead(shard, replica, leader.epoch);
      continue;
    }
    if (leader.node != options_.node_id) led_since = absl::InfiniteFuture();
    if (leader.node == options_.node_id) {
      vacant_since = absl::InfiniteFuture();
      if (replica.leading() && replica.epoch() == leader.epoch) {
        // A lead taken while the shard's first choice was away goes back to it once it has
        // been back a while (the leads, and the work they bring, stay spread).
        const absl::Time now = absl::Now();
        if (led_since == absl::InfiniteFuture()) led_since = now;
        if (now - led_since >= kHandBackAfter && now >= hand_back_look && !draining_) {
          hand_back_look = now + kHandBackLookEvery;
          if (HandBack(shard, replica, leader)) led_since = absl::InfiniteFuture();
        }
        continue;
      }
      if (absl::Status s = replica.Lead(leader.epoch); !s.ok()) {
        spdlog::warn("cluster: shard {}: could not take the lead: {}", shard, s.message());
        if (absl::IsFailedPrecondition(s)) {
          // Another node published after this one won the key: give the key back.
          GiveUpLead(shard, replica, leader.epoch);
        }
      } else {
        spdlog::info("cluster: node {} leads shard {} (epoch {})", options_.node_id, shard,
                     leader.epoch);
      }
      continue;
    }
    if (replica.leading()) replica.StepDown();
    if (!leader.node.empty()) {
      vacant_since = absl::InfiniteFuture();
      continue;
    }
    // Tests only: a replica made to lag never leads (its writes would wait for it).
    if (options_.testing_apply_delay_ms > 0) continue;
    // A stopping node would only hand the shard on again a moment later.
    if (draining_) continue;
    const absl::Time now = absl::Now();
    if (vacant_since == absl::InfiniteFuture()) vacant_since = now;
    if (!Preferred(shard) && now - vacant_since < kDeferToPreferred) continue;
    bool created = false;
    auto won = etcd_->CreateIfAbsent(LeaderKey(shard), options_.node_id, lease, &created);
    if (!won.ok()) continue;
    absl::MutexLock lock(&mu_);
    // The watch will say so too; recorded now so the next round leads at once (unless the
    // watch already told of a later change).
    RecordLeader(shard, Leader{won->value, won->create_revision, won->mod_revision});
  }
}

bool ClusterNode::HoldsRole(const std::string& key) {
  int64_t lease = 0;
  {
    absl::MutexLock lock(&mu_);
    lease = lease_;
  }
  // A stopping node takes no role; one it holds goes with its lease.
  if (lease == 0 || draining_) return false;
  auto holder = etcd_->CreateIfAbsent(key, options_.node_id, lease);
  return holder.ok() && holder->value == options_.node_id && holder->lease == lease;
}

void ClusterNode::CampaignForScheduler() {
  // Checked once a second: a runner whose lease ended (dead, paused, cut off) loses the key
  // with it and another node takes it within the lease and a second. A paused runner may
  // run a due invocation before it learns it lost the role: the run's records carry its
  // invocation time as their version, so a second run of it writes nothing new.
  const std::string key = root_ + "scheduler";
  while (!stopping_.WaitForNotificationWithTimeout(absl::Seconds(1))) {
    const bool runs = HoldsRole(key);
    const bool was = runs_scheduler_.exchange(runs);
    if (runs == was) continue;
    spdlog::info("cluster: node {} {} the cluster's scheduled queries", options_.node_id,
                 runs ? "runs" : "no longer runs");
    if (runs && on_became_scheduler_) on_became_scheduler_();
  }
}

void ClusterNode::CampaignForController() {
  // Like the scheduler's key: a controller whose lease ended loses the key, and its late
  // writes fail their compare-and-swap (placement_controller.h).
  const std::string key = root_ + "controller";
  PlacementController::Hooks hooks{
      .members =
          [this] {
            absl::MutexLock lock(&mu_);
            return nodes_;
          },
      .applied_on = [this](const std::string& node,
                           uint32_t shard) { return AppliedOn(node, shard); },
      .log_end = [this](uint32_t shard) -> std::optional<uint64_t> {
        absl::StatusOr<uint64_t> end =
            log_->LastSequence(StreamName(options_.name, shard), milliseconds(1000));
        return end.ok() ? std::optional<uint64_t>(*end) : std::nullopt;
      },
      .placement_without_key =
          [this](uint32_t shard) {
            absl::MutexLock lock(&mu_);
            ShardPlacement placement = PlacementOf(shard);
            placement.joining.clear();
            placement.leaving.clear();
            return placement;
          },
  };
  PlacementController controller(etcd_.get(), root_, shards_, shard_replicas_,
                                 std::chrono::seconds(options_.dead_node_grace_seconds),
                                 std::move(hooks));
  bool was = false;
  std::vector<uint64_t> trimmed_below(shards_, 0);
  absl::Time trim_at = absl::InfinitePast();
  while (!stopping_.WaitForNotificationWithTimeout(absl::Seconds(1))) {
    const bool runs = HoldsRole(key);
    if (runs != was) {
      spdlog::info("cluster: node {} {} the placement controller", options_.node_id,
                   runs ? "runs" : "no longer runs");
      was = runs;
      trim_at = absl::Now() + absl::Seconds(options_.log_trim_seconds);
    }
    if (!runs) continue;
    if (absl::Status s = controller.Round(); !s.ok()) {
      spdlog::warn("cluster: placement controller: {}", s.message());
    }
    if (absl::Now() >= trim_at) {
      TrimLogs(trimmed_below);
      trim_at = absl::Now() + absl::Seconds(options_.log_trim_seconds);
    }
  }
}

void ClusterNode::TrimLogs(std::vector<uint64_t>& trimmed_below) {
  // One copy of each shard's rows: the logs are the second, which a lost node's shards are
  // built again from (no peer has a checkpoint of them).
  if (shard_replicas_ < 2) return;
  std::map<std::string, std::string> members;
  {
    absl::MutexLock lock(&mu_);
    members = nodes_;
  }
  std::set<std::string> ids;
  // What each member's replicas applied: one call a node.
  std::vector<std::map<std::string, uint64_t>> applied(shards_);
  std::vector<uint32_t> all(shards_);
  for (uint32_t shard = 0; shard < shards_; ++shard) all[shard] = shard;
  for (const auto& [id, address] : members) {
    ids.insert(id);
    const std::optional<internal::v1::ShardStateResponse> state = StateOf(id, address, all);
    if (!state.has_value()) continue;
    for (const internal::v1::ShardState& s : state->shards()) {
      if (s.shard() < shards_) applied[s.shard()][id] = s.applied_sequence();
    }
  }
  for (uint32_t shard = 0; shard < shards_; ++shard) {
    ShardPlacement placement;
    {
      absl::MutexLock lock(&mu_);
      placement = PlacementOf(shard);
    }
    const std::optional<uint64_t> keep_from =
        TrimPoint(placement, ids, applied[shard], static_cast<uint64_t>(options_.log_keep_entries));
    if (!keep_from.has_value() || *keep_from <= trimmed_below[shard]) continue;
    const std::string stream = StreamName(options_.name, shard);
    // Only a trim that deletes entries is asked for (not one of an empty log, or below
    // where it starts).
    absl::StatusOr<LogBounds> log = log_->Bounds(stream, std::chrono::seconds(2));
    if (!log.ok() || *keep_from <= log->first || *keep_from > log->last) continue;
    if (absl::Status s = log_->Trim(stream, *keep_from, std::chrono::seconds(2)); !s.ok()) {
      spdlog::warn("cluster: {}", s.message());
      continue;
    }
    trimmed_below[shard] = *keep_from;
    spdlog::info("cluster: shard {}'s log now starts at {} (was {})", shard, *keep_from,
                 log->first);
  }
}

std::optional<uint64_t> ClusterNode::AppliedOn(const std::string& node, uint32_t shard) {
  std::string address;
  if (node != options_.node_id) {
    absl::MutexLock lock(&mu_);
    auto it = nodes_.find(node);
    if (it == nodes_.end()) return std::nullopt;
    address = it->second;
  }
  std::optional<internal::v1::ShardStateResponse> state = StateOf(node, address, {shard});
  if (!state.has_value()) return std::nullopt;
  for (const auto& s : state->shards()) {
    if (s.shard() == shard) return s.applied_sequence();
  }
  return std::nullopt;
}

std::optional<internal::v1::ShardStateResponse> ClusterNode::StateOf(
    const std::string& node, const std::string& address, const std::vector<uint32_t>& shards) {
  internal::v1::ShardStateResponse response;
  if (node == options_.node_id) {
    for (uint32_t shard : shards) {
      const std::shared_ptr<Replica> replica = LocalReplica(shard);
      if (replica == nullptr) continue;
      const ReplicaState state = replica->state();
      auto* s = response.add_shards();
      s->set_shard(shard);
      s->set_applied_sequence(state.applied);
      s->set_digest(state.digest);
    }
    return response;
  }
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + milliseconds(2000));
  membership_->Present(&context);
  internal::v1::ShardStateRequest request;
  for (uint32_t shard : shards) request.add_shards(shard);
  if (!peers_->For(address)->State(&context, request, &response).ok()) return std::nullopt;
  return response;
}

void ClusterNode::RevokeReadLeases(uint32_t shard, std::vector<ReadLeaseHolder> live) {
  struct Call {
    const ReadLeaseHolder* holder = nullptr;
    grpc::ClientContext context;
    internal::v1::RevokeReadLeaseResponse response;
    grpc::Status status;
    std::unique_ptr<grpc::ClientAsyncResponseReader<internal::v1::RevokeReadLeaseResponse>> reader;
  };
  grpc::CompletionQueue done;
  std::vector<std::unique_ptr<Call>> calls;
  std::vector<const ReadLeaseHolder*> unanswered;  // waited out
  for (const ReadLeaseHolder& holder : live) {
    std::string address;
    {
      absl::MutexLock lock(&mu_);
      if (auto it = nodes_.find(holder.node); it != nodes_.end()) address = it->second;
    }
    if (address.empty()) {
      unanswered.push_back(&holder);
      continue;
    }
    auto call = std::make_unique<Call>();
    call->holder = &holder;
    call->context.set_deadline(std::chrono::system_clock::now() +
                               (holder.until - LeaseClock::now()));
    membership_->Present(&call->context);
    internal::v1::RevokeReadLeaseRequest request;
    request.set_shard(shard);
    request.set_epoch(holder.epoch);
    request.set_id(holder.id);
    call->reader = peers_->For(address)->AsyncRevokeReadLease(&call->context, request, &done);
    call->reader->Finish(&call->response, &call->status, call.get());
    calls.push_back(std::move(call));
  }
  for (size_t answered = 0; answered < calls.size(); ++answered) {
    void* tag = nullptr;
    bool ok = false;
    if (!done.Next(&tag, &ok)) break;
    const Call& call = *static_cast<const Call*>(tag);
    if (!ok || !call.status.ok()) unanswered.push_back(call.holder);
  }
  done.Shutdown();
  void* tag = nullptr;
  bool ok = false;
  while (done.Next(&tag, &ok)) {
  }
  for (const ReadLeaseHolder* holder : unanswered) {
    spdlog::info("cluster: shard {}'s read lease at node {} not revoked; waiting for its end",
                 shard, holder->node);
    std::this_thread::sleep_until(holder->until);
  }
}

absl::StatusOr<std::vector<std::string>> ClusterNode::ChangeNodes(
    const std::vector<std::string>& add, const std::vector<std::string>& remove) {
  if (add.size() + remove.size() > kMaxClusterNodes) {
    return absl::InvalidArgumentError(StrCat("a change names at most ", kMaxClusterNodes,
                                             " node ids; split it into several"));
  }
  for (const std::string& id : add) {
    if (!ValidName(id)) {
      return absl::InvalidArgumentError(
          StrCat("\"", id, "\" is not a node id (1..64 of [A-Za-z0-9_-])"));
    }
  }
  const std::string key = PlacementController::NodesKey(root_);
  for (int attempt = 0; attempt < 10; ++attempt) {
    ASSIGN_OR_RETURN(std::optional<EtcdKeyValue> listed, etcd_->Get(key));
    std::vector<std::string> nodes;
    if (listed.has_value()) {
      nodes = absl::StrSplit(listed->value, ',', absl::SkipEmpty());
    } else {
      // The first change starts from the nodes the shards are on now.
      absl::MutexLock lock(&mu_);
      std::set<std::string> holding;
      for (uint32_t shard = 0; shard < shards_; ++shard) {
        ShardPlacement placement = PlacementOf(shard);
        holding.insert(placement.replicas.begin(), placement.replicas.end());
      }
      nodes.assign(holding.begin(), holding.end());
    }
    for (const std::string& id : add) {
      if (std::find(nodes.begin(), nodes.end(), id) == nodes.end()) nodes.push_back(id);
    }
    for (const std::string& id : remove) {
      auto it = std::find(nodes.begin(), nodes.end(), id);
      if (it == nodes.end()) {
        return absl::NotFoundError(StrCat("node \"", id, "\" is not one of the cluster's (",
                                          absl::StrJoin(nodes, ", "), ")"));
      }
      nodes.erase(it);
    }
    if (nodes.size() > kMaxClusterNodes) {
      return absl::FailedPreconditionError(
          StrCat("a cluster lists at most ", kMaxClusterNodes, " nodes"));
    }
    if (nodes.size() < shard_replicas_) {
      return absl::FailedPreconditionError(
          StrCat("the cluster would have ", nodes.size(), " nodes, and each shard needs ",
                 shard_replicas_, " replicas on distinct nodes; add a node before removing one"));
    }
    const std::string value = absl::StrJoin(nodes, ",");
    if (listed.has_value() && listed->value == value) return nodes;
    ASSIGN_OR_RETURN(bool changed, etcd_->PutIfUnchanged(
                                       key, value, listed.has_value() ? listed->mod_revision : 0));
    if (changed) {
      spdlog::info("cluster: the cluster's nodes are now {}", value);
      return nodes;
    }
  }
  return absl::AbortedError("the cluster's node list kept changing; try again");
}

std::string ClusterNode::LeaderAddress(uint32_t shard, bool* self) {
  absl::MutexLock lock(&mu_);
  if (shard >= leaders_.size()) return "";
  const Leader& leader = leaders_[shard];
  *self = leader.node == options_.node_id;
  if (leader.node.empty()) return "";
  if (*self) return advertise_;
  auto it = nodes_.find(leader.node);
  return it == nodes_.end() ? "" : it->second;
}

std::shared_ptr<Replica> ClusterNode::LocalReplica(uint32_t shard) {
  absl::MutexLock lock(&replicas_mu_);
  return shard < replicas_.size() ? replicas_[shard] : nullptr;
}

std::vector<std::shared_ptr<Replica>> ClusterNode::AllReplicas() {
  absl::MutexLock lock(&replicas_mu_);
  std::vector<std::shared_ptr<Replica>> all;
  for (const std::shared_ptr<Replica>& replica : replicas_) {
    if (replica != nullptr) all.push_back(replica);
  }
  return all;
}

absl::StatusOr<std::shared_ptr<Replica>> ClusterNode::StartReplica(uint32_t shard) {
  ReplicatedCatalog* catalog = catalog_.get();
  auto replica = std::make_shared<Replica>(
      shard, options_.node_id, StreamName(options_.name, shard), SubjectName(options_.name, shard),
      &engine_, log_.get(), [catalog](int64_t revision, milliseconds wait) {
        return catalog->WaitApplied(revision, wait);
      });
  replica->ConfirmThrough(StrCat("strata.", options_.name, ".applied.", shard),
                          options_.replica_ack_majority, milliseconds(10000));
  replica->DelayApplyForTesting(milliseconds(options_.testing_apply_delay_ms));
  replica->RevokeLeasesWith(
      [this](uint32_t shard, std::vector<ReadLeaseHolder> live) {
        RevokeReadLeases(shard, std::move(live));
      },
      options_.testing_read_lease_ms > 0 ? milliseconds(options_.testing_read_lease_ms)
                                         : GrantedReadLeases::kLength);
  RETURN_IF_ERROR(replica->Start());
  return replica;
}

std::shared_ptr<Replica> ClusterNode::FollowPlacement(uint32_t shard, bool* serves) {
  bool holds = false;
  {
    absl::MutexLock lock(&mu_);
    const ShardPlacement placement = PlacementOf(shard);
    holds = placement.Holds(options_.node_id);
    *serves = placement.Serves(options_.node_id);
  }
  std::shared_ptr<Replica> replica = LocalReplica(shard);
  if (holds && replica != nullptr && replica->left_behind()) {
    // Away while its log was trimmed past what it applied: built again from a peer.
    {
      absl::MutexLock lock(&replicas_mu_);
      replicas_[shard] = nullptr;
    }
    replica->BeginStop();
    replica.reset();
  }
  if (holds && replica == nullptr) {
    if (absl::Now() < build_again_at_[shard]) return nullptr;
    // Rows kept from a replica given up a moment ago, with their applied state, are where
    // the new one resumes, as after a restart: only the log's tail is read again.
    const bool kept = forget_rows_at_[shard] != absl::InfiniteFuture();
    forget_rows_at_[shard] = absl::InfiniteFuture();
    absl::StatusOr<std::string> from = PrepareReplica(shard, kept);
    absl::StatusOr<std::shared_ptr<Replica>> started =
        from.ok() ? StartReplica(shard) : from.status();
    if (!started.ok()) {
      spdlog::warn(
          "cluster: node {} could not build its replica of shard {} (trying again in "
          "{} s): {}",
          options_.node_id, shard, absl::ToInt64Seconds(kBuildAgainAfter),
          started.status().message());
      build_again_at_[shard] = absl::Now() + kBuildAgainAfter;
      return nullptr;
    }
    spdlog::info("cluster: node {} builds a replica of shard {} from {}", options_.node_id, shard,
                 *from);
    absl::MutexLock lock(&replicas_mu_);
    replicas_[shard] = *started;
    return *started;
  }
  if (!holds && replica == nullptr && absl::Now() >= forget_rows_at_[shard]) {
    forget_rows_at_[shard] = absl::InfiniteFuture();
    if (absl::Status s = ForgetShard(shard); !s.ok()) spdlog::warn("cluster: {}", s.message());
    return nullptr;
  }
  if (!holds && replica == nullptr && !leftovers_checked_[shard]) {
    // Rows of a replica this node held before it stopped (killed while the shard moved
    // away) are dropped once, at the first look.
    leftovers_checked_[shard] = true;
    absl::StatusOr<std::optional<std::string>> stored =
        engine_.ReadCatalogEntry(keys::ReplicaState(shard));
    if (stored.ok() && stored->has_value() && **stored != EncodeReplicaState({})) {
      spdlog::info("cluster: node {} holds rows of shard {}, no longer placed on it",
                   options_.node_id, shard);
      if (absl::Status s = ForgetShard(shard); !s.ok()) spdlog::warn("cluster: {}", s.message());
    }
    return nullptr;
  }
  if (!holds && replica != nullptr) {
    {
      absl::MutexLock lock(&replicas_mu_);
      replicas_[shard] = nullptr;
    }
    DropReplica(shard, std::move(replica));
    return nullptr;
  }
  return replica;
}

void ClusterNode::GiveUpLead(uint32_t shard, Replica& replica, int64_t epoch) {
  replica.StepDown();
  etcd_->Delete(LeaderKey(shard), epoch).IgnoreError();
}

void ClusterNode::DropReplica(uint32_t shard, std::shared_ptr<Replica> replica) {
  spdlog::info("cluster: node {} no longer holds shard {}; dropping its replica", options_.node_id,
               shard);
  replica->StepDown();
  Leader leader;
  {
    absl::MutexLock lock(&mu_);
    leader = leaders_[shard];
  }
  if (leader.node == options_.node_id) etcd_->Delete(LeaderKey(shard), leader.epoch).IgnoreError();
  // Fragments reading it hold it until they end (ClusterShardReads::RunHere); the applier
  // stops when the last reference goes.
  std::weak_ptr<Replica> last = replica;
  replica.reset();
  while (!last.expired() && !stopping_.WaitForNotificationWithTimeout(absl::Milliseconds(10))) {
  }
  // A query that chose this node's copy of every shard before the move reads the engine
  // without holding the replica: the rows stay a while for it, and FollowPlacement drops
  // them later. Not waited for here: this thread also follows the shard's placement (and,
  // for shard 0, the node's lease). Stopped meanwhile, the next start drops them
  // (FollowPlacement's first look).
  leftovers_checked_[shard] = true;
  forget_rows_at_[shard] = absl::Now() + kKeepRowsOfDroppedReplica;
}

absl::StatusOr<std::string> ClusterNode::PrepareReplica(uint32_t shard, bool kept) {
  ASSIGN_OR_RETURN(std::optional<std::string> bytes,
                   engine_.ReadCatalogEntry(keys::ReplicaState(shard)));
  ReplicaState stored;
  if (bytes.has_value() && !DecodeReplicaState(*bytes, &stored)) {
    return absl::DataLossError(StrCat("shard ", shard, "'s applied state is malformed"));
  }
  ASSIGN_OR_RETURN(LogBounds log,
                   log_->Bounds(StreamName(options_.name, shard), std::chrono::seconds(2)));
  // Rows whose state the log goes on from (a restart, a replica given up a moment ago): only
  // the log's tail is read.
  if (stored.applied > 0 && stored.applied + 1 >= log.first) {
    return std::string(kept ? "the rows it kept of its last one and the log's tail"
                            : "the rows it holds and the log's tail");
  }
  absl::StatusOr<std::string> copied = CopyFromPeer(shard);
  if (copied.ok()) return copied;
  // No peer could send one (a cluster starting): the whole log, while it is whole.
  if (stored.applied == 0 && log.first <= 1) {
    RETURN_IF_ERROR(ForgetShard(shard));
    return std::string("its log");
  }
  return copied.status();
}

absl::StatusOr<std::string> ClusterNode::CopyFromPeer(uint32_t shard) {
  std::vector<ShardHolder> peers = Holders(shard);
  std::erase_if(peers, [](const ShardHolder& peer) { return peer.self; });
  // A follower first: the leader has the shard's writes to do.
  std::stable_partition(peers.begin(), peers.end(),
                        [](const ShardHolder& peer) { return !peer.leader; });
  absl::Status last = absl::UnavailableError(StrCat("no other node serves shard ", shard));
  for (const ShardHolder& peer : peers) {
    // Whatever the engine holds of the shard goes first: rows of an earlier replica, or of
    // a copy cut short, may hold points the log deleted since.
    RETURN_IF_ERROR(ForgetShard(shard));
    ReplicatedCatalog* catalog = catalog_.get();
    absl::StatusOr<CopiedCheckpoint> copied = CopyCheckpoint(
        *peers_->For(peer.address), peer.node, *membership_, engine_, shard,
        [catalog](int64_t revision) {
          return catalog->WaitApplied(revision, std::chrono::seconds(30));
        },
        [this] { return stopping_.HasBeenNotified(); });
    if (copied.ok()) {
      // The rows are durable; now the state they hold, which the replica starts from.
      if (absl::Status stored = StoreReplicaState(engine_, shard, copied->state); !stored.ok()) copied = stored;
    }
    if (!copied.ok()) {
      spdlog::warn("cluster: node {} could not copy shard {} from node {}: {}", options_.node_id,
                   shard, peer.node, copied.status().message());
      last = copied.status();
      continue;
    }
    return StrCat("node ", peer.node, "'s checkpoint at sequence ", copied->state.applied, " (",
                  copied->rows, " rows) and the log's tail");
  }
  return last;
}

absl::Status ClusterNode::ForgetShard(uint32_t shard) {
  // Applied state back to nothing first: a crash before the rows are gone leaves rows a
  // later replica of the shard deletes before it is built.
  if (absl::Status s = StoreReplicaState(engine_, shard, {}); !s.ok()) {
    return absl::Status(
        s.code(), StrCat("shard ", shard, "'s applied state could not be reset: ", s.message()));
  }
  const uint32_t count = shards_;
  absl::StatusOr<int64_t> dropped = engine_.DeleteSeriesWhere(
      [shard, count](const SeriesTarget& series) {
        return ShardOf(series.routing, count) == shard;
      },
      [this] { return stopping_.HasBeenNotified(); });
  if (!dropped.ok()) {
    return absl::Status(
        dropped.status().code(),
        StrCat("shard ", shard, "'s rows could not all be dropped: ", dropped.status().message()));
  }
  if (*dropped > 0) {
    spdlog::info("cluster: node {} dropped shard {}'s {} points", options_.node_id, shard,
                 *dropped);
  }
  return absl::OkStatus();
}

bool ClusterNode::CatchUpCatalog() { return catalog_->CatchUpForRead(); }

bool ClusterNode::LeadsUnderLease(Replica& replica) {
  if (!replica.leading()) return false;
  int64_t lease = 0;
  {
    absl::MutexLock lock(&mu_);
    lease = lease_;
  }
  // Another node can lead the shard only once etcd dropped this node's lease, which it
  // keeps at least until LeaseKeptUntil; a second's margin covers the two clocks' rates.
  return lease != 0 &&
         std::chrono::steady_clock::now() + kLeaseMargin < etcd_->LeaseKeptUntil(lease);
}

absl::Status ClusterNode::CatchUpShards(const std::vector<uint32_t>& shards,
                                        const query::ReadChoice& choice, milliseconds wait) {
  const absl::Time deadline = absl::Now() + absl::FromChrono(wait);
  const auto asked = std::chrono::steady_clock::now();
  std::vector<std::shared_ptr<Replica>> behind;  // the replicas to bring up
  std::vector<uint32_t> behind_shards;
  for (uint32_t shard : shards) {
    std::shared_ptr<Replica> replica = LocalReplica(shard);
    if (replica == nullptr) continue;
    // A leader applied every write it acknowledged, and none can be acknowledged elsewhere
    // while its lease lasts.
    if (LeadsUnderLease(*replica)) continue;
    if (choice.consistency == query::ReadConsistency::kFollower &&
        replica->current_as_of() >= asked - choice.max_staleness) {
      continue;
    }
    behind.push_back(std::move(replica));
    behind_shards.push_back(shard);
  }
  if (behind.empty()) return absl::OkStatus();
  // Each one's end: what its leader applied (leader_applied.h), or where NATS says its log
  // ends for a shard whose leader did not say.
  const std::vector<std::optional<uint64_t>> leaders_applied =
      LeadersApplied(*this, *peers_, behind_shards, deadline);
  for (size_t i = 0; i < behind.size(); ++i) {
    Replica& replica = *behind[i];
    std::optional<uint64_t> end = leaders_applied[i];
    if (!end.has_value()) {
      // A slow answer (NATS busy, a NATS server restarting) is asked again while the wait
      // lasts: reading on without the log's end would miss acknowledged writes.
      absl::StatusOr<uint64_t> last;
      do {
        const auto left =
            std::clamp(deadline - absl::Now(), absl::Milliseconds(100), absl::Seconds(1));
        last = log_->LastSequence(replica.stream(), absl::ToChronoMilliseconds(left));
      } while (!last.ok() && absl::Now() < deadline);
      if (!last.ok()) continue;  // NATS away: this replica's state is the best there is
      end = *last;
    }
    const auto left = std::max(absl::ZeroDuration(), deadline - absl::Now());
    if (!replica.WaitApplied(*end, absl::ToChronoMilliseconds(left))) {
      return absl::UnavailableError(StrCat(
          "this node has not applied shard ", replica.shard(), "'s log to sequence ", *end,
          " yet (it is at ", replica.state().applied, "); retry, or query through another node"));
    }
    replica.CurrentAsOf(asked);
  }
  return absl::OkStatus();
}

std::vector<NodeStatus> ClusterNode::Nodes() {
  absl::MutexLock lock(&mu_);
  std::vector<NodeStatus> out;
  for (const auto& [id, address] : nodes_) out.push_back({id, address});
  return out;
}

std::vector<LocalShardStatus> ClusterNode::LocalShards() {
  std::vector<LocalShardStatus> out;
  for (const std::shared_ptr<Replica>& replica : AllReplicas()) {
    LocalShardStatus s{.shard = replica->shard(),
                       .leading = replica->leading(),
                       .healthy = replica->health().ok(),
                       .applied = replica->state().applied,
                       .counts = replica->counts()};
    if (s.leading) s.epoch = replica->epoch();
    out.push_back(s);
  }
  return out;
}

std::vector<ShardStatus> ClusterNode::Shards() {
  std::vector<ShardStatus> out(shards_);
  std::vector<Leader> leaders;
  {
    absl::MutexLock lock(&mu_);
    leaders = leaders_;
    for (uint32_t shard = 0; shard < shards_; ++shard) {
      out[shard].placement = EncodePlacement(PlacementOf(shard));
    }
  }
  for (uint32_t shard = 0; shard < shards_; ++shard) {
    out[shard].shard = shard;
    out[shard].leader = leaders[shard].node;
    out[shard].epoch = leaders[shard].epoch;
    const LogBounds log =
        log_->Bounds(StreamName(options_.name, shard), milliseconds(1000)).value_or(LogBounds{});
    out[shard].first_sequence = log.first;
    out[shard].last_sequence = log.last;
  }
  std::vector<uint32_t> all(shards_);
  for (uint32_t shard = 0; shard < shards_; ++shard) all[shard] = shard;
  for (const NodeStatus& node : Nodes()) {
    const std::optional<internal::v1::ShardStateResponse> state =
        StateOf(node.id, node.address, all);
    const bool reachable = state.has_value();
    const internal::v1::ShardStateResponse response = state.value_or(
        internal::v1::ShardStateResponse());
    for (uint32_t shard = 0; shard < shards_; ++shard) {
      ShardStatus::Copy copy{.node = node.id, .reachable = reachable};
      bool holds = !reachable;  // an unreachable node is listed with the shards it may hold
      for (const auto& s : response.shards()) {
        if (s.shard() != shard) continue;
        holds = true;
        copy.applied = s.applied_sequence();
        copy.digest = s.digest();
      }
      if (holds) out[shard].replicas.push_back(copy);
    }
  }
  return out;
}

}  // namespace strata::cluster
