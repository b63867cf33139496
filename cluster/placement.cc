#include "cluster/placement.h"

#include <algorithm>
#include <map>
#include <set>

#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/strings.h"

namespace strata::cluster {
namespace {

bool Contains(const std::vector<std::string>& nodes, std::string_view node) {
  return std::find(nodes.begin(), nodes.end(), node) != nodes.end();
}

}  // namespace

bool ShardPlacement::Holds(std::string_view node) const { return Serves(node) || joining == node; }

bool ShardPlacement::Serves(std::string_view node) const { return Contains(replicas, node); }

std::string EncodePlacement(const ShardPlacement& placement) {
  std::string text = StrCat("replicas=", absl::StrJoin(placement.replicas, ","));
  if (placement.moving()) {
    text += StrCat(";joining=", placement.joining);
    if (!placement.leaving.empty()) text += StrCat(";leaving=", placement.leaving);
  }
  return text;
}

std::optional<ShardPlacement> DecodePlacement(std::string_view text) {
  ShardPlacement placement;
  bool has_replicas = false;
  for (const std::string& part : std::vector<std::string>(absl::StrSplit(std::string(text), ';'))) {
    const size_t equals = part.find('=');
    if (equals == std::string::npos) return std::nullopt;
    const std::string name = part.substr(0, equals);
    const std::string value = part.substr(equals + 1);
    if (name == "replicas") {
      has_replicas = true;
      if (!value.empty()) placement.replicas = absl::StrSplit(value, ',');
    } else if (name == "joining") {
      placement.joining = value;
    } else if (name == "leaving") {
      placement.leaving = value;
    } else {
      return std::nullopt;
    }
  }
  const std::set<std::string> distinct(placement.replicas.begin(), placement.replicas.end());
  if (!has_replicas || distinct.size() != placement.replicas.size() ||
      (placement.joining.empty() && !placement.leaving.empty()) ||
      (!placement.leaving.empty() && !placement.Serves(placement.leaving)) ||
      (placement.moving() && placement.Serves(placement.joining))) {
    return std::nullopt;
  }
  return placement;
}

std::vector<ShardPlacement> InitialPlacement(uint32_t shards, const std::vector<std::string>& nodes,
                                             size_t replicas) {
  std::vector<ShardPlacement> placement(shards);
  const size_t n = nodes.size();
  for (uint32_t shard = 0; shard < shards; ++shard) {
    for (size_t i = 0; i < std::min(replicas, n); ++i) {
      placement[shard].replicas.push_back(nodes[(shard + i) % n]);
    }
  }
  return placement;
}

std::vector<Move> PlanMoves(const std::vector<ShardPlacement>& placement,
                            const std::vector<std::string>& nodes, size_t replicas,
                            size_t max_moves) {
  std::vector<ShardPlacement> after = placement;
  size_t in_flight = 0;
  for (const ShardPlacement& shard : placement) in_flight += shard.moving() ? 1 : 0;
  // Each node's copies once every planned and running move is done; nodes not in `nodes`
  // are counted too, so that they are emptied.
  std::map<std::string, size_t> load;
  for (const std::string& node : nodes) load[node] = 0;
  for (const ShardPlacement& shard : placement) {
    for (const std::string& node : shard.replicas) {
      if (node != shard.leaving) ++load[node];
    }
    if (shard.moving()) ++load[shard.joining];
  }
  auto least_loaded = [&](const ShardPlacement& shard) -> std::string {
    std::string best;
    for (const std::string& node : nodes) {
      if (shard.Holds(node)) continue;
      if (best.empty() || load[node] < load[best]) best = node;
    }
    return best;
  };
  std::vector<Move> moves;
  auto plan = [&](uint32_t shard, const std::string& from, const std::string& to) {
    moves.push_back({shard, from, to});
    after[shard] = BeginMove(after[shard], moves.back());
    if (!from.empty()) --load[from];
    if (!to.empty()) ++load[to];
  };
  // Copies on nodes leaving the cluster, copies over the count (a cluster whose every node
  // held every shard), and shards short of copies, first.
  const size_t copies = std::min(replicas, nodes.size());
  for (uint32_t shard = 0; shard < after.size() && in_flight + moves.size() < max_moves; ++shard) {
    if (after[shard].moving()) continue;
    std::string from;
    for (const std::string& node : after[shard].replicas) {
      if (!Contains(nodes, node)) from = node;
    }
    if (after[shard].replicas.size() > copies) {
      if (from.empty()) {
        for (const std::string& node : after[shard].replicas) {
          if (from.empty() || load[node] > load[from]) from = node;
        }
      }
      plan(shard, from, "");  // the others hold it already
      continue;
    }
    const bool short_of_copies = after[shard].replicas.size() < copies;
    if (from.empty() && !short_of_copies) continue;
    const std::string to = least_loaded(after[shard]);
    if (to.empty()) continue;  // every node of the cluster holds it already
    plan(shard, short_of_copies ? "" : from, to);
  }
  // Then the most loaded node gives a shard to the least loaded, while they differ by two.
  while (in_flight + moves.size() < max_moves) {
    bool moved = false;
    std::vector<std::string> by_load = nodes;
    std::stable_sort(by_load.begin(), by_load.end(),
                     [&](const std::string& a, const std::string& b) { return load[a] > load[b]; });
    for (const std::string& from : by_load) {
      for (uint32_t shard = 0; shard < after.size() && !moved; ++shard) {
        if (after[shard].moving() || !after[shard].Serves(from)) continue;
        const std::string to = least_loaded(after[shard]);
        if (to.empty() || load[from] < load[to] + 2) continue;
        plan(shard, from, to);
        moved = true;
      }
      if (moved) break;
    }
    if (!moved) break;
  }
  return moves;
}

ShardPlacement BeginMove(ShardPlacement placement, const Move& move) {
  if (move.to.empty()) {
    std::erase(placement.replicas, move.from);
    return placement;
  }
  placement.joining = move.to;
  placement.leaving = move.from;
  return placement;
}

ShardPlacement FinishMove(ShardPlacement placement) {
  if (!placement.moving()) return placement;
  auto leaving = std::find(placement.replicas.begin(), placement.replicas.end(), placement.leaving);
  if (leaving != placement.replicas.end()) {
    *leaving = placement.joining;  // the joining node takes the leaving one's rank
  } else {
    placement.replicas.push_back(placement.joining);
  }
  placement.joining.clear();
  placement.leaving.clear();
  return placement;
}

}  // namespace strata::cluster
