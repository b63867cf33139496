#include "server/tls.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include "common/strings.h"
#include "grpcpp/security/tls_certificate_provider.h"
#include "grpcpp/security/tls_credentials_options.h"

namespace strata {
namespace {

struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};
struct X509Free {
  void operator()(X509* x) const { X509_free(x); }
};
struct KeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};

// OpenSSL's reason for the last failure, for a message.
std::string OpenSslError() {
  const unsigned long code = ERR_get_error();
  ERR_clear_error();
  if (code == 0) return "not PEM";
  char text[256];
  ERR_error_string_n(code, text, sizeof(text));
  return text;
}

absl::Status Problem(std::string_view flag, const std::string& file, std::string_view what) {
  return absl::FailedPreconditionError(
      StrCat(flag, " ", file, ": ", what));
}

absl::Status OpenFile(std::string_view flag, const std::string& file,
                      std::unique_ptr<BIO, BioFree>* bio) {
  bio->reset(BIO_new_file(file.c_str(), "r"));
  if (*bio == nullptr) {
    ERR_clear_error();
    return Problem(flag, file, "cannot be read (missing, or not readable by stratad's user)");
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckTlsFiles(const TlsConfig& tls) {
  if (!tls.enabled()) return absl::OkStatus();
  std::unique_ptr<BIO, BioFree> bio;
  if (absl::Status s = OpenFile("--tls-cert", tls.cert_file, &bio); !s.ok()) return s;
  std::unique_ptr<X509, X509Free> cert(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
  if (cert == nullptr) {
    return Problem("--tls-cert", tls.cert_file,
                   StrCat("holds no PEM certificate (", OpenSslError(), ")"));
  }
  if (X509_cmp_current_time(X509_get0_notAfter(cert.get())) < 0) {
    return Problem("--tls-cert", tls.cert_file, "has expired; renew it");
  }
  if (absl::Status s = OpenFile("--tls-key", tls.key_file, &bio); !s.ok()) return s;
  std::unique_ptr<EVP_PKEY, KeyFree> key(
      PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr));
  if (key == nullptr) {
    return Problem("--tls-key", tls.key_file,
                   StrCat("holds no unencrypted PEM private key (", OpenSslError(), ")"));
  }
  if (X509_check_private_key(cert.get(), key.get()) != 1) {
    ERR_clear_error();
    return Problem("--tls-key", tls.key_file,
                   StrCat("is not the key of the certificate in ", tls.cert_file,
                          "; give the matching pair"));
  }
  if (!tls.client_ca_file.empty()) {
    if (absl::Status s = OpenFile("--tls-client-ca", tls.client_ca_file, &bio); !s.ok()) return s;
    std::unique_ptr<X509, X509Free> ca(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
    if (ca == nullptr) {
      return Problem("--tls-client-ca", tls.client_ca_file,
                     StrCat("holds no PEM certificate (", OpenSslError(), ")"));
    }
  }
  return absl::OkStatus();
}

std::shared_ptr<grpc::ServerCredentials> ListenerCredentials(const TlsConfig& tls) {
  if (!tls.enabled()) return grpc::InsecureServerCredentials();
  std::shared_ptr<grpc::experimental::CertificateProviderInterface> provider;
  if (tls.client_ca_file.empty()) {
    provider = std::make_shared<grpc::experimental::FileWatcherCertificateProvider>(
        tls.key_file, tls.cert_file, tls.reload_seconds);
  } else {
    provider = std::make_shared<grpc::experimental::FileWatcherCertificateProvider>(
        tls.key_file, tls.cert_file, tls.client_ca_file, tls.reload_seconds);
  }
  grpc::experimental::TlsServerCredentialsOptions options(provider);
  options.watch_identity_key_cert_pairs();
  if (tls.client_ca_file.empty()) {
    options.set_cert_request_type(GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE);
  } else {
    options.watch_root_certs();
    options.set_cert_request_type(GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
  }
  return grpc::experimental::TlsServerCredentials(options);
}

}  // namespace strata
