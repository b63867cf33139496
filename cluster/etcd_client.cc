#include "cluster/etcd_client.h"

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <fstream>
#include <thread>
#include <utility>

#include "absl/strings/str_join.h"
#include "common/status.h"
#include "common/strings.h"
#include "grpcpp/security/tls_certificate_provider.h"
#include "grpcpp/security/tls_credentials_options.h"

namespace strata::cluster {
namespace {

// The key after every key that starts with `prefix` (etcd's range_end for a prefix).
std::string PrefixEnd(std::string_view prefix) {
  std::string end(prefix);
  while (!end.empty()) {
    if (static_cast<unsigned char>(end.back()) < 0xff) {
      end.back() = static_cast<char>(static_cast<unsigned char>(end.back()) + 1);
      return end;
    }
    end.pop_back();
  }
  return std::string(1, '\0');  // every key
}

EtcdKeyValue FromProto(const mvccpb::KeyValue& kv) {
  return {.key = kv.key(),
          .value = kv.value(),
          .create_revision = kv.create_revision(),
          .mod_revision = kv.mod_revision(),
          .lease = kv.lease()};
}

// TLS credentials that re-read the files as they change (a renewed client certificate is
// used without a restart); FAILED_PRECONDITION naming a file that cannot be read.
absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> TlsCredentials(const ServiceTls& tls) {
  for (const auto& [flag, file] :
       {std::pair<std::string_view, std::string>{"--etcd-ca", tls.ca_file},
        {"--etcd-cert", tls.cert_file},
        {"--etcd-key", tls.key_file}}) {
    if (!file.empty() && !std::ifstream(file).good()) {
      return absl::FailedPreconditionError(
          StrCat(flag, " ", file, " cannot be read (missing, or not readable by stratad's user)"));
    }
  }
  constexpr int kReloadSeconds = 10;
  std::shared_ptr<grpc::experimental::CertificateProviderInterface> provider;
  if (tls.cert_file.empty()) {
    provider = std::make_shared<grpc::experimental::FileWatcherCertificateProvider>(tls.ca_file,
                                                                                    kReloadSeconds);
  } else {
    provider = std::make_shared<grpc::experimental::FileWatcherCertificateProvider>(
        tls.key_file, tls.cert_file, tls.ca_file, kReloadSeconds);
  }
  grpc::experimental::TlsChannelCredentialsOptions options;
  options.set_certificate_provider(provider);
  options.watch_root_certs();
  if (!tls.cert_file.empty()) options.watch_identity_key_cert_pairs();
  return grpc::experimental::TlsCredentials(options);
}

constexpr std::chrono::milliseconds kCallTimeout{10000};
// Tries of a call that failed with UNAVAILABLE (EtcdClient::WithTries), the pause before the
// second and twice that before the third. Two ways to it:
// - etcd's own answer that a write's proposal was dropped or not known to commit while its
//   members changed leader ("request timed out", "leader changed", "no leader");
// - a member's connection lost: the calls in flight on a killed member, or sent to it before
//   the channel saw it go, fail with "Broken pipe" or "Connection reset"; the next try goes
//   to another member (round robin over the live ones).
// Tried again all the same: a read is, a put is idempotent, and a transaction's compare sees
// what a first try that did commit wrote (CreateIfAbsent recognizes its own value).
constexpr int kCallTries = 3;
constexpr std::chrono::milliseconds kRetryPause{100};

}  // namespace

template <typename Call>
grpc::Status EtcdClient::WithTries(const Call& call, bool* retried) {
  for (int tried = 1;; ++tried) {
    grpc::ClientContext context;
    Prepare(&context);
    grpc::Status s = call(&context);
    if (s.ok() || s.error_code() != grpc::StatusCode::UNAVAILABLE || tried == kCallTries) {
      return s;
    }
    if (retried != nullptr) *retried = true;
    std::this_thread::sleep_for(kRetryPause * tried);
  }
}

absl::StatusOr<std::unique_ptr<EtcdClient>> EtcdClient::Connect(
    const std::vector<std::string>& endpoints, std::chrono::milliseconds timeout,
    const ServiceTls& tls, const EtcdLogin& login) {
  if (endpoints.empty()) return absl::InvalidArgumentError("no etcd endpoint given (--etcd)");
  std::unique_ptr<EtcdClient> client(new EtcdClient());
  client->endpoints_text_ = absl::StrJoin(endpoints, ",");
  client->timeout_ = timeout;
  client->call_timeout_ = timeout;  // until it answered once (below)
  // One channel over every endpoint: gRPC moves to another member when one fails.
  grpc::ChannelArguments args;
  args.SetLoadBalancingPolicyName("round_robin");
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 200);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
  std::shared_ptr<grpc::ChannelCredentials> credentials = grpc::InsecureChannelCredentials();
  if (tls.enabled()) {
    ASSIGN_OR_RETURN(credentials, TlsCredentials(tls));
    // One name for every member: the channel's target lists addresses, not a host.
    args.SetSslTargetNameOverride(!tls.server_name.empty()
                                      ? tls.server_name
                                      : endpoints[0].substr(0, endpoints[0].rfind(':')));
  }
  client->channel_ =
      grpc::CreateCustomChannel(StrCat("ipv4:", client->endpoints_text_), credentials, args);
  client->kv_ = etcdserverpb::KV::NewStub(client->channel_);
  client->lease_ = etcdserverpb::Lease::NewStub(client->channel_);
  client->watch_ = etcdserverpb::Watch::NewStub(client->channel_);
  client->auth_ = etcdserverpb::Auth::NewStub(client->channel_);
  client->login_ = login;
  if (!client->channel_->WaitForConnected(std::chrono::system_clock::now() + timeout)) {
    return absl::UnavailableError(StrCat("etcd is not reachable at ", client->endpoints_text_,
                                         " (waited ", timeout.count(),
                                         " ms); start etcd or fix --etcd",
                                         tls.enabled() ? " (over TLS: check --etcd-ca, "
                                                         "--etcd-server-name, and the client "
                                                         "certificate etcd expects, --etcd-cert "
                                                         "and --etcd-key)"
                                                       : ""));
  }
  RETURN_IF_ERROR(client->Authenticate());
  // Connected is not answering: a member without quorum takes the connection and times out.
  if (auto probe = client->Get("/strata-probe"); !probe.ok()) return probe.status();
  // From now on a call may wait through an election: a member killed while it led leaves
  // the others without a leader for a second or two, more on a loaded machine, and a DDL
  // statement or a leadership change should wait that out rather than fail.
  client->call_timeout_ = std::max(timeout, kCallTimeout);
  return client;
}

EtcdClient::~EtcdClient() {
  stopping_.Notify();
  std::vector<std::thread> threads;
  {
    absl::MutexLock lock(&mu_);
    for (auto& context : watches_) context->TryCancel();
    threads.swap(threads_);
  }
  for (std::thread& t : threads) t.join();
}

void EtcdClient::Prepare(grpc::ClientContext* context) {
  context->set_deadline(std::chrono::system_clock::now() + call_timeout_);
  AddToken(context);
}

void EtcdClient::AddToken(grpc::ClientContext* context) {
  absl::MutexLock lock(&token_mu_);
  if (!token_.empty()) context->AddMetadata("token", token_);
}

absl::Status EtcdClient::Authenticate() {
  if (login_.user.empty()) return absl::OkStatus();
  etcdserverpb::AuthenticateRequest request;
  request.set_name(login_.user);
  request.set_password(login_.password);
  etcdserverpb::AuthenticateResponse response;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + timeout_);
  if (grpc::Status s = auth_->Authenticate(&context, request, &response); !s.ok()) {
    return absl::UnauthenticatedError(StrCat("etcd at ", endpoints_text_, " refused user \"",
                                             login_.user, "\": ", s.error_message(),
                                             "; check --etcd-user and --etcd-password-file"));
  }
  absl::MutexLock lock(&token_mu_);
  token_ = response.token();
  return absl::OkStatus();
}

void EtcdClient::AfterFailure(const grpc::Status& status) {
  // A simple token lives in the members' memory: a restarted member does not know it.
  if (status.error_code() == grpc::StatusCode::UNAUTHENTICATED && !login_.user.empty()) {
    Authenticate().IgnoreError();
  }
}

absl::Status EtcdClient::Failed(std::string_view what, const void* grpc_status) {
  const auto& status = *static_cast<const grpc::Status*>(grpc_status);
  AfterFailure(status);
  return absl::UnavailableError(StrCat("etcd at ", endpoints_text_, " did not ", what, ": ",
                                       status.error_message(), " (gRPC code ",
                                       static_cast<int>(status.error_code()), ")"));
}

absl::StatusOr<std::optional<EtcdKeyValue>> EtcdClient::Get(std::string_view key) {
  etcdserverpb::RangeRequest request;
  request.set_key(std::string(key));
  etcdserverpb::RangeResponse response;
  if (grpc::Status s = WithTries([&](auto* c) { return kv_->Range(c, request, &response); });
      !s.ok()) {
    return Failed("read a key", &s);
  }
  if (response.kvs_size() == 0) return std::optional<EtcdKeyValue>();
  return std::optional<EtcdKeyValue>(FromProto(response.kvs(0)));
}

absl::StatusOr<int64_t> EtcdClient::Revision() {
  etcdserverpb::RangeRequest request;
  request.set_key("/");
  request.set_count_only(true);
  etcdserverpb::RangeResponse response;
  if (grpc::Status s = WithTries([&](auto* c) { return kv_->Range(c, request, &response); });
      !s.ok()) {
    return Failed("read its revision", &s);
  }
  return response.header().revision();
}

absl::StatusOr<std::vector<EtcdKeyValue>> EtcdClient::List(std::string_view prefix,
                                                           int64_t* revision) {
  etcdserverpb::RangeRequest request;
  request.set_key(std::string(prefix));
  request.set_range_end(PrefixEnd(prefix));
  etcdserverpb::RangeResponse response;
  if (grpc::Status s = WithTries([&](auto* c) { return kv_->Range(c, request, &response); });
      !s.ok()) {
    return Failed("list keys", &s);
  }
  if (revision != nullptr) *revision = response.header().revision();
  std::vector<EtcdKeyValue> out;
  out.reserve(response.kvs_size());
  for (const auto& kv : response.kvs()) out.push_back(FromProto(kv));
  return out;
}

absl::StatusOr<int64_t> EtcdClient::Put(std::string_view key, std::string_view value,
                                        int64_t lease) {
  etcdserverpb::PutRequest request;
  request.set_key(std::string(key));
  request.set_value(std::string(value));
  request.set_lease(lease);
  etcdserverpb::PutResponse response;
  if (grpc::Status s = WithTries([&](auto* c) { return kv_->Put(c, request, &response); });
      !s.ok()) {
    return Failed("write a key", &s);
  }
  return response.header().revision();
}

absl::StatusOr<etcdserverpb::TxnResponse> EtcdClient::Txn(const etcdserverpb::TxnRequest& request,
                                                          std::string_view what, bool* retried) {
  etcdserverpb::TxnResponse response;
  if (grpc::Status s = WithTries([&](auto* c) { return kv_->Txn(c, request, &response); }, retried);
      !s.ok()) {
    return Failed(what, &s);
  }
  return response;
}

absl::StatusOr<EtcdKeyValue> EtcdClient::CreateIfAbsent(std::string_view key,
                                                        std::string_view value, int64_t lease,
                                                        bool* created) {
  etcdserverpb::TxnRequest request;
  auto* compare = request.add_compare();
  compare->set_key(std::string(key));
  compare->set_target(etcdserverpb::Compare::CREATE);
  compare->set_result(etcdserverpb::Compare::EQUAL);
  compare->set_create_revision(0);
  auto* put = request.add_success()->mutable_request_put();
  put->set_key(std::string(key));
  put->set_value(std::string(value));
  put->set_lease(lease);
  request.add_failure()->mutable_request_range()->set_key(std::string(key));
  bool retried = false;
  ASSIGN_OR_RETURN(etcdserverpb::TxnResponse response, Txn(request, "run a transaction", &retried));
  if (created != nullptr) *created = response.succeeded();
  if (response.succeeded()) {
    const int64_t revision = response.header().revision();
    return EtcdKeyValue{.key = std::string(key),
                        .value = std::string(value),
                        .create_revision = revision,
                        .mod_revision = revision,
                        .lease = lease};
  }
  const auto& range = response.responses(0).response_range();
  if (range.kvs_size() == 0) {  // deleted between the compare and the read: try again
    return CreateIfAbsent(key, value, lease, created);
  }
  EtcdKeyValue found = FromProto(range.kvs(0));
  // A first try that committed before etcd said it lost it (Txn tried again): ours.
  if (created != nullptr && found.value == value && found.lease == lease &&
      found.mod_revision == found.create_revision && retried) {
    *created = true;
  }
  return found;
}

absl::StatusOr<bool> EtcdClient::PutIfUnchanged(std::string_view key, std::string_view value,
                                                int64_t expected_mod_revision) {
  ASSIGN_OR_RETURN(int64_t revision,
                   CommitIfUnchanged({{std::string(key), expected_mod_revision}},
                                     {{.key = std::string(key), .value = std::string(value)}}));
  return revision != 0;
}

absl::StatusOr<int64_t> EtcdClient::CommitIfUnchanged(const std::vector<Guard>& guards,
                                                      const std::vector<Change>& changes) {
  etcdserverpb::TxnRequest request;
  for (const Guard& g : guards) {
    // An absent key compares as mod_revision 0.
    auto* compare = request.add_compare();
    compare->set_key(g.key);
    compare->set_target(etcdserverpb::Compare::MOD);
    compare->set_result(etcdserverpb::Compare::EQUAL);
    compare->set_mod_revision(g.mod_revision);
  }
  for (const Change& c : changes) {
    if (c.erase) {
      auto* erase = request.add_success()->mutable_request_delete_range();
      erase->set_key(c.key);
      if (!c.range_end.empty()) erase->set_range_end(c.range_end);
    } else {
      auto* put = request.add_success()->mutable_request_put();
      put->set_key(c.key);
      put->set_value(c.value);
    }
  }
  ASSIGN_OR_RETURN(etcdserverpb::TxnResponse response, Txn(request, "run a transaction"));
  return response.succeeded() ? response.header().revision() : 0;
}

absl::Status EtcdClient::Delete(std::string_view key, int64_t expected_create_revision) {
  etcdserverpb::TxnRequest request;
  if (expected_create_revision != 0) {
    auto* compare = request.add_compare();
    compare->set_key(std::string(key));
    compare->set_target(etcdserverpb::Compare::CREATE);
    compare->set_result(etcdserverpb::Compare::EQUAL);
    compare->set_create_revision(expected_create_revision);
  }
  request.add_success()->mutable_request_delete_range()->set_key(std::string(key));
  ASSIGN_OR_RETURN(etcdserverpb::TxnResponse response, Txn(request, "delete a key"));
  return absl::OkStatus();
}

absl::StatusOr<int64_t> EtcdClient::GrantLease(int ttl_seconds, std::function<void()> on_lost) {
  etcdserverpb::LeaseGrantRequest request;
  request.set_ttl(ttl_seconds);
  etcdserverpb::LeaseGrantResponse response;
  auto asked = std::chrono::steady_clock::now();
  // A grant whose answer was lost leaves a lease nobody keeps: it expires.
  if (grpc::Status s = WithTries([&](auto* c) {
        asked = std::chrono::steady_clock::now();
        return lease_->LeaseGrant(c, request, &response);
      });
      !s.ok()) {
    return Failed("grant a lease", &s);
  }
  if (!response.error().empty()) {
    return absl::UnavailableError(StrCat("etcd refused a lease: ", response.error()));
  }
  absl::MutexLock lock(&mu_);
  leases_.push_back({response.id(), ttl_seconds, std::move(on_lost),
                     asked + std::chrono::seconds(response.ttl())});
  if (!keeping_alive_) {
    keeping_alive_ = true;
    threads_.emplace_back([this] { KeepAliveLoop(); });
  }
  return response.id();
}

absl::Status EtcdClient::RevokeLease(int64_t lease) {
  {
    absl::MutexLock lock(&mu_);
    std::erase_if(leases_, [&](const KeptLease& l) { return l.id == lease; });
  }
  etcdserverpb::LeaseRevokeRequest request;
  request.set_id(lease);
  etcdserverpb::LeaseRevokeResponse response;
  if (grpc::Status s =
          WithTries([&](auto* c) { return lease_->LeaseRevoke(c, request, &response); });
      !s.ok()) {
    return Failed("revoke a lease", &s);
  }
  return absl::OkStatus();
}

std::chrono::steady_clock::time_point EtcdClient::LeaseKeptUntil(int64_t lease) {
  absl::MutexLock lock(&mu_);
  for (const KeptLease& l : leases_) {
    if (l.id == lease) return l.kept_until;
  }
  return std::chrono::steady_clock::time_point::min();
}

void EtcdClient::KeepAliveLoop() {
  while (true) {
    std::vector<KeptLease> leases;
    int period_ms = 1000;
    {
      absl::MutexLock lock(&mu_);
      leases = leases_;
      for (const KeptLease& l : leases) period_ms = std::min(period_ms, l.ttl_seconds * 1000 / 3);
    }
    if (stopping_.WaitForNotificationWithTimeout(absl::Milliseconds(std::max(period_ms, 100)))) {
      return;
    }
    if (leases.empty()) continue;
    grpc::ClientContext context;
    // Not a call's patience: a round stuck on a member that stopped answering must end in
    // time for the next round to reach another before the leases expire.
    context.set_deadline(std::chrono::system_clock::now() + timeout_);
    AddToken(&context);
    auto stream = lease_->LeaseKeepAlive(&context);
    std::vector<int64_t> lost;
    for (const KeptLease& l : leases) {
      etcdserverpb::LeaseKeepAliveRequest request;
      request.set_id(l.id);
      etcdserverpb::LeaseKeepAliveResponse response;
      const auto sent = std::chrono::steady_clock::now();
      if (!stream->Write(request) || !stream->Read(&response)) break;  // etcd away: next round
      if (response.ttl() <= 0) {
        lost.push_back(l.id);
        continue;
      }
      absl::MutexLock lock(&mu_);
      for (KeptLease& kept : leases_) {
        if (kept.id == l.id) kept.kept_until = sent + std::chrono::seconds(response.ttl());
      }
    }
    stream->WritesDone();
    AfterFailure(stream->Finish());
    for (int64_t id : lost) {
      std::function<void()> on_lost;
      {
        absl::MutexLock lock(&mu_);
        for (auto it = leases_.begin(); it != leases_.end(); ++it) {
          if (it->id != id) continue;
          on_lost = std::move(it->on_lost);
          leases_.erase(it);
          break;
        }
      }
      if (on_lost) on_lost();
    }
  }
}

void EtcdClient::Watch(std::string prefix, int64_t from_revision,
                       std::function<void(const EtcdEvent&)> on_event) {
  absl::MutexLock lock(&mu_);
  threads_.emplace_back(
      [this, prefix = std::move(prefix), from_revision, on_event = std::move(on_event)]() mutable {
        WatchLoop(std::move(prefix), from_revision, std::move(on_event));
      });
}

void EtcdClient::WatchLoop(std::string prefix, int64_t from_revision,
                           std::function<void(const EtcdEvent&)> on_event) {
  int64_t seen = from_revision;
  while (!stopping_.HasBeenNotified()) {
    auto context = std::make_shared<grpc::ClientContext>();
    {
      absl::MutexLock lock(&mu_);
      if (stopping_.HasBeenNotified()) return;
      watches_.push_back(context);
    }
    AddToken(context.get());
    auto stream = watch_->Watch(context.get());
    etcdserverpb::WatchRequest request;
    auto* create = request.mutable_create_request();
    create->set_key(prefix);
    create->set_range_end(PrefixEnd(prefix));
    create->set_start_revision(seen + 1);
    if (stream->Write(request)) {
      etcdserverpb::WatchResponse response;
      while (stream->Read(&response)) {
        if (response.compact_revision() > 0) seen = response.compact_revision() - 1;
        for (const auto& event : response.events()) {
          EtcdEvent out{.deleted = event.type() == mvccpb::Event::DELETE,
                        .kv = FromProto(event.kv())};
          seen = std::max(seen, event.kv().mod_revision());
          on_event(out);
        }
      }
    }
    context->TryCancel();
    AfterFailure(stream->Finish());
    {
      absl::MutexLock lock(&mu_);
      std::erase(watches_, context);
    }
    stopping_.WaitForNotificationWithTimeout(absl::Milliseconds(300));
  }
}

}  // namespace strata::cluster
