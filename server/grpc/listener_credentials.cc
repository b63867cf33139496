#include "server/grpc/listener_credentials.h"

#include "grpcpp/security/tls_certificate_provider.h"
#include "grpcpp/security/tls_credentials_options.h"

namespace strata {

std::shared_ptr<grpc::ServerCredentials> ListenerCredentials(const TlsConfig& tls) {
  if (!tls.enabled()) return grpc::InsecureServerCredentials();
  // Client certificates are checked against --tls-client-ca (required then; on a cluster
  // that bundle holds the cluster's CA too), else against the cluster's CA (optional: the
  // internal service refuses a caller without one, the public API takes tokens).
  const std::string& roots = !tls.client_ca_file.empty() ? tls.client_ca_file : tls.member_ca_file;
  std::shared_ptr<grpc::experimental::CertificateProviderInterface> provider;
  if (roots.empty()) {
    provider = std::make_shared<grpc::experimental::FileWatcherCertificateProvider>(
        tls.key_file, tls.cert_file, tls.reload_seconds);
  } else {
    provider = std::make_shared<grpc::experimental::FileWatcherCertificateProvider>(
        tls.key_file, tls.cert_file, roots, tls.reload_seconds);
  }
  grpc::experimental::TlsServerCredentialsOptions options(provider);
  options.watch_identity_key_cert_pairs();
  if (roots.empty()) {
    options.set_cert_request_type(GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE);
  } else {
    options.watch_root_certs();
    options.set_cert_request_type(!tls.client_ca_file.empty()
                                      ? GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY
                                      : GRPC_SSL_REQUEST_CLIENT_CERTIFICATE_AND_VERIFY);
  }
  return grpc::experimental::TlsServerCredentials(options);
}

}  // namespace strata
