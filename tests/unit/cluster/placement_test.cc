// Shard placement values and the controller's planning (cluster/placement.h): pure
// functions, checked value by value.
#include "cluster/placement.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

namespace strata::cluster {
namespace {

using Nodes = std::vector<std::string>;

std::map<std::string, size_t> Load(const std::vector<ShardPlacement>& placement) {
  std::map<std::string, size_t> load;
  for (const ShardPlacement& shard : placement) {
    for (const std::string& node : shard.replicas) ++load[node];
  }
  return load;
}

// Plans and finishes moves until none is left; each round at most `per_round` moves.
std::vector<ShardPlacement> Settle(std::vector<ShardPlacement> placement, const Nodes& nodes,
                                   size_t replicas, size_t per_round, int* rounds) {
  for (*rounds = 0; *rounds < 100; ++*rounds) {
    const std::vector<Move> moves = PlanMoves(placement, nodes, replicas, per_round);
    if (moves.empty()) break;
    EXPECT_LE(moves.size(), per_round);
    for (const Move& move : moves) {
      EXPECT_FALSE(placement[move.shard].moving());
      placement[move.shard] = FinishMove(BeginMove(placement[move.shard], move));
    }
  }
  return placement;
}

TEST(PlacementTest, EncodesAndDecodes) {
  const std::vector<std::pair<ShardPlacement, std::string>> cases = {
      {{{"a", "b", "c"}, "", ""}, "replicas=a,b,c"},
      {{{"a", "b", "c"}, "d", "c"}, "replicas=a,b,c;joining=d;leaving=c"},
      {{{"a", "b"}, "d", ""}, "replicas=a,b;joining=d"},
      {{{}, "", ""}, "replicas="},
  };
  for (const auto& [placement, text] : cases) {
    EXPECT_EQ(EncodePlacement(placement), text);
    std::optional<ShardPlacement> decoded = DecodePlacement(text);
    ASSERT_TRUE(decoded.has_value()) << text;
    EXPECT_EQ(*decoded, placement) << text;
  }
}

TEST(PlacementTest, RefusesWhatItDidNotWrite) {
  for (const char* text : {"", "a,b,c", "replicas=a;joining=b;leaving=c", "replicas=a;leaving=a",
                           "replicas=a,b;joining=a", "replicas=a;color=blue", "replicas",
                           "replicas=a,b,a"}) {
    EXPECT_FALSE(DecodePlacement(text).has_value()) << text;
  }
}

TEST(PlacementTest, HoldsAndServes) {
  const ShardPlacement moving{{"a", "b", "c"}, "d", "c"};
  EXPECT_TRUE(moving.Serves("c"));
  EXPECT_FALSE(moving.Serves("d"));
  EXPECT_TRUE(moving.Holds("d"));
  EXPECT_FALSE(moving.Holds("e"));
  EXPECT_EQ(FinishMove(moving), (ShardPlacement{{"a", "b", "d"}, "", ""}));
  EXPECT_EQ(FinishMove(ShardPlacement{{"a", "b"}, "d", ""}),
            (ShardPlacement{{"a", "b", "d"}, "", ""}));
}

TEST(PlacementTest, InitialPlacementWrapsAround) {
  const std::vector<ShardPlacement> placement =
      InitialPlacement(4, {"a", "b", "c", "d"}, kDefaultShardReplicas);
  EXPECT_EQ(placement[0].replicas, (Nodes{"a", "b", "c"}));
  EXPECT_EQ(placement[3].replicas, (Nodes{"d", "a", "b"}));
  EXPECT_EQ(InitialPlacement(2, {"a", "b"}, kDefaultShardReplicas)[1].replicas, (Nodes{"b", "a"}));
  EXPECT_EQ(InitialPlacement(4, {"a", "b", "c"}, 1)[2].replicas, (Nodes{"c"}));
  EXPECT_EQ(InitialPlacement(4, {"a", "b", "c"}, 2)[2].replicas, (Nodes{"c", "a"}));
}

TEST(PlacementTest, BalancedPlacementPlansNothing) {
  EXPECT_TRUE(PlanMoves(InitialPlacement(16, {"a", "b", "c"}, kDefaultShardReplicas),
                        {"a", "b", "c"}, kDefaultShardReplicas, 2)
                  .empty());
  EXPECT_TRUE(PlanMoves(InitialPlacement(16, {"a", "b", "c", "d", "e"}, kDefaultShardReplicas),
                        {"a", "b", "c", "d", "e"}, kDefaultShardReplicas, 2)
                  .empty());
}

TEST(PlacementTest, SpreadsOntoAnAddedNodeAndEmptiesARemovedOne) {
  struct Case {
    const char* name;
    Nodes before;
    Nodes after;
    size_t replicas = kDefaultShardReplicas;
  };
  const std::vector<Case> cases = {
      {"add one to three", {"a", "b", "c"}, {"a", "b", "c", "d"}},
      {"add two to three", {"a", "b", "c"}, {"a", "b", "c", "d", "e"}},
      {"remove one of four", {"a", "b", "c", "d"}, {"a", "b", "c"}},
      {"replace one", {"a", "b", "c"}, {"a", "b", "d"}},
      {"remove two of five", {"a", "b", "c", "d", "e"}, {"b", "d", "e"}},
      {"one replica: add one to three", {"a", "b", "c"}, {"a", "b", "c", "d"}, 1},
      {"one replica: remove one of three", {"a", "b", "c"}, {"a", "c"}, 1},
      {"two replicas: add two to three", {"a", "b", "c"}, {"a", "b", "c", "d", "e"}, 2},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    int rounds = 0;
    const std::vector<ShardPlacement> settled =
        Settle(InitialPlacement(16, c.before, c.replicas), c.after, c.replicas, 2, &rounds);
    EXPECT_LT(rounds, 100);
    const std::map<std::string, size_t> load = Load(settled);
    size_t low = SIZE_MAX, high = 0;
    for (const std::string& node : c.after) {
      low = std::min(low, load.contains(node) ? load.at(node) : 0);
      high = std::max(high, load.contains(node) ? load.at(node) : 0);
    }
    EXPECT_LE(high - low, 1u);
    for (const auto& [node, count] : load) {
      EXPECT_NE(std::find(c.after.begin(), c.after.end(), node), c.after.end())
          << node << " still holds " << count;
    }
    for (const ShardPlacement& shard : settled) {
      EXPECT_EQ(shard.replicas.size(), c.replicas);
      std::set<std::string> distinct(shard.replicas.begin(), shard.replicas.end());
      EXPECT_EQ(distinct.size(), c.replicas);
    }
  }
}

TEST(PlacementTest, MovesInFlightCountAgainstTheLimit) {
  std::vector<ShardPlacement> placement =
      InitialPlacement(16, {"a", "b", "c"}, kDefaultShardReplicas);
  placement[0] = BeginMove(placement[0], {0, "a", "d"});
  placement[1] = BeginMove(placement[1], {1, "b", "d"});
  EXPECT_TRUE(PlanMoves(placement, {"a", "b", "c", "d"}, kDefaultShardReplicas, 2).empty());
  const std::vector<Move> one =
      PlanMoves(placement, {"a", "b", "c", "d"}, kDefaultShardReplicas, 3);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].to, "d");
  EXPECT_GT(one[0].shard, 1u);  // never a shard already moving
}

TEST(PlacementTest, DropsCopiesOverTheCount) {
  // Every node held every shard (no --cluster-nodes): four copies, one too many.
  std::vector<ShardPlacement> placement(4, ShardPlacement{{"a", "b", "c", "d"}, "", ""});
  int rounds = 0;
  const std::vector<ShardPlacement> settled =
      Settle(placement, {"a", "b", "c", "d"}, kDefaultShardReplicas, 2, &rounds);
  const std::map<std::string, size_t> load = Load(settled);
  for (const auto& [node, count] : load) EXPECT_EQ(count, 3u) << node;
  for (const ShardPlacement& shard : settled) EXPECT_EQ(shard.replicas.size(), 3u);
  // And a node taken off the list of such a cluster loses its copies without a move.
  const std::vector<Move> moves = PlanMoves(placement, {"a", "b", "c"}, kDefaultShardReplicas, 2);
  ASSERT_EQ(moves.size(), 2u);
  EXPECT_EQ(moves[0], (Move{0, "d", ""}));
  EXPECT_EQ(BeginMove(placement[0], moves[0]), (ShardPlacement{{"a", "b", "c"}, "", ""}));
}

TEST(PlacementTest, FillsAShardShortOfReplicas) {
  std::vector<ShardPlacement> placement =
      InitialPlacement(2, {"a", "b", "c"}, kDefaultShardReplicas);
  placement[1].replicas = {"a", "b"};
  const std::vector<Move> moves = PlanMoves(placement, {"a", "b", "c"}, kDefaultShardReplicas, 2);
  ASSERT_EQ(moves.size(), 1u);
  EXPECT_EQ(moves[0], (Move{1, "", "c"}));
}

}  // namespace
}  // namespace strata::cluster
