#include "cluster/placement_controller.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <charconv>

#include "absl/strings/str_split.h"
#include "common/status.h"
#include "common/strings.h"

namespace strata::cluster {

using std::chrono::steady_clock;

PlacementController::PlacementController(EtcdClient* etcd, std::string root, uint32_t shards,
                                         size_t replicas, std::chrono::seconds dead_node_grace,
                                         Hooks hooks)
    : etcd_(*etcd),
      root_(std::move(root)),
      shards_(shards),
      replicas_(replicas),
      dead_node_grace_(dead_node_grace),
      hooks_(std::move(hooks)) {}

std::string PlacementController::NodesKey(std::string_view root) {
  return StrCat(root, "placement/nodes");
}

std::string PlacementController::ShardKeyPrefix(std::string_view root) {
  return StrCat(root, "placement/shard/");
}

std::string PlacementController::ShardKey(std::string_view root, uint32_t shard) {
  return StrCat(ShardKeyPrefix(root), shard);
}

absl::StatusOr<std::vector<PlacementController::Current>> PlacementController::ReadPlacement() {
  std::vector<std::optional<Current>> read(shards_);
  const std::string prefix = ShardKeyPrefix(root_);
  ASSIGN_OR_RETURN(std::vector<EtcdKeyValue> keys, etcd_.List(prefix, nullptr));
  for (const EtcdKeyValue& kv : keys) {
    const std::string_view id = std::string_view(kv.key).substr(prefix.size());
    uint32_t shard = 0;
    if (std::from_chars(id.data(), id.data() + id.size(), shard).ec != std::errc() ||
        shard >= shards_) {
      continue;
    }
    std::optional<ShardPlacement> placement = DecodePlacement(kv.value);
    if (!placement.has_value()) {
      return absl::DataLossError(StrCat("etcd's ", kv.key, " holds \"", kv.value,
                                        "\", not a shard's placement; not moving replicas"));
    }
    read[shard] = Current{*std::move(placement), kv.mod_revision};
  }
  std::vector<Current> out;
  for (uint32_t shard = 0; shard < shards_; ++shard) {
    if (read[shard].has_value()) {
      out.push_back(*std::move(read[shard]));
      continue;
    }
    // The placement the cluster was created with becomes the key's first value.
    const ShardPlacement initial = hooks_.placement_without_key(shard);
    bool created = false;
    ASSIGN_OR_RETURN(EtcdKeyValue kv, etcd_.CreateIfAbsent(ShardKey(root_, shard),
                                                           EncodePlacement(initial), 0, &created));
    std::optional<ShardPlacement> placement = DecodePlacement(kv.value);
    if (!placement.has_value()) return absl::DataLossError(StrCat(kv.key, " is malformed"));
    out.push_back({*std::move(placement), kv.mod_revision});
  }
  return out;
}

absl::StatusOr<bool> PlacementController::AdvanceMove(
    uint32_t shard, const Current& current, const std::vector<std::string>& nodes,
    const std::map<std::string, std::string>& members) {
  const ShardPlacement& placement = current.placement;
  const std::string& joining = placement.joining;
  const bool listed = std::find(nodes.begin(), nodes.end(), joining) != nodes.end();
  auto away = away_since_.find(joining);
  const bool gone = !members.contains(joining) && away != away_since_.end() &&
                    steady_clock::now() - away->second >= dead_node_grace_;
  if (!listed || gone) {
    ShardPlacement off = placement;
    off.joining.clear();
    off.leaving.clear();
    ASSIGN_OR_RETURN(bool done, etcd_.PutIfUnchanged(ShardKey(root_, shard), EncodePlacement(off),
                                                     current.mod_revision));
    if (done) {
      spdlog::info("cluster: moving shard {} to {} called off ({})", shard, joining,
                   listed ? "the node is gone" : "the node left the cluster's list");
    }
    log_end_before_.erase(shard);
    return done;
  }
  const std::optional<uint64_t> applied = hooks_.applied_on(joining, shard);
  const std::optional<uint64_t> end = hooks_.log_end(shard);
  auto before = log_end_before_.find(shard);
  // Caught up: it applied the log to where it ended a round ago (under a steady write load
  // the end moves on while it applies; a second's lag is what any follower has).
  if (applied.has_value() && before != log_end_before_.end() && *applied >= before->second) {
    ASSIGN_OR_RETURN(bool done, etcd_.PutIfUnchanged(ShardKey(root_, shard),
                                                     EncodePlacement(FinishMove(placement)),
                                                     current.mod_revision));
    if (done) {
      spdlog::info("cluster: shard {} moved{}{} to {} (applied {})", shard,
                   placement.leaving.empty() ? "" : " from ", placement.leaving, joining, *applied);
    }
    log_end_before_.erase(shard);
    return done;
  }
  if (end.has_value()) log_end_before_[shard] = *end;
  return false;
}

absl::Status PlacementController::Round() {
  ASSIGN_OR_RETURN(std::optional<EtcdKeyValue> listed, etcd_.Get(NodesKey(root_)));
  if (!listed.has_value()) return absl::OkStatus();  // the placement never changed
  const std::vector<std::string> nodes = absl::StrSplit(listed->value, ',', absl::SkipEmpty());
  const std::map<std::string, std::string> members = hooks_.members();
  const auto now = steady_clock::now();
  for (auto it = away_since_.begin(); it != away_since_.end();) {
    it = members.contains(it->first) ? away_since_.erase(it) : std::next(it);
  }
  // Listed nodes away past the grace are left out: their replicas are rebuilt elsewhere.
  std::vector<std::string> targets;
  bool waiting_for_one = false;
  for (const std::string& node : nodes) {
    if (members.contains(node)) {
      targets.push_back(node);
      continue;
    }
    auto [away, first_seen] = away_since_.try_emplace(node, now);
    if (first_seen) spdlog::warn("cluster: node {} is away; its replicas stay for now", node);
    if (now - away->second < dead_node_grace_) waiting_for_one = true;
  }
  ASSIGN_OR_RETURN(std::vector<Current> placement, ReadPlacement());
  std::vector<ShardPlacement> after;
  for (uint32_t shard = 0; shard < shards_; ++shard) {
    if (placement[shard].placement.moving()) {
      ASSIGN_OR_RETURN(bool changed, AdvanceMove(shard, placement[shard], nodes, members));
      if (changed) return absl::OkStatus();  // next round reads the new keys
    }
    after.push_back(placement[shard].placement);
  }
  // A short loss moves nothing; a node away past the grace, or one taken off the list, does.
  if (waiting_for_one || targets.size() < std::min(replicas_, nodes.size())) {
    return absl::OkStatus();
  }
  for (const Move& move : PlanMoves(after, targets, replicas_, kMovesInFlight)) {
    ASSIGN_OR_RETURN(bool begun,
                     etcd_.PutIfUnchanged(ShardKey(root_, move.shard),
                                          EncodePlacement(BeginMove(after[move.shard], move)),
                                          placement[move.shard].mod_revision));
    if (!begun) return absl::OkStatus();
    if (move.to.empty()) {
      spdlog::info("cluster: shard {} drops its extra copy on {}", move.shard, move.from);
    } else {
      spdlog::info("cluster: moving shard {}{}{} to {}", move.shard,
                   move.from.empty() ? "" : " from ", move.from, move.to);
    }
  }
  return absl::OkStatus();
}

}  // namespace strata::cluster
