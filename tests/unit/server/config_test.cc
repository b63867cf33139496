#include "server/ops/config.h"

#include <cstdlib>
#include <fstream>

#include "gtest/gtest.h"
#include "tests/support/temp_dir.h"

namespace strata {
namespace {

ParsedCommandLine Parse(std::vector<std::string> args) {
  args.insert(args.begin(), "stratad");
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  return ParseCommandLine(static_cast<int>(argv.size()), argv.data());
}

class ConfigTest : public ::testing::Test {
 protected:
  void TearDown() override {
    for (const char* name : {"STRATA_DATA_DIR", "STRATA_LISTEN", "STRATA_DURABILITY"}) {
      unsetenv(name);
    }
  }
  testing::TempDir dir_;
};

TEST_F(ConfigTest, Defaults) {
  ParsedCommandLine parsed = Parse({});
  ASSERT_FALSE(parsed.exit_code);
  EXPECT_EQ(parsed.config.data_dir, "strata-data");
  EXPECT_EQ(parsed.config.listen, "127.0.0.1:7878");
  EXPECT_EQ(parsed.config.durability, Durability::kFsync);
  EXPECT_EQ(parsed.config.block_cache_mb, 256);
  EXPECT_EQ(Parse({"--block-cache-mb", "1024"}).config.block_cache_mb, 1024);
  EXPECT_EQ(parsed.config.seal_after_minutes, 10);
  EXPECT_EQ(Parse({"--seal-after-minutes", "0"}).config.seal_after_minutes, 0);  // off
  EXPECT_TRUE(ValidateConfig(parsed.config).ok());
}

TEST_F(ConfigTest, FlagsBeatTheFileWhichBeatsTheEnvironment) {
  std::string file = dir_.Sub("strata.toml");
  std::ofstream(file) << "data-dir = \"/from/file\"\nlisten = \"127.0.0.1:1\"\n";
  setenv("STRATA_LISTEN", "127.0.0.1:2", 1);
  setenv("STRATA_DATA_DIR", "/from/env", 1);
  setenv("STRATA_DURABILITY", "buffered", 1);
  ParsedCommandLine parsed = Parse({"--config", file, "--data-dir", "/from/flag"});
  ASSERT_FALSE(parsed.exit_code);
  EXPECT_EQ(parsed.config.data_dir, "/from/flag");
  EXPECT_EQ(parsed.config.listen, "127.0.0.1:1");
  EXPECT_EQ(parsed.config.durability, Durability::kBuffered);
}

TEST_F(ConfigTest, BadInputExitsWithTwo) {
  std::string unknown_key = dir_.Sub("bad.toml");
  std::ofstream(unknown_key) << "no-such-setting = 1\n";
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"--no-such-flag"},
           {"--durability", "sometimes"},
           {"--log-format", "xml"},
           {"--max-message-bytes", "1"},
           {"--block-cache-mb", "0"},
           {"--block-cache-mb", "lots"},
           {"--seal-after-minutes", "-1"},
           {"--config", unknown_key},
           {"--config", dir_.Sub("missing.toml")}}) {
    EXPECT_EQ(Parse(args).exit_code, 2) << args[0];
  }
  EXPECT_EQ(Parse({"--help"}).exit_code, 0);
}

TEST_F(ConfigTest, TestingFixedTimeMustBeATime) {
  EXPECT_FALSE(FixedTimeNanos(Parse({}).config));
  ServerConfig fixed = Parse({"--testing-fixed-time", "2024-03-01T12:00:00Z"}).config;
  EXPECT_EQ(FixedTimeNanos(fixed), int64_t{1709294400} * 1'000'000'000);
  EXPECT_TRUE(ValidateConfig(fixed).ok());
  ServerConfig bad = Parse({"--testing-fixed-time", "noon"}).config;
  absl::Status refused = ValidateConfig(bad);
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(refused.message().find("\"noon\" is not a time"), std::string::npos)
      << refused.message();
}

TEST_F(ConfigTest, RemoteListenNeedsExplicitConsent) {
  ServerConfig config;
  config.listen = "0.0.0.0:7878";
  absl::Status refused = ValidateConfig(config);
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(refused.message().find("--allow-unauthenticated-remote"), std::string::npos);
  config.allow_unauthenticated_remote = true;
  EXPECT_TRUE(ValidateConfig(config).ok());
}

// A cluster's read flags on a single node say it: it reads its own data, always current.
TEST_F(ConfigTest, ReadChoiceFlagsAreForAClusterNode) {
  ServerConfig config;
  config.read_consistency = "follower";
  absl::Status refused = ValidateConfig(config);
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(refused.message()).find("are for a cluster node"), std::string::npos);
  config.read_consistency = "leader";
  config.hedge_after_ms = 100;
  EXPECT_EQ(ValidateConfig(config).code(), absl::StatusCode::kInvalidArgument);
  config.hedge_after_ms = 0;
  EXPECT_TRUE(ValidateConfig(config).ok()) << ValidateConfig(config);
}

TEST_F(ConfigTest, AuthenticationFollowsTlsAndTheListenAddress) {
  struct Case {
    std::string listen, auth;
    bool tls, allow_remote;
    bool enabled, valid;
  };
  const std::vector<Case> cases = {
      {"127.0.0.1:7878", "auto", false, false, false, true},  // local development
      {"127.0.0.1:7878", "auto", true, false, true, true},    // TLS: tokens too
      {"127.0.0.1:7878", "on", false, false, true, true},
      {"0.0.0.0:7878", "auto", true, false, true, true},      // a remote deployment
      {"0.0.0.0:7878", "off", true, false, false, false},     // TLS without tokens
      {"0.0.0.0:7878", "auto", false, false, true, false},    // tokens in plaintext
      {"0.0.0.0:7878", "auto", false, true, false, true},     // explicitly unsafe
      {"0.0.0.0:7878", "on", true, true, true, true},
  };
  for (const Case& c : cases) {
    ServerConfig config;
    config.listen = c.listen;
    config.auth = c.auth;
    config.allow_unauthenticated_remote = c.allow_remote;
    if (c.tls) {
      config.tls_cert = "cert.pem";
      config.tls_key = "key.pem";
    }
    const std::string what = c.listen + " auth=" + c.auth + (c.tls ? " tls" : "") +
                             (c.allow_remote ? " allow-remote" : "");
    EXPECT_EQ(AuthEnabled(config), c.enabled) << what;
    EXPECT_EQ(ValidateConfig(config).ok(), c.valid) << what << ": " << ValidateConfig(config);
  }
  ServerConfig config;
  config.data_dir = "/var/lib/strata";
  EXPECT_EQ(BootstrapTokenFile(config), "/var/lib/strata/admin.token");
  config.bootstrap_token_file = "/run/secrets/admin";
  EXPECT_EQ(BootstrapTokenFile(config), "/run/secrets/admin");
}

TEST_F(ConfigTest, DurabilityWindowAndQueryAdmissionFlags) {
  ParsedCommandLine parsed = Parse({"--durability", "buffered", "--wal-sync-interval-ms", "250",
                                    "--query-workers", "3", "--query-queue", "0",
                                    "--query-memory-total-mb", "512", "--write-queue", "16"});
  ASSERT_FALSE(parsed.exit_code);
  EXPECT_EQ(parsed.config.durability, Durability::kBuffered);
  EXPECT_EQ(parsed.config.wal_sync_interval_ms, 250);
  EXPECT_EQ(parsed.config.query_workers, 3);
  EXPECT_EQ(parsed.config.query_queue, 0);
  EXPECT_EQ(parsed.config.query_memory_total_mb, 512);
  EXPECT_EQ(parsed.config.write_queue, 16);
  EXPECT_EQ(Parse({"--wal-sync-interval-ms", "0"}).exit_code, 2);
  EXPECT_EQ(Parse({"--query-workers", "0"}).exit_code, 2);
  EXPECT_EQ(Parse({"--query-queue", "-1"}).exit_code, 2);
  EXPECT_EQ(Parse({"--write-queue", "0"}).exit_code, 2);
}

TEST_F(ConfigTest, ListenAddresses) {
  struct Case {
    std::string address;
    bool valid;
    bool loopback;
  };
  for (const Case& c : std::vector<Case>{{"127.0.0.1:7878", true, true},
                                         {"localhost:0", true, true},
                                         {"[::1]:80", true, true},
                                         {"127.5.5.5:1", true, true},
                                         {"10.0.0.1:7878", true, false},
                                         // Decided by the resolved address, not the text:
                                         // "0" is 0.0.0.0, every interface.
                                         {"0:7878", true, false},
                                         {"0.0.0.0:7878", true, false},
                                         {"[::]:7878", true, false},
                                         {"127.1:7878", true, true},
                                         {"127.0.0.1.0.0.1:7878", true, false},
                                         {"[::ffff:127.0.0.1]:7878", true, true},
                                         {"7878", false, false},
                                         {":7878", false, false},
                                         {"127.0.0.1:", false, false},
                                         {"127.0.0.1:65536", false, false},
                                         {"127.0.0.1:12ab", false, false}}) {
    auto split = SplitHostPort(c.address);
    EXPECT_EQ(split.ok(), c.valid) << c.address;
    if (split.ok()) {
      EXPECT_EQ(IsLoopbackHost(split->first), c.loopback) << c.address;
    }
  }
}

}  // namespace
}  // namespace strata
