// Runs the SQL-logic golden files in tests/sql/ (format: tests/sql/README.md)
// against the engine in-process, with a manual clock.
#include <string>

#include "gtest/gtest.h"
#include "tests/sql/in_process_backend.h"
#include "tests/sql/sql_logic_runner.h"

namespace strata {
namespace {

class SqlLogicTest : public ::testing::TestWithParam<std::string> {};

TEST_P(SqlLogicTest, Run) {
  testing::InProcess backend;
  testing::RunSqlLogicFile(std::string(STRATA_SQL_TEST_DIR) + "/" + GetParam(), GetParam(),
                           backend);
}

INSTANTIATE_TEST_SUITE_P(Sql, SqlLogicTest,
                         ::testing::ValuesIn(testing::SqlLogicFiles(STRATA_SQL_TEST_DIR)),
                         [](const auto& info) { return testing::SqlLogicTestName(info.param); });

}  // namespace
}  // namespace strata
