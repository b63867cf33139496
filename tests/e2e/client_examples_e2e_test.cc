// The Python and Node examples of client/, run against the real server: the
// .proto files alone must be enough for another language.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/stratad_process.h"
#include "tests/support/subprocess.h"

namespace strata {
namespace {

using ::testing::HasSubstr;

// The first `name` on PATH, or "".
std::string FindOnPath(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    std::string candidate = dir + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

class ClientExamplesE2ETest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(server_.Start()) << server_.error(); }

  // What both examples print for the default ten hosts.
  void ExpectExampleOutput(const testing::ProcessResult& r, const std::string& last_row) {
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_THAT(r.out, HasSubstr("ingested 10 records, 0 rejected"));
    EXPECT_THAT(r.out, HasSubstr("columns host, region, usage, procs"));
    EXPECT_THAT(r.out, HasSubstr("page of 4 rows"));
    EXPECT_THAT(r.out, HasSubstr("page of 2 rows"));
    EXPECT_THAT(r.out, HasSubstr(last_row));
    EXPECT_THAT(r.out, HasSubstr("rows returned: 10, scanned: 10"));
  }

  testing::StratadProcess server_;
};

TEST_F(ClientExamplesE2ETest, Python) {
  testing::ProcessResult r = testing::RunProcess(
      {"/usr/bin/python3", std::string(STRATA_SOURCE_DIR) + "/client/python/strata_example.py",
       "--port", std::to_string(server_.port())},
      "", {std::string("PYTHONPATH=") + STRATA_PYTHON_STUBS});
  ExpectExampleOutput(r, "host=web-9 region=eu-west usage=19.0 procs=109");
}

TEST_F(ClientExamplesE2ETest, Node) {
  std::string node = FindOnPath("node");
  std::string example_dir = std::string(STRATA_SOURCE_DIR) + "/client/node";
  if (node.empty()) GTEST_SKIP() << "node is not installed";
  if (!std::filesystem::exists(example_dir + "/node_modules/@grpc/grpc-js")) {
    GTEST_SKIP() << "run `npm ci` in client/node first (scripts/test.sh does)";
  }
  testing::ProcessResult r = testing::RunProcess(
      {node, example_dir + "/example.js", "--port", std::to_string(server_.port())});
  ExpectExampleOutput(r, "host=web-9 region=eu-west usage=19 procs=109");
}

}  // namespace
}  // namespace strata
