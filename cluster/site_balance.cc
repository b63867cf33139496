#include "cluster/site_balance.h"

#include <algorithm>

namespace strata::cluster {
namespace {

// A shard moving from one site to another, and the two's loads after it.
struct ShardMove {
  size_t from = 0, index = 0, to = 0;
  double heavier = 0, taker = 0;
  std::optional<uint64_t> applied;  // a shard of this node's: what it had applied as leader
  // The heavier of the two lighter; as heavy, the lighter taker (the others stay lighter).
  bool operator<(const ShardMove& o) const {
    return heavier != o.heavier ? heavier < o.heavier : taker < o.taker;
  }
};

}  // namespace

bool WorthBalancing(const std::vector<query::FragmentSite>& sites) {
  size_t shards = 0;
  for (const query::FragmentSite& site : sites) shards += site.shards.size();
  return sites.size() >= 2 && shards >= 2 * sites.size();
}

void BalanceSites(std::vector<query::FragmentSite>* sites, double merge_share,
                  const std::function<double(uint32_t shard)>& weight,
                  const std::function<bool(uint32_t shard, const std::string& node)>& holds,
                  const std::function<std::optional<uint64_t>(uint32_t shard)>& led_here) {
  std::vector<query::FragmentSite>& s = *sites;
  size_t shards = 0;
  double total = 0;
  for (const query::FragmentSite& site : s) {
    shards += site.shards.size();
    for (uint32_t shard : site.shards) total += weight(shard);
  }
  if (!WorthBalancing(s) || total <= 0) return;
  const double average = total / static_cast<double>(shards);
  std::vector<double> load(s.size(), 0);
  for (size_t i = 0; i < s.size(); ++i) {
    for (uint32_t shard : s[i].shards) load[i] += weight(shard);
    if (s[i].local) load[i] += merge_share * total;
  }
  // Each move lowers the sum of the loads' squares (the receiver ends below the giver's old
  // load): no move repeats, and the bound only guards against a weight that changes.
  for (size_t round = 0; round < shards * s.size(); ++round) {
    const size_t from =
        static_cast<size_t>(std::max_element(load.begin(), load.end()) - load.begin());
    std::optional<ShardMove> best;
    for (size_t index = s[from].shards.size(); index-- > 0;) {
      const uint32_t shard = s[from].shards[index];
      // Asked once: a lease may end between two looks.
      const std::optional<uint64_t> applied =
          s[from].local ? led_here(shard) : std::optional<uint64_t>();
      if (s[from].local && !applied.has_value()) continue;
      const double w = weight(shard);
      for (size_t to = 0; to < s.size(); ++to) {
        if (to == from || s[to].local || !holds(shard, s[to].node)) continue;
        const ShardMove move{from,         index,  to, std::max(load[from] - w, load[to] + w),
                             load[to] + w, applied};
        if (!best.has_value() || move < *best) best = move;
      }
    }
    if (!best.has_value() || best->heavier > load[from] - average / 10) return;
    query::FragmentSite& giver = s[best->from];
    query::FragmentSite& taker = s[best->to];
    const uint32_t shard = giver.shards[best->index];
    if (giver.local) {
      taker.applied_at_least[shard] = *best->applied;
    } else if (auto it = giver.applied_at_least.find(shard); it != giver.applied_at_least.end()) {
      taker.applied_at_least[shard] = it->second;  // handed on again: it still holds
      giver.applied_at_least.erase(it);
    }
    taker.shards.push_back(shard);
    giver.shards.erase(giver.shards.begin() + static_cast<ptrdiff_t>(best->index));
    load[best->from] -= weight(shard);
    load[best->to] += weight(shard);
  }
}

}  // namespace strata::cluster
