// The Python and Node examples of client/, run against the real server: the
// .proto files alone must be enough for another language.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/stratad_process.h"
#include "tests/support/subprocess.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_certs.h"

namespace strata {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

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

  // Runs client/node/example.js against the server with `env`; sets `skipped`
  // when node or the example's packages are missing.
  testing::ProcessResult RunNodeExample(const std::vector<std::string>& env, std::string* skipped) {
    const std::string node = testing::FindOnPath("node");
    const std::string example_dir = std::string(STRATA_SOURCE_DIR) + "/client/node";
    if (node.empty()) {
      *skipped = "node is not installed";
      return {};
    }
    if (!std::filesystem::exists(example_dir + "/node_modules/@grpc/grpc-js")) {
      *skipped = "run `npm ci` in client/node first (scripts/test.sh does)";
      return {};
    }
    return testing::RunProcess(
        {node, example_dir + "/example.js", "--port", std::to_string(server_.port())}, "", env);
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
  std::string skipped;
  testing::ProcessResult r = RunNodeExample({}, &skipped);
  if (!skipped.empty()) GTEST_SKIP() << skipped;
  ExpectExampleOutput(r, "host=web-9 region=eu-west usage=19 procs=109");
}

// Both examples against a server with TLS and tokens, configured through
// STRATA_TLS_CA and STRATA_TOKEN as docs/security.md says.
class SecureClientExamplesE2ETest : public ClientExamplesE2ETest {
 protected:
  void SetUp() override {
    ASSERT_TRUE(certs_.ok()) << certs_.error();
    ASSERT_TRUE(server_.StartWithTls(certs_)) << server_.error();
    const std::string admin = server_.AdminToken();
    env_ = {"STRATA_TLS_CA=" + certs_.ca_cert(), "STRATA_TOKEN=" + admin};
  }

  testing::TestCerts certs_;
  std::vector<std::string> env_;
};

TEST_F(SecureClientExamplesE2ETest, Python) {
  std::vector<std::string> env = env_;
  env.push_back(std::string("PYTHONPATH=") + STRATA_PYTHON_STUBS);
  testing::ProcessResult r = testing::RunProcess(
      {"/usr/bin/python3", std::string(STRATA_SOURCE_DIR) + "/client/python/strata_example.py",
       "--port", std::to_string(server_.port())},
      "", env);
  ExpectExampleOutput(r, "host=web-9 region=eu-west usage=19.0 procs=109");
  // Without the token: refused, and the example says so.
  testing::ProcessResult refused = testing::RunProcess(
      {"/usr/bin/python3", std::string(STRATA_SOURCE_DIR) + "/client/python/strata_example.py",
       "--port", std::to_string(server_.port()), "--token", ""},
      "", env);
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_THAT(refused.err, HasSubstr("UNAUTHENTICATED"));
}

TEST_F(SecureClientExamplesE2ETest, Node) {
  std::string skipped;
  testing::ProcessResult r = RunNodeExample(env_, &skipped);
  if (!skipped.empty()) GTEST_SKIP() << skipped;
  ExpectExampleOutput(r, "host=web-9 region=eu-west usage=19 procs=109");
}

// The Node package (client/node, @strata/client): its node:test suite against
// the real server.
TEST_F(ClientExamplesE2ETest, NodePackage) {
  const std::string node = testing::FindOnPath("node");
  const std::string dir = std::string(STRATA_SOURCE_DIR) + "/client/node";
  ASSERT_FALSE(node.empty()) << "node is not installed (scripts/deps.sh installs it)";
  ASSERT_TRUE(std::filesystem::exists(dir + "/node_modules/@grpc/grpc-js"))
      << "run `npm ci` in client/node (scripts/test.sh does)";
  testing::ProcessResult r =
      testing::RunProcess({node, "--test", dir + "/test/"}, "",
                          {"STRATA_PORT=" + std::to_string(server_.port())},
                          std::chrono::seconds(90));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("# pass 11"));
  EXPECT_THAT(r.out, HasSubstr("# fail 0"));
}

// The Node package installed the way its README says, into another project
// from a copy of client/node without node_modules (a clean checkout): npm
// brings its dependencies (from its cache, filled by `npm ci`, or the
// registry), and the package reaches the server.
TEST_F(ClientExamplesE2ETest, NodePackageInstallsIntoAnotherProjectFromACleanCopy) {
  const std::string node = testing::FindOnPath("node"), npm = testing::FindOnPath("npm");
  ASSERT_FALSE(node.empty() || npm.empty()) << "node and npm are installed by scripts/deps.sh";
  testing::TempDir dir;
  const std::filesystem::path package = dir.path() / "strata-node", app = dir.path() / "app";
  std::filesystem::create_directories(package);
  for (const auto& entry : std::filesystem::directory_iterator(std::string(STRATA_SOURCE_DIR) +
                                                                "/client/node")) {
    if (entry.path().filename() == "node_modules") continue;
    std::filesystem::copy(entry.path(), package / entry.path().filename(),
                          std::filesystem::copy_options::recursive);
  }
  std::filesystem::create_directories(app);
  std::ofstream(app / "package.json") << R"({"name": "app", "version": "1.0.0", "private": true})";
  testing::ProcessResult install = testing::RunProcess(
      {"/bin/sh", "-c",
       "cd '" + app.string() + "' && '" + npm +
           "' install --install-links --prefer-offline --no-audit --no-fund ../strata-node"},
      "", {}, std::chrono::seconds(180));
  ASSERT_EQ(install.exit_code, 0) << install.out << install.err;
  std::ofstream(app / "count.js") << R"js(const { Client } = require('@strata/client');
const client = new Client(process.argv[2]);
(async () => {
  await client.createDatabase('installed', { ifNotExists: true });
  const dbs = await client.query('SHOW DATABASES').all();
  console.log(JSON.stringify(dbs));
  client.close();
})().catch((e) => { console.error(e); process.exit(1); });
)js";
  testing::ProcessResult r = testing::RunProcess(
      {node, (app / "count.js").string(), "127.0.0.1:" + std::to_string(server_.port())});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("[[\"installed\"]]"));
}

// The server restarts while the Node Writer writes: it retries, and every
// record is stored exactly once.
TEST_F(ClientExamplesE2ETest, NodePackageWriterRetriesThroughARestart) {
  const std::string node = testing::FindOnPath("node");
  ASSERT_FALSE(node.empty()) << "node is not installed (scripts/deps.sh installs it)";
  testing::PtyProcess writer({node, std::string(STRATA_SOURCE_DIR) + "/client/node/e2e/restart_writer.mjs",
                              std::to_string(server_.port())});
  ASSERT_TRUE(writer.WaitFor("writing while the server restarts")) << writer.output();
  EXPECT_EQ(server_.Stop(), 0);
  ASSERT_TRUE(server_.Restart()) << server_.error();
  EXPECT_EQ(writer.Wait(std::chrono::seconds(60)), 0) << writer.output();
  EXPECT_THAT(writer.output(), HasSubstr("written 10000, rejected 0"));
  EXPECT_THAT(writer.output(), HasSubstr("stored 10000 10000 49995000"));
  EXPECT_THAT(writer.output(), Not(HasSubstr("retries 0\r\n")));
}

// The Python package (client/python), installed the way its README says:
// pip into a virtual environment that sees Debian's grpcio, protobuf and
// pandas, without the network. Made once for the tests below.
class PythonPackageE2ETest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    venv_ = new testing::TempDir();
    const std::string dir = venv_->Sub("venv");
    testing::ProcessResult made =
        testing::RunProcess({"/usr/bin/python3", "-m", "venv", "--system-site-packages", dir});
    ASSERT_EQ(made.exit_code, 0) << made.out << made.err;
    // From a copy: pip builds in the source directory it is given.
    const std::string source = venv_->Sub("client-python");
    std::filesystem::copy(std::string(STRATA_SOURCE_DIR) + "/client/python", source,
                          std::filesystem::copy_options::recursive);
    testing::ProcessResult installed = testing::RunProcess(
        {dir + "/bin/pip", "install", "--quiet", "--no-index", "--no-build-isolation", source},
        "", {"PIP_DISABLE_PIP_VERSION_CHECK=1", "HOME=" + venv_->path().string()},
        std::chrono::seconds(120));
    ASSERT_EQ(installed.exit_code, 0) << installed.out << installed.err;
    python_ = dir + "/bin/python";
  }
  static void TearDownTestSuite() { delete venv_; }
  void SetUp() override {
    ASSERT_FALSE(python_.empty()) << "the package did not install";
    ASSERT_TRUE(server_.Start()) << server_.error();
  }
  static std::string Script() { return std::string(STRATA_SOURCE_DIR) + "/client/python/tests/e2e_client.py"; }

  static testing::TempDir* venv_;
  static std::string python_;
  testing::StratadProcess server_;
};
testing::TempDir* PythonPackageE2ETest::venv_ = nullptr;
std::string PythonPackageE2ETest::python_;

TEST_F(PythonPackageE2ETest, CatalogWritesTypesDataFramesPagesAndCancel) {
  // From another directory, so `import strata` finds the installed package.
  testing::ProcessResult r = testing::RunProcess(
      {"/bin/sh", "-c", "cd / && exec \"$0\" \"$1\" \"$2\"", python_, Script(),
       std::to_string(server_.port())});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("ok requests of 1,000"));
  EXPECT_THAT(r.out, HasSubstr("ok bulk rejected position"));
  EXPECT_THAT(r.out, HasSubstr("ok pandas.Timestamp keeps ns"));
  EXPECT_THAT(r.out, HasSubstr("all checks passed"));
}

// The server restarts while the writer writes: it retries UNAVAILABLE and
// every record is stored exactly once (a retried request is a no-op where it
// had already been applied).
TEST_F(PythonPackageE2ETest, AWriterRetriesThroughARestartWithNothingLostOrDoubled) {
  testing::PtyProcess writer({python_, Script(), std::to_string(server_.port()),
                              "--restart-after-marker"});
  ASSERT_TRUE(writer.WaitFor("writing while the server restarts")) << writer.output();
  EXPECT_EQ(server_.Stop(), 0);
  ASSERT_TRUE(server_.Restart()) << server_.error();
  EXPECT_EQ(writer.Wait(std::chrono::seconds(60)), 0) << writer.output();
  EXPECT_THAT(writer.output(), HasSubstr("ok stored once each"));
  EXPECT_THAT(writer.output(), Not(HasSubstr("retries 0\r\n")));
}

}  // namespace
}  // namespace strata
