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
};

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
      {"not through a node reading any shard: nothing to spare",
       {Site("n1", {1, 4, 7, 10, 13, 0, 3}), Site("n2", {2, 5, 8, 11, 14})},
       all,
       {},
       {{"n1", {1, 4, 7, 10, 13, 0, 3}}, {"n2", {2, 5, 8, 11, 14}}}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::vector<query::FragmentSite> sites = c.sites;
    BalanceSites(
        &sites,
        [&c](uint32_t shard, const std::string& node) {
          auto it = c.lacks.find(node);
          return it == c.lacks.end() || !it->second.contains(shard);
        },
        [&c](uint32_t shard) -> std::optional<uint64_t> {
          if (!c.led_here.contains(shard)) return std::nullopt;
          return 100 + shard;
        });
    EXPECT_EQ(ShardsBySite(sites), c.want);
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
