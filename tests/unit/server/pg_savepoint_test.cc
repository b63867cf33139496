// The savepoint statements the PostgreSQL session answers (server/pg/savepoint.h): each
// spelling PostgreSQL takes, names folded unless quoted, others left to the engine.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "server/pg/savepoint.h"

namespace strata::pg {
namespace {

using Kind = SavepointStatement::Kind;

TEST(PgSavepointTest, EachSpellingAndItsName) {
  struct Case {
    std::string sql;
    Kind kind;
    std::string name;
  };
  for (const Case& c : std::vector<Case>{
           {"SAVEPOINT a", Kind::kSavepoint, "a"},
           {"savepoint _pg3_1;", Kind::kSavepoint, "_pg3_1"},
           {"SAVEPOINT " + std::string(63, 'n'), Kind::kSavepoint, std::string(63, 'n')},
           {"SAVEPOINT \"Mixed \"\"Case\"\"\"", Kind::kSavepoint, "Mixed \"Case\""},
           {"RELEASE SAVEPOINT Sp1", Kind::kRelease, "sp1"},
           {"release sp1", Kind::kRelease, "sp1"},
           {"ROLLBACK TO SAVEPOINT x", Kind::kRollbackTo, "x"},
           {"ROLLBACK TO x", Kind::kRollbackTo, "x"},
           {"rollback work to savepoint x", Kind::kRollbackTo, "x"},
           {"  ROLLBACK TRANSACTION\n TO y ; ", Kind::kRollbackTo, "y"},
       }) {
    const auto parsed = ParseSavepointStatement(c.sql);
    ASSERT_TRUE(parsed.has_value()) << c.sql;
    ASSERT_TRUE(parsed->ok()) << c.sql << ": " << parsed->status();
    EXPECT_EQ((*parsed)->kind, c.kind) << c.sql;
    EXPECT_EQ((*parsed)->name, c.name) << c.sql;
  }
}

TEST(PgSavepointTest, OtherStatementsAreNotSavepointsAndANameIsNeeded) {
  for (const std::string sql :
       {"ROLLBACK", "ROLLBACK WORK", "SELECT 1", "RELEASED x", "savepoints a", "COMMIT"}) {
    EXPECT_FALSE(ParseSavepointStatement(sql).has_value()) << sql;
  }
  // A name past PostgreSQL's 63 bytes is refused: the session keeps the names it is given.
  for (const std::string& sql : std::vector<std::string>{
           "SAVEPOINT", "RELEASE SAVEPOINT", "SAVEPOINT 1a", "SAVEPOINT a b", "ROLLBACK TO",
           "SAVEPOINT " + std::string(64, 'a'), "SAVEPOINT \"" + std::string(64, 'b') + "\"",
           "SAVEPOINT " + std::string(1 << 20, 'c')}) {
    const auto parsed = ParseSavepointStatement(sql);
    ASSERT_TRUE(parsed.has_value()) << sql;
    EXPECT_FALSE(parsed->ok()) << sql;
  }
}

}  // namespace
}  // namespace strata::pg
