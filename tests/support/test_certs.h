// Certificates made at test time with the openssl command line: a CA, a
// server certificate for 127.0.0.1 / localhost signed by it, a client
// certificate signed by it, a second CA that signed nothing we serve, and a cluster's CA
// with a node certificate.
#pragma once

#include <string>

#include "grpcpp/security/credentials.h"
#include "tests/support/temp_dir.h"

namespace strata::testing {

class TestCerts {
 public:
  // Generates everything (EC P-256 keys: fast). Check ok().
  TestCerts();

  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }

  std::string ca_cert() const { return dir_.Sub("ca.pem"); }
  std::string server_cert() const { return dir_.Sub("server.pem"); }
  std::string server_key() const { return dir_.Sub("server.key"); }
  std::string client_cert() const { return dir_.Sub("client.pem"); }
  std::string client_key() const { return dir_.Sub("client.key"); }
  std::string other_ca_cert() const { return dir_.Sub("other-ca.pem"); }
  // A cluster's CA and a node certificate it signed (for 127.0.0.1 / localhost, usable as a
  // server's and as a client's: nodes present it when they call each other).
  std::string cluster_ca_cert() const { return dir_.Sub("cluster-ca.pem"); }
  std::string node_cert() const { return dir_.Sub("node.pem"); }
  std::string node_key() const { return dir_.Sub("node.key"); }
  std::string other_key() const { return dir_.Sub("other-ca.key"); }
  // A server certificate and key made by the same CA a second time (for
  // rotation tests).
  std::string renewed_cert() const { return dir_.Sub("renewed.pem"); }
  std::string renewed_key() const { return dir_.Sub("renewed.key"); }
  const TempDir& dir() const { return dir_; }

  // Client credentials trusting `ca` (and presenting the client certificate
  // when `with_client_cert`).
  std::shared_ptr<grpc::ChannelCredentials> Credentials(const std::string& ca,
                                                        bool with_client_cert = false) const;

 private:
  bool Run(const std::string& command);

  TempDir dir_;
  std::string error_;
};

// The contents of a file.
std::string ReadFile(const std::string& path);

}  // namespace strata::testing
