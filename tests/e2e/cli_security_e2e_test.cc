// The `strata` CLI against a stratad with TLS and tokens on: connection
// flags and environment, `strata token ...`, and what a refused call prints.
#include <fstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/stratad_process.h"
#include "tests/support/subprocess.h"
#include "tests/support/test_certs.h"

namespace strata {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::ProcessResult;
using testing::RunProcess;

class CliSecurityE2ETest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(certs_.ok()) << certs_.error();
    ASSERT_TRUE(server_.StartWithTls(certs_, {"--auth-failure-limit", "0"})) << server_.error();
    admin_ = server_.AdminToken();
  }

  // `strata` with the server's port and `env` ("NAME=value").
  ProcessResult Cli(const std::vector<std::string>& args, std::vector<std::string> env = {}) {
    std::vector<std::string> argv = {STRATA_CLI_PATH, "--port", std::to_string(server_.port())};
    argv.insert(argv.end(), args.begin(), args.end());
    env.push_back("HOME=" + certs_.dir().path().string());
    return RunProcess(argv, "", env);
  }

  // As the admin, over TLS, configured through the environment.
  ProcessResult Admin(const std::vector<std::string>& args) {
    return Cli(args, {"STRATA_TOKEN=" + admin_, "STRATA_TLS_CA=" + certs_.ca_cert()});
  }

  testing::TestCerts certs_;
  testing::StratadProcess server_;
  std::string admin_;
};

TEST_F(CliSecurityE2ETest, TokensFromCreationToRevocation) {
  ASSERT_EQ(Admin({"db", "create", "mydb"}).exit_code, 0);
  ASSERT_EQ(Admin({"table", "create", "mydb", "cpu"}).exit_code, 0);
  EXPECT_THAT(Admin({"token", "whoami"}).out, HasSubstr("admin: admin"));

  ProcessResult created = Admin({"token", "create", "collector", "-g", "write:mydb/cpu",
                                 "--expires-in", "30d"});
  ASSERT_EQ(created.exit_code, 0) << created.err;
  const std::string secret = created.out.substr(0, created.out.find('\n'));
  EXPECT_EQ(secret.size(), 88u);
  EXPECT_THAT(created.err, HasSubstr("shown once"));

  // Flags instead of the environment.
  const std::vector<std::string> as_collector = {"--tls-ca", certs_.ca_cert(), "--token", secret};
  auto with = [](std::vector<std::string> a, const std::vector<std::string>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
  };
  ProcessResult wrote = Cli(with(as_collector, {"write", "mydb", "cpu", "-D", "host=a", "-m",
                                                "usage=0.5"}));
  EXPECT_EQ(wrote.exit_code, 0) << wrote.err;
  ProcessResult read = Cli(with(as_collector, {"query", "SELECT * FROM mydb.cpu"}));
  EXPECT_EQ(read.exit_code, 1);
  EXPECT_THAT(read.err, HasSubstr("token \"collector\" may not read \"mydb\".\"cpu\""));

  ProcessResult listed = Admin({"token", "list", "-f", "csv"});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_THAT(listed.out, HasSubstr("collector,"));
  EXPECT_THAT(listed.out, HasSubstr("write:mydb/cpu"));
  EXPECT_THAT(listed.out, Not(HasSubstr(secret.substr(24))));

  ProcessResult granted = Admin({"token", "grant", "collector", "read:mydb"});
  EXPECT_THAT(granted.out, HasSubstr("grants: write:mydb/cpu read:mydb"));
  EXPECT_EQ(Cli(with(as_collector, {"query", "SELECT count(*) FROM mydb.cpu"})).exit_code, 0);

  EXPECT_EQ(Admin({"token", "revoke", "collector"}).exit_code, 0);
  ProcessResult revoked = Cli(with(as_collector, {"write", "mydb", "cpu", "-m", "usage=1"}));
  EXPECT_EQ(revoked.exit_code, 1);
  EXPECT_THAT(revoked.err, HasSubstr("was revoked"));
}

TEST_F(CliSecurityE2ETest, WhatAMisconfiguredClientIsTold) {
  // No token.
  ProcessResult anonymous = Cli({"db", "list"}, {"STRATA_TLS_CA=" + certs_.ca_cert()});
  EXPECT_EQ(anonymous.exit_code, 1);
  EXPECT_THAT(anonymous.err, HasSubstr("requires a token"));
  EXPECT_THAT(anonymous.err, HasSubstr("--token or STRATA_TOKEN"));
  // Plaintext against TLS.
  ProcessResult plaintext = Cli({"db", "list"}, {"STRATA_TOKEN=" + admin_});
  EXPECT_EQ(plaintext.exit_code, 3);
  EXPECT_THAT(plaintext.err, HasSubstr("If the server uses TLS, pass --tls-ca"));
  // An untrusted server certificate.
  ProcessResult untrusted =
      Cli({"--tls-ca", certs_.other_ca_cert(), "db", "list"}, {"STRATA_TOKEN=" + admin_});
  EXPECT_EQ(untrusted.exit_code, 3);
  EXPECT_THAT(untrusted.err, HasSubstr("does --tls-ca trust its certificate?"));
  // A CA file that is not there: nothing is sent.
  ProcessResult missing = Cli({"--tls-ca", "/nonexistent.pem", "db", "list"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_THAT(missing.err, HasSubstr("--tls-ca /nonexistent.pem: cannot be read"));
  // The health check needs no token.
  ProcessResult health = Cli({"--tls-ca", certs_.ca_cert(), "health"});
  EXPECT_EQ(health.exit_code, 0) << health.err;
}

}  // namespace
}  // namespace strata
