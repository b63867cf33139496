// BalanceSites (cluster/site_balance.h): the coordinating node hands shards it leads to the
// sites reading the fewest, never past the most any site read, down to one share less than
// an even split; each handed shard carries what the leader had applied.
#include "cluster/site_balance.h"

#include <map>
#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace strata::cluster {
namespace {

query::FragmentSite Site(std::string node, std::vector<uint32_t> shards, bool local = false) {
  return {.node = std::move(node), .local = local, .shards = std::move(shards)};
}

std::map<std::string, std::vector<uint32_t>> ShardsBySite(
    const std::vector<query::FragmentSite>& sites) {
  std::map<std::string, std::vector<uint32_t>> out;
  for (const query::FragmentSite& s : sites) out[s.node] = s.shards;
  return out;
}

struct Case {
  std::string name;
  std::vector<query::FragmentSite> sites;
  std::set<uint32_t> led_here;                      // what "here" leads under its lease
  std::map<std::string, std::set<uint32_t>> lacks;  // shards a node holds no replica of
  std::map<std::string, std::vector<uint32_t>> want;
  std::map<uint32_t, double> weights;  // a shard not named weighs 1
};

// Each site's load as BalanceSites counts it: its shards' weights, the coordinator's merge.
constexpr double kMerge = 0.125;  // the coordinator's merge: an eighth of the whole read

std::map<std::string, double> Loads(const std::vector<query::FragmentSite>& sites,
                                    const std::map<uint32_t, double>& weights) {
  double total = 0;
  auto weight = [&](uint32_t s) { return weights.contains(s) ? weights.at(s) : 1.0; };
  for (const query::FragmentSite& site : sites) {
    for (uint32_t s : site.shards) total += weight(s);
  }
  std::map<std::string, double> out;
  for (const query::FragmentSite& site : sites) {
    double& load = out[site.node];
    for (uint32_t s : site.shards) load += weight(s);
    if (site.local) load += kMerge * total;
  }
  return out;
}

double Heaviest(const std::map<std::string, double>& loads) {
  double most = 0;
  for (const auto& [node, load] : loads) most = std::max(most, load);
  return most;
}

TEST(SiteBalanceTest, TheCoordinatorHandsOverShardsItLeads) {
  const std::set<uint32_t> all = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
  const std::vector<Case> cases = {
      {"16 shards over three: 6/5/5 becomes 4/6/6",
       {Site("n0", {0, 3, 6, 9, 12, 15}, true), Site("n1", {1, 4, 7, 10, 13}),
        Site("n2", {2, 5, 8, 11, 14})},
       all,
       {},
       {{"n0", {0, 3, 6, 9}}, {"n1", {1, 4, 7, 10, 13, 15}}, {"n2", {2, 5, 8, 11, 14, 12}}}},
      {"3/3/2 becomes 2/3/3",
       {Site("n0", {0, 3, 6}, true), Site("n1", {1, 4, 7}), Site("n2", {2, 5})},
       all,
       {},
       {{"n0", {0, 3}}, {"n1", {1, 4, 7}}, {"n2", {2, 5, 6}}}},
      {"fewer than two shards a site: a small read stays",
       {Site("n0", {0, 3}, true), Site("n1", {1})},
       all,
       {},
       {{"n0", {0, 3}}, {"n1", {1}}}},
      {"only shards led here under a lease move",
       {Site("n0", {0, 3, 6, 9, 12, 15}, true), Site("n1", {1, 4, 7, 10, 13}),
        Site("n2", {2, 5, 8, 11, 14})},
       {0, 3, 6, 9},
       {},
       {{"n0", {0, 3, 12, 15}}, {"n1", {1, 4, 7, 10, 13, 9}}, {"n2", {2, 5, 8, 11, 14, 6}}}},
      // n1 takes 9 (not 15 or 12); n2 can take none, and n1 a second would read past six.
      {"a node without a replica of a shard is not handed it",
       {Site("n0", {0, 3, 6, 9, 12, 15}, true), Site("n1", {1, 4, 7, 10, 13}),
        Site("n2", {2, 5, 8, 11, 14})},
       all,
       {{"n1", {12, 15}}, {"n2", {0, 3, 6, 9, 12, 15}}},
       {{"n0", {0, 3, 6, 12, 15}}, {"n1", {1, 4, 7, 10, 13, 9}}, {"n2", {2, 5, 8, 11, 14}}}},
      // Another leader's shard moves too (the taker asks that leader what it applied).
      {"not through a node reading any shard: the others even out",
       {Site("n1", {1, 4, 7, 10, 13, 0, 3}), Site("n2", {2, 5, 8, 11, 14})},
       all,
       {},
       {{"n1", {1, 4, 7, 10, 13, 0}}, {"n2", {2, 5, 8, 11, 14, 3}}}},
      // n2's 5 (weight 5) goes to n1, then n1's 3 to n2: 2+2 / 2 / 10 become 2+2 / 6 / 6.
      {"shards weigh what they hold: a heavy site gives to a light one",
       {Site("n0", {0, 1}, true), Site("n1", {2, 3}), Site("n2", {4, 5})},
       all,
       {},
       {{"n0", {0, 1}}, {"n1", {2, 5}}, {"n2", {4, 3}}},
       {{4, 5.0}, {5, 5.0}}},
      // 200 hosts hashed to 16 shards (xxHash of host_0 .. host_199), preferred leaders i % 3.
      {"200 hosts over 16 shards: 71+25 / 58 / 71 hosts become 49+25 / 72 / 79",
       {Site("n0", {0, 3, 6, 9, 12, 15}, true), Site("n1", {1, 4, 7, 10, 13}),
        Site("n2", {2, 5, 8, 11, 14})},
       all,
       {},
       {{"n0", {3, 6, 9, 15}}, {"n1", {1, 4, 7, 10, 13, 12}}, {"n2", {2, 5, 8, 11, 14, 0}}},
       {{0, 8},
        {1, 12},
        {2, 12},
        {3, 12},
        {4, 6},
        {5, 19},
        {6, 14},
        {7, 13},
        {8, 11},
        {9, 14},
        {10, 10},
        {11, 15},
        {12, 14},
        {13, 17},
        {14, 14},
        {15, 9}}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::vector<query::FragmentSite> sites = c.sites;
    BalanceSites(
        &sites, kMerge,
        [&c](uint32_t shard) { return c.weights.contains(shard) ? c.weights.at(shard) : 1.0; },
        [&c](uint32_t shard, const std::string& node) {
          auto it = c.lacks.find(node);
          return it == c.lacks.end() || !it->second.contains(shard);
        },
        [&c](uint32_t shard) -> std::optional<uint64_t> {
          if (!c.led_here.contains(shard)) return std::nullopt;
          return 100 + shard;
        });
    EXPECT_EQ(ShardsBySite(sites), c.want);
    EXPECT_LE(Heaviest(Loads(sites, c.weights)), Heaviest(Loads(c.sites, c.weights)));
    for (const query::FragmentSite& site : sites) {
      for (uint32_t shard : site.shards) {
        const bool handed = !site.local && c.sites.front().local &&
                            std::find(c.sites.front().shards.begin(), c.sites.front().shards.end(),
                                      shard) != c.sites.front().shards.end();
        auto it = site.applied_at_least.find(shard);
        if (handed) {
          ASSERT_NE(it, site.applied_at_least.end()) << site.node << " shard " << shard;
          EXPECT_EQ(it->second, 100 + shard);
        } else {
          EXPECT_EQ(it, site.applied_at_least.end()) << site.node << " shard " << shard;
        }
      }
    }
  }
}

}  // namespace
}  // namespace strata::cluster
