#include "cluster/membership.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>
#include <sodium.h>

#include "common/status.h"
#include "common/strings.h"
#include "grpcpp/security/tls_certificate_provider.h"
#include "grpcpp/security/tls_credentials_options.h"

namespace strata::cluster {
namespace {

constexpr char kSecretHeader[] = "x-strata-cluster-secret";
// How long a certificate found signed by the cluster's CA is taken as such without checking
// it again, and how many such answers are kept.
constexpr auto kVerifiedFor = std::chrono::seconds(10);
constexpr size_t kVerifiedKept = 256;

struct X509Free {
  void operator()(X509* x) const { X509_free(x); }
};
struct ChainFree {
  void operator()(STACK_OF(X509) * chain) const { sk_X509_pop_free(chain, X509_free); }
};
struct StoreFree {
  void operator()(X509_STORE* s) const { X509_STORE_free(s); }
};
struct StoreContextFree {
  void operator()(X509_STORE_CTX* c) const { X509_STORE_CTX_free(c); }
};

// Every certificate of PEM text, in order.
std::unique_ptr<STACK_OF(X509), ChainFree> ReadCertificates(std::string_view pem) {
  std::unique_ptr<STACK_OF(X509), ChainFree> out(sk_X509_new_null());
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  while (X509* cert = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr)) {
    sk_X509_push(out.get(), cert);
  }
  BIO_free(bio);
  ERR_clear_error();  // the end of the text reads as an error
  return out;
}

std::unique_ptr<X509_STORE, StoreFree> LoadStore(const std::string& ca_file, std::string_view flag,
                                                 absl::Status* status) {
  std::unique_ptr<X509_STORE, StoreFree> store(X509_STORE_new());
  if (X509_STORE_load_file(store.get(), ca_file.c_str()) != 1 ||
      sk_X509_OBJECT_num(X509_STORE_get0_objects(store.get())) == 0) {
    ERR_clear_error();
    *status = absl::FailedPreconditionError(
        StrCat(flag, " ", ca_file,
               ": cannot be read as a PEM CA bundle (missing, unreadable, or "
               "holding no certificate)"));
    return nullptr;
  }
  return store;
}

// "" when `leaf` (with `chain`'s intermediates) chains to `store` for a TLS client; else
// OpenSSL's reason.
std::string Verify(X509_STORE* store, X509* leaf, STACK_OF(X509) * chain) {
  std::unique_ptr<X509_STORE_CTX, StoreContextFree> context(X509_STORE_CTX_new());
  if (X509_STORE_CTX_init(context.get(), store, leaf, chain) != 1) return "cannot check it";
  // A node presents its certificate as a TLS client when it calls another node.
  X509_STORE_CTX_set_purpose(context.get(), X509_PURPOSE_SSL_CLIENT);
  const bool ok = X509_verify_cert(context.get()) == 1;
  const int error = X509_STORE_CTX_get_error(context.get());
  ERR_clear_error();
  return ok ? "" : X509_verify_cert_error_string(error);
}

std::string ReadWhole(const std::string& path) {
  std::string text;
  if (FILE* f = std::fopen(path.c_str(), "rb")) {
    char buffer[4096];
    for (size_t n; (n = std::fread(buffer, 1, sizeof(buffer), f)) > 0;) text.append(buffer, n);
    std::fclose(f);
  }
  return text;
}

}  // namespace

absl::Status CheckSignedBy(const std::string& cert_file, std::string_view cert_flag,
                           const std::string& ca_file, std::string_view ca_flag) {
  absl::Status status;
  auto store = LoadStore(ca_file, ca_flag, &status);
  if (store == nullptr) return status;
  auto chain = ReadCertificates(ReadWhole(cert_file));
  if (sk_X509_num(chain.get()) == 0) {
    return absl::FailedPreconditionError(
        StrCat(cert_flag, " ", cert_file, ": holds no PEM certificate"));
  }
  const std::string why = Verify(store.get(), sk_X509_value(chain.get(), 0), chain.get());
  if (why.empty()) return absl::OkStatus();
  return absl::FailedPreconditionError(StrCat(
      cert_flag, " ", cert_file, " is not accepted by ", ca_flag, " ", ca_file, " (", why,
      "): every node's certificate must be signed by the CA in ", ca_flag,
      " and allow client authentication (extendedKeyUsage serverAuth,clientAuth), since nodes "
      "present it when they call each other"));
}

absl::StatusOr<std::unique_ptr<Membership>> Membership::Create(const MemberTls& tls,
                                                               std::string secret) {
  if (!tls.enabled() && secret.size() < 16) {
    return absl::InvalidArgumentError(
        "--cluster-secret (or --cluster-secret-file) must hold at least 16 characters, the "
        "same on every node: members show it to each other (or give --tls-cert, --tls-key and "
        "--cluster-ca for mutual TLS between nodes)");
  }
  if (!secret.empty() && secret.size() < 16) {
    return absl::InvalidArgumentError(
        "--cluster-secret (or --cluster-secret-file) must hold at least 16 characters when "
        "given");
  }
  std::unique_ptr<Membership> out(new Membership());
  out->tls_ = tls;
  out->secret_ = std::move(secret);
  if (tls.enabled()) {
    RETURN_IF_ERROR(CheckSignedBy(tls.cert_file, "--tls-cert", tls.ca_file, "--cluster-ca"));
    absl::Status status;
    out->store_ = LoadStore(tls.ca_file, "--cluster-ca", &status).release();
    if (out->store_ == nullptr) return status;
  }
  return out;
}

Membership::~Membership() { X509_STORE_free(store_); }

std::shared_ptr<grpc::ChannelCredentials> Membership::ChannelCredentials() const {
  if (!tls_.enabled()) return grpc::InsecureChannelCredentials();
  // Re-read as the files change, as the listener does: a renewed node certificate is
  // presented without a restart.
  auto provider = std::make_shared<grpc::experimental::FileWatcherCertificateProvider>(
      tls_.key_file, tls_.cert_file, tls_.ca_file, tls_.reload_seconds);
  grpc::experimental::TlsChannelCredentialsOptions options;
  options.set_certificate_provider(provider);
  options.watch_root_certs();
  options.watch_identity_key_cert_pairs();
  return grpc::experimental::TlsCredentials(options);
}

void Membership::Present(grpc::ClientContext* context) const {
  if (!secret_.empty()) context->AddMetadata(kSecretHeader, secret_);
}

bool Membership::SignedByClusterCa(std::string_view leaf, std::string_view chain) const {
  if (store_ == nullptr) return false;
  const auto now = std::chrono::steady_clock::now();
  std::string key = StrCat(leaf.size(), ":", leaf, chain);
  {
    absl::MutexLock lock(&verified_mu_);
    if (auto it = verified_.find(key); it != verified_.end() && now < it->second) return true;
  }
  auto leaves = ReadCertificates(leaf);
  if (sk_X509_num(leaves.get()) != 1) return false;
  auto intermediates = ReadCertificates(chain);
  if (!Verify(store_, sk_X509_value(leaves.get(), 0), intermediates.get()).empty()) return false;
  absl::MutexLock lock(&verified_mu_);
  // A cluster has a few members: more certificates than that are outsiders' or old ones.
  if (verified_.size() >= kVerifiedKept) verified_.clear();
  verified_[std::move(key)] = now + kVerifiedFor;
  return true;
}

grpc::Status Membership::Check(const grpc::ServerContextBase& context) const {
  if (tls_.enabled()) {
    std::shared_ptr<const grpc::AuthContext> auth = context.auth_context();
    std::string leaf, chain;
    for (const grpc::string_ref& v : auth->FindPropertyValues(GRPC_X509_PEM_CERT_PROPERTY_NAME)) {
      leaf.assign(v.data(), v.size());
    }
    for (const grpc::string_ref& v :
         auth->FindPropertyValues(GRPC_X509_PEM_CERT_CHAIN_PROPERTY_NAME)) {
      chain.assign(v.data(), v.size());
    }
    if (leaf.empty() || !SignedByClusterCa(leaf, chain)) {
      return grpc::Status(grpc::StatusCode::PERMISSION_DENIED,
                          "the cluster's internal service answers only its members: the caller "
                          "presented no certificate signed by the cluster's CA (--cluster-ca)");
    }
  }
  if (!secret_.empty()) {
    const auto& metadata = context.client_metadata();
    auto it = metadata.find(kSecretHeader);
    if (it == metadata.end() || it->second.size() != secret_.size() ||
        sodium_memcmp(it->second.data(), secret_.data(), secret_.size()) != 0) {
      return grpc::Status(grpc::StatusCode::PERMISSION_DENIED,
                          "the cluster's internal service answers only its members: the caller "
                          "did not present this cluster's secret (--cluster-secret)");
    }
  }
  return grpc::Status::OK;
}

}  // namespace strata::cluster
