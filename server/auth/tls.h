// TLS for every listener (docs/security.md): the certificate files, checked
// with OpenSSL at start (and on SIGHUP) so that a missing, unreadable or
// mismatched file is a clear error rather than a handshake failure later,
// and an OpenSSL context that serves renewed files without a restart (the
// HTTP and PostgreSQL ports; the gRPC port's credentials are
// server/grpc/listener_credentials.h).
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

struct ssl_ctx_st;  // OpenSSL's SSL_CTX

namespace strata {

struct TlsConfig {
  std::string cert_file;       // PEM certificate chain; empty: no TLS
  std::string key_file;        // PEM private key
  std::string client_ca_file;  // PEM CA bundle: clients must present a certificate it signed
  // A cluster's CA (--cluster-ca): the gRPC port asks for a client certificate, which other
  // nodes present (signed by it) and other clients may leave out.
  std::string member_ca_file;
  int reload_seconds = 10;  // how often the files are looked at for changes
  bool enabled() const { return !cert_file.empty(); }
};

// Checks the files as the listener will use them: readable PEM, the key
// belongs to the certificate, the certificate is valid now, the CA bundle
// holds a certificate. FAILED_PRECONDITION names the file and the fix.
absl::Status CheckTlsFiles(const TlsConfig& tls);

// Sets up an OpenSSL server context (cpp-httplib's SSLServer, the
// PostgreSQL port's SSLRequest): sets it up to hand each handshake the newest good pair of the
// files, and to require client certificates with client_ca_file. The
// function holds the certificates: it must outlive the context.
absl::StatusOr<std::function<bool(ssl_ctx_st&)>> HttpsContextSetup(const TlsConfig& tls);

}  // namespace strata
