// EtcdClient: the part of etcd's v3 gRPC API the cluster uses (docs/cluster.md) — keys,
// leases, a compare-and-create transaction and watches — over stubs generated from the .proto
// files Debian's golang-etcd-server-dev ships (proto/CMakeLists.txt). Debian has no C++ etcd
// client; this is a thin adapter, not one: every call is one RPC with a deadline, and the
// errors say which endpoint and what to check.
//
// Thread-safety: every method may be called from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "cluster/cluster_options.h"
#include "etcd/etcdserver/etcdserverpb/rpc.grpc.pb.h"

namespace strata::cluster {

struct EtcdKeyValue {
  std::string key;
  std::string value;
  int64_t create_revision = 0;
  int64_t mod_revision = 0;
  int64_t lease = 0;
};

struct EtcdEvent {
  bool deleted = false;
  EtcdKeyValue kv;  // for a delete: the key and the revision of the delete (mod_revision)
};

class EtcdClient {
 public:
  // Connects to `endpoints` ("ip:port"; over TLS when `tls` is enabled, presenting its client
  // certificate if it has one: etcd's --client-cert-auth takes the certificate's common name
  // as the etcd user), logs in as `login`'s user if it names one (etcd's auth; the token is
  // fetched again when a member no longer knows it), and checks one answers within
  // `timeout`: UNAVAILABLE naming them otherwise.
  static absl::StatusOr<std::unique_ptr<EtcdClient>> Connect(
      const std::vector<std::string>& endpoints, std::chrono::milliseconds timeout,
      const ServiceTls& tls = {}, const EtcdLogin& login = {});
  ~EtcdClient();

  // The value at `key`, or nullopt.
  absl::StatusOr<std::optional<EtcdKeyValue>> Get(std::string_view key);
  // The store's current revision.
  absl::StatusOr<int64_t> Revision();
  // Every key under `prefix`, in key order, and the store's revision they were read at.
  absl::StatusOr<std::vector<EtcdKeyValue>> List(std::string_view prefix, int64_t* revision);
  // Puts `value` (bound to `lease` unless 0); returns the new revision.
  absl::StatusOr<int64_t> Put(std::string_view key, std::string_view value, int64_t lease = 0);
  // Creates `key` only if it does not exist (create_revision == 0), in one transaction.
  // Returns the key as it is after the call: ours (create_revision == the new revision) or
  // the holder's.
  absl::StatusOr<EtcdKeyValue> CreateIfAbsent(std::string_view key, std::string_view value,
                                              int64_t lease = 0, bool* created = nullptr);
  // Replaces `key` only if its mod_revision is still `expected` (compare-and-swap); false if
  // another change came first.
  absl::StatusOr<bool> PutIfUnchanged(std::string_view key, std::string_view value,
                                      int64_t expected_mod_revision);
  // One transaction: every change, only if each guarded key's mod_revision is still the
  // expected one (0: the key must be absent). Returns the new revision, or 0 when a compare
  // failed (nothing was written).
  struct Guard {
    std::string key;
    int64_t mod_revision = 0;
  };
  struct Change {
    std::string key;
    std::string value;   // put (unless erase)
    bool erase = false;  // delete [key, range_end), or key alone when range_end is empty
    std::string range_end;
  };
  absl::StatusOr<int64_t> CommitIfUnchanged(const std::vector<Guard>& guards,
                                            const std::vector<Change>& changes);
  // Deletes `key`, only if its create_revision is `expected` when that is not 0 (a leader
  // gives up its own key, not a successor's).
  absl::Status Delete(std::string_view key, int64_t expected_create_revision = 0);

  // A lease of `ttl` seconds, kept alive by a thread of the client until Revoke or the
  // client's end; `on_lost` runs (once, on that thread) if a keep-alive finds it expired.
  absl::StatusOr<int64_t> GrantLease(int ttl_seconds, std::function<void()> on_lost);
  absl::Status RevokeLease(int64_t lease);
  // Until when etcd keeps `lease` even if no keep-alive reaches it any more: the last
  // keep-alive etcd answered was sent before etcd renewed the lease, so its sending plus the
  // TTL etcd gave is a bound (on this host's steady clock). The past for a lease not kept.
  std::chrono::steady_clock::time_point LeaseKeptUntil(int64_t lease);

  // Calls `on_event` for every change under `prefix` after `from_revision` (exclusive), in
  // revision order, on a thread of the client, until the client ends; reconnects on errors
  // and resumes after the last revision seen.
  void Watch(std::string prefix, int64_t from_revision,
             std::function<void(const EtcdEvent&)> on_event);

 private:
  EtcdClient() = default;
  // Sets a call's deadline and its auth token.
  void Prepare(grpc::ClientContext* context);
  void AddToken(grpc::ClientContext* context);
  // Logs in as login_.user (OK at once without one); UNAUTHENTICATED saying what to check.
  absl::Status Authenticate();
  // After a call or stream ended with `status`: logs in again when etcd forgot the token.
  void AfterFailure(const grpc::Status& status);
  absl::Status Failed(std::string_view what, const void* grpc_status);
  // Runs `call` (a unary call given a prepared context), again after a pause while it fails
  // with UNAVAILABLE, kCallTries times at most; `*retried` (when given) then turns true.
  template <typename Call>
  grpc::Status WithTries(const Call& call, bool* retried = nullptr);
  // Runs a transaction, tried again (WithTries) when etcd was unavailable or says it lost
  // the proposal to a leader change; `*retried` (when given) then turns true.
  absl::StatusOr<etcdserverpb::TxnResponse> Txn(const etcdserverpb::TxnRequest& request,
                                                std::string_view what, bool* retried = nullptr);
  void KeepAliveLoop();
  void WatchLoop(std::string prefix, int64_t from_revision,
                 std::function<void(const EtcdEvent&)> on_event);

  std::string endpoints_text_;
  std::chrono::milliseconds timeout_{};       // to connect, and a keep-alive round
  std::chrono::milliseconds call_timeout_{};  // every other call (Prepare)
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<etcdserverpb::KV::Stub> kv_;
  std::unique_ptr<etcdserverpb::Lease::Stub> lease_;
  std::unique_ptr<etcdserverpb::Watch::Stub> watch_;
  std::unique_ptr<etcdserverpb::Auth::Stub> auth_;
  EtcdLogin login_;
  absl::Mutex token_mu_;
  std::string token_ ABSL_GUARDED_BY(token_mu_);

  struct KeptLease {
    int64_t id = 0;
    int ttl_seconds = 0;
    std::function<void()> on_lost;
    std::chrono::steady_clock::time_point kept_until;
  };
  absl::Mutex mu_;
  std::vector<KeptLease> leases_ ABSL_GUARDED_BY(mu_);
  bool keeping_alive_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::shared_ptr<grpc::ClientContext>> watches_ ABSL_GUARDED_BY(mu_);
  absl::Notification stopping_;
  std::vector<std::thread> threads_ ABSL_GUARDED_BY(mu_);
};

}  // namespace strata::cluster
