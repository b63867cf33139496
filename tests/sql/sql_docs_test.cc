// docs/sql.md's function reference must be the registry's, word for word.
#include <fstream>
#include <sstream>

#include "gtest/gtest.h"
#include "query/functions/functions.h"
#include "query/functions/window_functions.h"

namespace {

// The text of docs/sql.md between <!-- NAME:begin --> and <!-- NAME:end -->.
std::string Section(const std::string& name) {
  std::ifstream in(STRATA_SQL_DOC);
  EXPECT_TRUE(in) << STRATA_SQL_DOC;
  std::stringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  const std::string begin = "<!-- " + name + ":begin -->\n", end = "<!-- " + name + ":end -->";
  size_t from = doc.find(begin), to = doc.find(end);
  EXPECT_NE(from, std::string::npos) << begin;
  EXPECT_NE(to, std::string::npos) << end;
  if (from == std::string::npos || to == std::string::npos) return "";
  return doc.substr(from + begin.size(), to - from - begin.size());
}

}  // namespace

TEST(SqlDocsTest, FunctionReferenceMatchesTheRegistry) {
  EXPECT_EQ(Section("functions"), strata::query::FunctionReferenceMarkdown())
      << "docs/sql.md is out of date: regenerate the part between the markers with "
         "build/tests/sql_reference";
}

TEST(SqlDocsTest, WindowFunctionTableMatchesTheCode) {
  EXPECT_EQ(Section("window-functions"), strata::query::WindowFunctionReferenceMarkdown())
      << "docs/sql.md is out of date: regenerate the part between the markers with "
         "build/tests/sql_reference window";
}
