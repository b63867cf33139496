// Where a shard's log may be trimmed to (cluster/log_trimmer.h): below what every replica on
// a member node applied, joining ones included, keeping some entries; never while a member's
// replica cannot say.
#include "cluster/log_trimmer.h"

#include "gtest/gtest.h"

namespace strata::cluster {
namespace {

TEST(LogTrimmerTest, TrimPointIsBelowTheLowestAppliedOfTheMembersReplicas) {
  const ShardPlacement three{.replicas = {"a", "b", "c"}};
  const ShardPlacement moving{.replicas = {"a", "b", "c"}, .joining = "d", .leaving = "c"};
  const std::set<std::string> all = {"a", "b", "c", "d"};
  struct Case {
    std::string name;
    ShardPlacement placement;
    std::set<std::string> members;
    std::map<std::string, uint64_t> applied;
    uint64_t keep;
    std::optional<uint64_t> keep_from;
  };
  const std::vector<Case> cases = {
      {"the lowest replica rules", three, all, {{"a", 500}, {"b", 480}, {"c", 490}}, 10, 471},
      {"one entry kept: the one a restarted replica may apply again",
       three,
       all,
       {{"a", 500}, {"b", 480}, {"c", 490}},
       1,
       480},
      {"keep 0 counts as 1", three, all, {{"a", 500}, {"b", 480}, {"c", 490}}, 0, 480},
      {"more kept than applied: from the start", three, all, {{"a", 5}, {"b", 4}, {"c", 9}}, 10, 1},
      {"a member that did not answer holds the log",
       three,
       all,
       {{"a", 500}, {"b", 480}},
       10,
       std::nullopt},
      {"a node away does not", three, {"a", "b", "d"}, {{"a", 500}, {"b", 480}}, 10, 471},
      {"the joining replica counts",
       moving,
       all,
       {{"a", 500}, {"b", 480}, {"c", 490}, {"d", 100}},
       10,
       91},
      {"a joining replica being built (no answer) holds the log",
       moving,
       all,
       {{"a", 500}, {"b", 480}, {"c", 490}},
       10,
       std::nullopt},
      {"no replica on a member", three, {"d"}, {}, 10, std::nullopt},
      {"nothing applied anywhere", three, all, {{"a", 0}, {"b", 0}, {"c", 0}}, 10, 1},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(TrimPoint(c.placement, c.members, c.applied, c.keep), c.keep_from) << c.name;
  }
}

}  // namespace
}  // namespace strata::cluster
