#include "client/statement_splitter.h"

#include "gtest/gtest.h"

namespace strata::cli {
namespace {

TEST(StatementSplitterTest, SplitsOnlyAtTopLevelSemicolons) {
  struct Case {
    std::vector<std::string> lines;
    std::vector<std::string> statements;
    bool pending_left;
  };
  for (const Case& c : std::vector<Case>{
           {{"SELECT 1;"}, {"SELECT 1"}, false},
           {{"SELECT", "  1;"}, {"SELECT\n  1"}, false},
           {{"SELECT 1; SELECT 2;"}, {"SELECT 1", "SELECT 2"}, false},
           {{"SELECT ';' AS s;"}, {"SELECT ';' AS s"}, false},
           {{"SELECT 'it''s;' AS s;"}, {"SELECT 'it''s;' AS s"}, false},
           {{"SELECT 1 AS \"a;b\";"}, {"SELECT 1 AS \"a;b\""}, false},
           {{"SELECT 1 -- a; comment", ";"}, {"SELECT 1 -- a; comment"}, false},
           {{"SELECT /* ; */ 1;"}, {"SELECT /* ; */ 1"}, false},
           {{"SELECT 1; SELECT"}, {"SELECT 1"}, true},
           {{";;", "  "}, {}, false},
           {{"SELECT 'open;"}, {}, true}}) {
    StatementSplitter splitter;
    for (const auto& line : c.lines) splitter.AddLine(line);
    EXPECT_EQ(splitter.TakeStatements(), c.statements) << c.lines[0];
    EXPECT_EQ(!splitter.empty(), c.pending_left) << c.lines[0];
  }
}

TEST(StatementSplitterTest, ClearDropsPendingText) {
  StatementSplitter splitter;
  splitter.AddLine("SELECT");
  splitter.Clear();
  EXPECT_TRUE(splitter.empty());
  splitter.AddLine("SELECT 2;");
  EXPECT_EQ(splitter.TakeStatements(), std::vector<std::string>{"SELECT 2"});
}

}  // namespace
}  // namespace strata::cli
