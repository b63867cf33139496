// The internal service's stubs of the other nodes, one channel per address, made once and
// kept (a channel reconnects by itself). Thread-safe.
#pragma once

#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "cluster/membership.h"
#include "strata/internal/v1/shard.grpc.pb.h"

namespace strata::cluster {

class PeerStubs {
 public:
  // `membership` (how this node proves it is one) must outlive this.
  explicit PeerStubs(const Membership* membership) : membership_(*membership) {}

  internal::v1::ShardService::Stub* For(const std::string& address) {
    absl::MutexLock lock(&mu_);
    auto& stub = stubs_[address];
    if (stub == nullptr) {
      grpc::ChannelArguments args;
      args.SetMaxReceiveMessageSize(64 << 20);
      args.SetMaxSendMessageSize(64 << 20);
      stub = internal::v1::ShardService::NewStub(
          grpc::CreateCustomChannel(address, membership_.ChannelCredentials(), args));
    }
    return stub.get();
  }

 private:
  const Membership& membership_;
  absl::Mutex mu_;
  absl::flat_hash_map<std::string, std::unique_ptr<internal::v1::ShardService::Stub>> stubs_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace strata::cluster
