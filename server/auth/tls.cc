#include "server/auth/tls.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <chrono>
#include <functional>

#include "absl/synchronization/mutex.h"
#include "common/status.h"
#include "common/strings.h"

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
struct ChainFree {
  void operator()(STACK_OF(X509) * chain) const { sk_X509_pop_free(chain, X509_free); }
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


// The certificate (with the rest of its chain) and key of the TLS files.
struct KeyPair {
  std::unique_ptr<X509, X509Free> cert;
  std::unique_ptr<STACK_OF(X509), ChainFree> chain{sk_X509_new_null()};
  std::unique_ptr<EVP_PKEY, KeyFree> key;
};

absl::StatusOr<std::shared_ptr<KeyPair>> LoadKeyPair(const TlsConfig& tls) {
  auto pair = std::make_shared<KeyPair>();
  std::unique_ptr<BIO, BioFree> bio;
  if (absl::Status s = OpenFile("--tls-cert", tls.cert_file, &bio); !s.ok()) return s;
  pair->cert.reset(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
  if (pair->cert == nullptr) {
    return Problem("--tls-cert", tls.cert_file,
                   StrCat("holds no PEM certificate (", OpenSslError(), ")"));
  }
  while (X509* next = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) {
    sk_X509_push(pair->chain.get(), next);
  }
  ERR_clear_error();  // the end of the file ends the chain
  if (X509_cmp_current_time(X509_get0_notAfter(pair->cert.get())) < 0) {
    return Problem("--tls-cert", tls.cert_file, "has expired; renew it");
  }
  if (absl::Status s = OpenFile("--tls-key", tls.key_file, &bio); !s.ok()) return s;
  pair->key.reset(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr));
  if (pair->key == nullptr) {
    return Problem("--tls-key", tls.key_file,
                   StrCat("holds no unencrypted PEM private key (", OpenSslError(), ")"));
  }
  if (X509_check_private_key(pair->cert.get(), pair->key.get()) != 1) {
    ERR_clear_error();
    return Problem("--tls-key", tls.key_file,
                   StrCat("is not the key of the certificate in ", tls.cert_file,
                          "; give the matching pair"));
  }
  return pair;
}

// Hands each new connection the newest good pair of the files, looked at
// every reload_seconds as gRPC's file watcher does; a pair that does not
// load leaves the previous one in use.
class ReloadingKeyPair {
 public:
  ReloadingKeyPair(TlsConfig tls, std::shared_ptr<KeyPair> first)
      : tls_(std::move(tls)), current_(std::move(first)),
        checked_(std::chrono::steady_clock::now()) {}

  // OpenSSL's certificate callback (SSL_CTX_set_cert_cb), once per handshake.
  static int Select(SSL* ssl, void* self) {
    std::shared_ptr<KeyPair> pair = static_cast<ReloadingKeyPair*>(self)->Current();
    return SSL_use_cert_and_key(ssl, pair->cert.get(), pair->key.get(), pair->chain.get(),
                                /*override=*/1);
  }

 private:
  std::shared_ptr<KeyPair> Current() {
    absl::MutexLock lock(&mu_);
    const auto now = std::chrono::steady_clock::now();
    if (now - checked_ >= std::chrono::seconds(tls_.reload_seconds)) {
      checked_ = now;
      if (auto fresh = LoadKeyPair(tls_); fresh.ok()) current_ = *std::move(fresh);
    }
    return current_;
  }

  const TlsConfig tls_;
  absl::Mutex mu_;
  std::shared_ptr<KeyPair> current_ ABSL_GUARDED_BY(mu_);
  std::chrono::steady_clock::time_point checked_ ABSL_GUARDED_BY(mu_);
};

}  // namespace

absl::Status CheckTlsFiles(const TlsConfig& tls) {
  if (!tls.enabled()) return absl::OkStatus();
  if (auto pair = LoadKeyPair(tls); !pair.ok()) return pair.status();
  std::unique_ptr<BIO, BioFree> bio;
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

absl::StatusOr<std::function<bool(ssl_ctx_st&)>> HttpsContextSetup(const TlsConfig& tls) {
  ASSIGN_OR_RETURN(std::shared_ptr<KeyPair> first, LoadKeyPair(tls));
  auto pairs = std::make_shared<ReloadingKeyPair>(tls, std::move(first));
  return [pairs, tls](SSL_CTX& ctx) {
    SSL_CTX_set_min_proto_version(&ctx, TLS1_2_VERSION);
    SSL_CTX_set_cert_cb(&ctx, &ReloadingKeyPair::Select, pairs.get());
    if (!tls.client_ca_file.empty()) {
      if (SSL_CTX_load_verify_locations(&ctx, tls.client_ca_file.c_str(), nullptr) != 1) {
        return false;
      }
      SSL_CTX_set_verify(&ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
    }
    return true;
  };
}

}  // namespace strata
