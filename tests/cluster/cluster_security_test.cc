// A cluster whose every connection is secured (docs/cluster.md, "Security"): etcd and NATS
// over TLS with client certificates (each with its auth on too: an etcd user and a NATS user,
// each with a password), and nodes that call each other over mutual TLS with the cluster's CA
// and no shared secret. Real etcd, NATS and
// stratad processes on loopback.
#include <chrono>
#include <fstream>

#include "gtest/gtest.h"
#include "strata/internal/v1/shard.grpc.pb.h"
#include "strata/v1/catalog.grpc.pb.h"
#include "tests/cluster/cluster_harness.h"
#include "tests/cluster/cluster_helpers.h"
#include "tests/support/query_helpers.h"
#include "tests/support/write_helpers.h"

namespace strata::testing {
namespace {

using std::chrono::seconds;

// What node 0's internal service answers a caller with `credentials` (and the test
// cluster's secret, which a TLS cluster does not take in place of a certificate).
grpc::Status AskState(TestCluster& cluster, std::shared_ptr<grpc::ChannelCredentials> credentials) {
  auto stub = internal::v1::ShardService::NewStub(
      grpc::CreateChannel(cluster.node(0).address(), std::move(credentials)));
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + seconds(5));
  context.AddMetadata("x-strata-cluster-secret", cluster.secret());
  internal::v1::ShardStateResponse response;
  return stub->State(&context, internal::v1::ShardStateRequest(), &response);
}

TEST(ClusterTlsTest, NodesTalkOverMutualTlsAndRefuseOutsiders) {
  REQUIRE_CLUSTER_SERVERS();
  TestCluster cluster(TestCluster::Options{.tls = true, .etcd_auth = true});
  ASSERT_TRUE(cluster.certs()->ok()) << cluster.certs()->error();
  ASSERT_TRUE(cluster.Start()) << cluster.error();
  // Through all three nodes: the writes are forwarded to the shards' leaders, and every
  // replica applies them from the log.
  ASSERT_TRUE(CreateDatabase(cluster.node(0).channel(), "demo").ok());
  ASSERT_TRUE(CreateTable(cluster.node(1), "cpu").ok());
  const int64_t now = NowMillis();
  const std::vector<v1::Record> hosts = HostRecords(16, now);
  v1::WriteRecordsResponse response;
  grpc::Status written = Write(cluster.node(2), "cpu", hosts, &response);
  ASSERT_TRUE(written.ok()) << written.error_message();
  EXPECT_EQ(ReadAll(cluster.node(0), "cpu").size(), 16u);
  EXPECT_EQ(cluster.CompareReplicas({0, 1, 2}, seconds(30)), "");

  const TestCerts& certs = *cluster.certs();
  // No client certificate: the public API answers (tokens are its door), the internal
  // service does not.
  grpc::Status anonymous = AskState(cluster, certs.Credentials(certs.cluster_ca_cert()));
  EXPECT_EQ(anonymous.error_code(), grpc::StatusCode::PERMISSION_DENIED)
      << anonymous.error_message();
  EXPECT_NE(anonymous.error_message().find("--cluster-ca"), std::string::npos)
      << anonymous.error_message();
  auto catalog = v1::CatalogService::NewStub(
      grpc::CreateChannel(cluster.node(0).address(), certs.Credentials(certs.cluster_ca_cert())));
  grpc::ClientContext context;
  v1::ListDatabasesResponse databases;
  EXPECT_TRUE(catalog->ListDatabases(&context, v1::ListDatabasesRequest(), &databases).ok());
  // A certificate another CA signed is refused in the handshake.
  EXPECT_FALSE(
      AskState(cluster, certs.Credentials(certs.cluster_ca_cert(), /*with_client_cert=*/true))
          .ok());
  // A member's certificate is answered.
  EXPECT_TRUE(AskState(cluster, cluster.MemberCredentials()).ok());

  // A node with the wrong etcd password does not start, and says what to check.
  StratadProcess wrong;
  std::vector<std::string> args = cluster.NodeArgs("n9");
  const std::string password_file = wrong.data_dir() + ".etcd-password";
  std::ofstream(password_file) << "not-the-password\n";
  for (size_t i = 0; i + 1 < args.size(); ++i) {
    if (args[i] == "--etcd-password-file") args[i + 1] = password_file;
  }
  args.insert(args.end(), {"--data-dir", wrong.data_dir()});
  EXPECT_EQ(wrong.RunToExit(args, 60), 1);
  EXPECT_NE(wrong.log().find("--etcd-password-file"), std::string::npos) << wrong.log();
}

// A node whose certificate the cluster's CA did not sign, or a TLS node without the
// cluster's CA, does not start: one line says what to change.
TEST(ClusterTlsTest, StartupErrorsNameTheCertificate) {
  REQUIRE_CLUSTER_SERVERS();
  TestCerts certs;
  ASSERT_TRUE(certs.ok()) << certs.error();
  const std::vector<std::string> base = {
      "--cluster", "--node-id",          "a",      "--etcd", "127.0.0.1:1",
      "--nats",    "nats://127.0.0.1:1", "--auth", "off"};
  struct Case {
    std::vector<std::string> flags;
    std::string says;
  };
  const std::vector<Case> cases = {
      {{"--tls-cert", certs.node_cert(), "--tls-key", certs.node_key()}, "needs --cluster-ca"},
      // The server certificate: another CA's, and not for client authentication.
      {{"--tls-cert", certs.server_cert(), "--tls-key", certs.server_key(), "--cluster-ca",
        certs.cluster_ca_cert()},
       "is not accepted by --cluster-ca"},
      {{"--cluster-ca", certs.cluster_ca_cert()}, "--cluster-ca needs --tls-cert"},
      {{"--etcd-cert", certs.client_cert(), "--etcd-key", certs.client_key(), "--cluster-secret",
        "0123456789abcdef-secret"},
       "give --etcd-ca"},
      {{"--nats-user", "strata", "--cluster-secret", "0123456789abcdef-secret"},
       "--nats-user and --nats-password-file go together"},
  };
  for (const Case& c : cases) {
    StratadProcess node;
    std::vector<std::string> args = base;
    args.insert(args.end(), c.flags.begin(), c.flags.end());
    args.insert(args.end(), {"--data-dir", node.data_dir()});
    EXPECT_NE(node.RunToExit(args), 0) << c.says;
    EXPECT_NE(node.log().find(c.says), std::string::npos) << c.says << "\n" << node.log();
  }
}

}  // namespace
}  // namespace strata::testing
