#include "cluster/site_balance.h"

#include <algorithm>

namespace strata::cluster {

void BalanceSites(std::vector<query::FragmentSite>* sites,
                  const std::function<bool(uint32_t shard, const std::string& node)>& holds,
                  const std::function<std::optional<uint64_t>(uint32_t shard)>& led_here) {
  if (sites->size() < 2 || !sites->front().local) return;
  size_t total = 0, most = 0;
  for (const query::FragmentSite& site : *sites) {
    total += site.shards.size();
    most = std::max(most, site.shards.size());
  }
  if (total < 2 * sites->size()) return;
  const size_t keep = total / sites->size() - 1;
  query::FragmentSite& here = sites->front();
  while (here.shards.size() > keep) {
    // The other sites, fewest shards first; the first that can take one of ours does.
    std::vector<query::FragmentSite*> others;
    for (size_t i = 1; i < sites->size(); ++i) others.push_back(&(*sites)[i]);
    std::stable_sort(others.begin(), others.end(), [](const auto* a, const auto* b) {
      return a->shards.size() < b->shards.size();
    });
    bool moved = false;
    for (query::FragmentSite* to : others) {
      if (to->shards.size() + 1 > most) break;
      // Our last shard it can take.
      for (size_t i = here.shards.size(); i-- > 0;) {
        const uint32_t shard = here.shards[i];
        if (!holds(shard, to->node)) continue;
        const std::optional<uint64_t> applied = led_here(shard);
        if (!applied.has_value()) continue;
        to->shards.push_back(shard);
        to->applied_at_least[shard] = *applied;
        here.shards.erase(here.shards.begin() + static_cast<ptrdiff_t>(i));
        moved = true;
        break;
      }
      if (moved) break;
    }
    if (!moved) return;
  }
}

}  // namespace strata::cluster
