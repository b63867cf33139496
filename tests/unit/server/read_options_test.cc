// The read choice's parts as the text front doors name them (server/runner/read_options.h)
// and the checks of a whole choice (query/base/read_choice.h).
#include "server/runner/read_options.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace strata {
namespace {

using std::chrono::milliseconds;

TEST(ReadOptionsTest, SetsEachPartOrSaysWhatItTakes) {
  struct Case {
    std::string name;
    std::string value;
    std::string error;  // empty: accepted
  };
  const std::vector<Case> cases = {
      {"read_consistency", "follower", ""},
      {"read_consistency", "STRONG", ""},
      {"read_consistency", "eventual", "use leader, strong or follower"},
      {"max_staleness_ms", "250", ""},
      {"max_staleness_ms", "0", "max_staleness_ms is a whole number from 1 to 3600000"},
      {"max_staleness_ms", "3600001", "from 1 to 3600000"},
      {"max_staleness_ms", "1s", "not \"1s\""},
      {"max_fragments", "64", ""},
      {"max_fragments", "65", "max_fragments is a whole number from 1 to 64"},
      {"hedge_after_ms", "50", ""},
      {"hedge_after_ms", "-1", "hedge_after_ms is a whole number from 1"},
      {"timeout_ms", "5", "is no read option"},
  };
  for (const Case& c : cases) {
    StatementRunner::Request request;
    absl::Status set = SetReadOption(c.name, c.value, &request);
    if (c.error.empty()) {
      EXPECT_TRUE(set.ok()) << c.name << "=" << c.value << ": " << set.message();
    } else {
      EXPECT_EQ(set.code(), absl::StatusCode::kInvalidArgument) << c.name << "=" << c.value;
      EXPECT_NE(std::string(set.message()).find(c.error), std::string::npos) << set.message();
    }
  }
  StatementRunner::Request request;
  ASSERT_TRUE(SetReadOption("read_consistency", "follower", &request).ok());
  ASSERT_TRUE(SetReadOption("max_staleness_ms", "250", &request).ok());
  ASSERT_TRUE(SetReadOption("max_fragments", "3", &request).ok());
  ASSERT_TRUE(SetReadOption("hedge_after_ms", "40", &request).ok());
  EXPECT_EQ(request.read_consistency, query::ReadConsistency::kFollower);
  EXPECT_EQ(request.max_staleness, milliseconds(250));
  EXPECT_EQ(request.max_fragments, 3);
  EXPECT_EQ(request.hedge_after, milliseconds(40));
  EXPECT_TRUE(IsReadOption("hedge_after_ms"));
  EXPECT_FALSE(IsReadOption("timeout_ms"));
}

TEST(ReadChoiceTest, ChecksEachPartsRange) {
  using query::ReadChoice;
  using query::ReadConsistency;
  struct Case {
    ReadChoice choice;
    std::string error;  // empty: valid
  };
  const std::vector<Case> cases = {
      {ReadChoice{}, ""},
      {ReadChoice{.consistency = ReadConsistency::kStrong}, ""},
      {ReadChoice{.consistency = ReadConsistency::kFollower, .max_staleness = milliseconds(1)}, ""},
      {ReadChoice{.consistency = ReadConsistency::kFollower}, "needs a max staleness from 1 ms"},
      {ReadChoice{.consistency = ReadConsistency::kFollower,
                  .max_staleness = milliseconds(3'600'001)},
       "it was 3600001 ms"},
      // A staleness bound is another choice's only: ignored by leader reads.
      {ReadChoice{.max_staleness = milliseconds(-1)}, ""},
      {ReadChoice{.max_fragments = 65}, "max fragments must be from 0 (the default) to 64"},
      {ReadChoice{.max_fragments = -1}, "it was -1"},
      {ReadChoice{.hedge_after = milliseconds(-1)}, "hedge after must be from 0 (never)"},
  };
  for (const Case& c : cases) {
    absl::Status checked = query::CheckReadChoice(c.choice);
    if (c.error.empty()) {
      EXPECT_TRUE(checked.ok()) << checked.message();
    } else {
      EXPECT_NE(std::string(checked.message()).find(c.error), std::string::npos)
          << checked.message();
    }
  }
  EXPECT_EQ(query::ReadConsistencyName(*query::ParseReadConsistency("Leader")), "leader");
}

}  // namespace
}  // namespace strata
