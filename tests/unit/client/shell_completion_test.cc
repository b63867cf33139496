// The shell's Tab offers what fits where the cursor is: databases after USE,
// tables after FROM / JOIN / DESCRIBE, keywords, functions (with their "(")
// and columns elsewhere.
#include "client/shell_completion.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace strata::cli {
namespace {

using ::testing::ElementsAre;
using ::testing::Contains;
using ::testing::Not;

ShellCompletion Make() {
  ShellCompletion completion([](const std::string& sql) -> std::vector<std::vector<std::string>> {
    if (sql == "SHOW DATABASES") return {{"metrics"}, {"mydb"}};
    if (sql == "SHOW TABLES") return {{"metrics", "cpu"}, {"mydb", "cpu_1m"}, {"mydb", "mem"}};
    if (sql.rfind("DESCRIBE", 0) == 0) return {{"host"}, {"measure_name"}, {"cpu_user"}};
    return {};
  });
  completion.Reset("mydb");
  return completion;
}

TEST(ShellCompletionTest, AfterUseOnlyDatabases) {
  ShellCompletion c = Make();
  EXPECT_THAT(c.Complete("m", "USE "), ElementsAre("metrics", "mydb"));
  EXPECT_THAT(c.Complete("", "use  "), ElementsAre("metrics", "mydb"));
}

TEST(ShellCompletionTest, AfterFromJoinAndDescribeOnlyTables) {
  ShellCompletion c = Make();
  EXPECT_THAT(c.Complete("c", "SELECT * FROM "), ElementsAre("cpu_1m"));  // the USE database's
  EXPECT_THAT(c.Complete("my", "SELECT a FROM x JOIN "), ElementsAre("mydb.cpu_1m", "mydb.mem"));
  EXPECT_THAT(c.Complete("metrics.", "describe "), ElementsAre("metrics.cpu"));
  EXPECT_THAT(c.Complete("co", "SELECT * FROM "), ElementsAre());  // no function after FROM
}

TEST(ShellCompletionTest, ElsewhereKeywordsFunctionsAndColumns) {
  ShellCompletion c = Make();
  EXPECT_THAT(c.Complete("cou", "SELECT "), ElementsAre("count(", "count_if("));
  EXPECT_THAT(c.Complete("cpu", "SELECT "), ElementsAre("cpu_1m", "cpu_user"));
  EXPECT_THAT(c.Complete("sel", ""), ElementsAre("select"));
  EXPECT_THAT(c.Complete("SEL", ""), ElementsAre("SELECT"));
  EXPECT_THAT(c.Complete("h", "SELECT avg(x), "), Contains("host"));
  EXPECT_THAT(c.Complete("m", "SELECT "), Not(Contains("mydb")));  // a database alone is no value
}

}  // namespace
}  // namespace strata::cli
