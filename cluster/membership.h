// How a cluster's nodes prove to each other that they are members (docs/cluster.md,
// "Security"): mutual TLS with the cluster's CA (--cluster-ca; each node presents its own
// --tls-cert, signed by it, when it calls another), the cluster secret (--cluster-secret) on
// a plaintext private network or loopback, or both. The internal service answers a caller
// only when it passes every check configured; a client of the public API (no certificate,
// or one signed by --tls-client-ca) is refused there.
//
// Thread-safety: const methods may be called from any thread.
#pragma once

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <memory>
#include <string>
#include <string_view>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"

struct x509_store_st;  // OpenSSL's X509_STORE

namespace strata::cluster {

struct MemberTls {
  std::string cert_file;  // this node's certificate (chain), served and presented to peers
  std::string key_file;
  std::string ca_file;  // --cluster-ca: signed every node's certificate; empty: no TLS
  int reload_seconds = 10;
  bool enabled() const { return !ca_file.empty(); }
};

class Membership {
 public:
  // Loads the cluster CA and checks this node's own certificate is signed by it (else the
  // others would refuse this node). INVALID_ARGUMENT / FAILED_PRECONDITION naming the flag.
  static absl::StatusOr<std::unique_ptr<Membership>> Create(const MemberTls& tls,
                                                            std::string secret);
  ~Membership();

  // Credentials of a channel to another node's gRPC port.
  std::shared_ptr<grpc::ChannelCredentials> ChannelCredentials() const;
  // Adds what the callee checks beyond the TLS handshake (the secret) to an outgoing call.
  void Present(grpc::ClientContext* context) const;
  // OK when the caller is a member; PERMISSION_DENIED saying what it did not show.
  grpc::Status Check(const grpc::ServerContextBase& context) const;

  // Whether the PEM certificate `leaf` (with the intermediates in `chain`, may be empty)
  // chains to the cluster's CA.
  bool SignedByClusterCa(std::string_view leaf, std::string_view chain) const;

 private:
  Membership() = default;

  MemberTls tls_;
  std::string secret_;
  x509_store_st* store_ = nullptr;  // the cluster CA's certificates
  // The certificates (leaf and chain) found signed by the cluster's CA lately, and until
  // when that answer is reused: every internal call is checked, and checking a certificate
  // again (parsing its PEM, verifying the signatures) costs more CPU than a small call's
  // whole work. Held for seconds only, so a certificate that expires is refused soon after.
  mutable absl::Mutex verified_mu_;
  mutable absl::flat_hash_map<std::string, std::chrono::steady_clock::time_point> verified_
      ABSL_GUARDED_BY(verified_mu_);
};

// Whether the PEM file `cert_file` is signed by a CA in the PEM bundle `ca_file`
// (FAILED_PRECONDITION saying which does not, and why, otherwise).
absl::Status CheckSignedBy(const std::string& cert_file, std::string_view cert_flag,
                           const std::string& ca_file, std::string_view ca_flag);

}  // namespace strata::cluster
