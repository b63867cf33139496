// docs/sql.md's function reference must be the registry's, word for word.
#include <fstream>
#include <sstream>

#include "gtest/gtest.h"
#include "query/functions.h"

TEST(SqlDocsTest, FunctionReferenceMatchesTheRegistry) {
  std::ifstream in(STRATA_SQL_DOC);
  ASSERT_TRUE(in) << STRATA_SQL_DOC;
  std::stringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  const std::string begin = "<!-- functions:begin -->\n", end = "<!-- functions:end -->";
  size_t from = doc.find(begin), to = doc.find(end);
  ASSERT_NE(from, std::string::npos);
  ASSERT_NE(to, std::string::npos);
  EXPECT_EQ(doc.substr(from + begin.size(), to - from - begin.size()),
            strata::query::FunctionReferenceMarkdown())
      << "docs/sql.md is out of date: regenerate the part between the markers with "
         "build/tests/sql_reference";
}
