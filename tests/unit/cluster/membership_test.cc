// How nodes recognise each other (cluster/membership.h): a certificate chains to the
// cluster's CA and allows client authentication, or the call carries the secret.
#include "cluster/membership.h"

#include "gtest/gtest.h"
#include "tests/support/test_certs.h"

namespace strata::cluster {
namespace {

using ::strata::testing::ReadFile;
using ::strata::testing::TestCerts;

class MembershipTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(certs_.ok()) << certs_.error(); }
  // A node's membership: its certificate, signed by the cluster's CA, and no secret.
  absl::StatusOr<std::unique_ptr<Membership>> NodeMembership() {
    return Membership::Create({.cert_file = certs_.node_cert(),
                               .key_file = certs_.node_key(),
                               .ca_file = certs_.cluster_ca_cert()},
                              "");
  }
  TestCerts certs_;
};

TEST_F(MembershipTest, ANodeCertificateSignedByTheClusterCaIsAMembers) {
  EXPECT_TRUE(
      CheckSignedBy(certs_.node_cert(), "--tls-cert", certs_.cluster_ca_cert(), "--cluster-ca")
          .ok());
  auto membership = NodeMembership();
  ASSERT_TRUE(membership.ok()) << membership.status();
  EXPECT_TRUE((*membership)->SignedByClusterCa(ReadFile(certs_.node_cert()), ""));
}

TEST_F(MembershipTest, OtherCertificatesAreNot) {
  auto membership = NodeMembership();
  ASSERT_TRUE(membership.ok()) << membership.status();
  // Signed by another CA; not a certificate at all; empty.
  EXPECT_FALSE((*membership)->SignedByClusterCa(ReadFile(certs_.client_cert()), ""));
  EXPECT_FALSE((*membership)->SignedByClusterCa("-----BEGIN CERTIFICATE-----\nAAAA\n", ""));
  EXPECT_FALSE((*membership)->SignedByClusterCa("", ""));
  // Another CA's intermediates do not help.
  EXPECT_FALSE(
      (*membership)->SignedByClusterCa(ReadFile(certs_.client_cert()), ReadFile(certs_.ca_cert())));
}

// A member's certificate found signed is taken as such for a while without checking it again
// (every internal call is checked): asked again it is still a member's, and the answer kept
// for it is no one else's, with or without a chain of its own.
TEST_F(MembershipTest, AMembersCertificateCheckedBeforeIsOnlyItsOwn) {
  auto membership = NodeMembership();
  ASSERT_TRUE(membership.ok()) << membership.status();
  const std::string node = ReadFile(certs_.node_cert());
  const std::string outsider = ReadFile(certs_.client_cert());
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE((*membership)->SignedByClusterCa(node, "")) << i;
    EXPECT_FALSE((*membership)->SignedByClusterCa(outsider, "")) << i;
    EXPECT_FALSE((*membership)->SignedByClusterCa(outsider, node)) << i;
    EXPECT_FALSE((*membership)->SignedByClusterCa(node + outsider, "")) << i;
  }
}

TEST_F(MembershipTest, StartRefusesCertificatesTheOthersWouldRefuse) {
  struct Case {
    std::string cert, key, ca, says;
  };
  const std::vector<Case> cases = {
      // Another CA signed it.
      {certs_.client_cert(), certs_.client_key(), certs_.cluster_ca_cert(),
       "is not accepted by --cluster-ca"},
      // The right CA, but a server-only certificate: nodes present theirs as clients too.
      {certs_.server_cert(), certs_.server_key(), certs_.ca_cert(), "clientAuth"},
      // No CA bundle there.
      {certs_.node_cert(), certs_.node_key(), certs_.dir().Sub("missing.pem"),
       "cannot be read as a PEM CA bundle"},
  };
  for (const Case& c : cases) {
    auto membership =
        Membership::Create({.cert_file = c.cert, .key_file = c.key, .ca_file = c.ca}, "");
    ASSERT_FALSE(membership.ok()) << c.says;
    EXPECT_NE(membership.status().message().find(c.says), std::string::npos) << membership.status();
  }
}

TEST(MembershipSecretTest, WithoutTlsTheSecretMustBeLongEnough) {
  EXPECT_TRUE(Membership::Create({}, "0123456789abcdef").ok());
  auto shorter = Membership::Create({}, "short");
  ASSERT_FALSE(shorter.ok());
  EXPECT_NE(shorter.status().message().find("--cluster-secret"), std::string::npos);
  EXPECT_FALSE(Membership::Create({}, "").ok());
}

}  // namespace
}  // namespace strata::cluster
