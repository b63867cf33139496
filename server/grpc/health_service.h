// The standard gRPC health service (grpc.health.v1.Health: Check and Watch),
// served on the server's CallQueues in place of gRPC's default one. gRPC
// 1.51 serves its default through the callback API, whose threads then poll
// every socket and take the events of every call, on the queues' too: ~4
// context switches a small query with nothing else using that API
// (docs/benchmarks.md, "Where a small query's time goes").
//
// As gRPC's: "" is the server as a whole; a service never named is NOT_FOUND
// to Check and SERVICE_UNKNOWN to Watch; Shutdown reports NOT_SERVING for
// good. Unlike it, Shutdown also ends every Watch once NOT_SERVING is sent, so
// a watching client (a load balancer, a peer) does not hold the stop.
// No token is needed (probes carry none).
//
// Thread-safety: SetServing and Shutdown from any thread.
#pragma once

#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/synchronization/mutex.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "rpc/call_queues.h"

namespace strata {

using RawHealthService = grpc::health::v1::Health::WithRawMethod_Check<
    grpc::health::v1::Health::WithRawMethod_Watch<grpc::health::v1::Health::Service>>;

class HealthService final : public RawHealthService {
 public:
  using ServingStatus = grpc::health::v1::HealthCheckResponse::ServingStatus;

  // "" and each of `services` SERVING.
  explicit HealthService(const std::vector<std::string>& services);
  ~HealthService() override;

  // Serves both methods on `queues` (which must outlive their calls) once the
  // server is built.
  void Serve(CallQueues* queues);

  // `service` ("" the server as a whole) SERVING or NOT_SERVING, told to its
  // watchers; ignored after Shutdown.
  void SetServing(const std::string& service, bool serving);
  // Every service NOT_SERVING from now on; each Watch is sent that, then ended.
  void Shutdown();

 private:
  class WatchCall;

  // Check's answer (on a spare thread, as every unary method: rpc/unary_calls.h).
  grpc::Status AnswerCheck(const grpc::ByteBuffer& in, grpc::ByteBuffer* out);

  ServingStatus StatusLocked(const std::string& service) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  CallQueues* queues_ = nullptr;
  // Guards the statuses and every WatchCall's state too: watches are few,
  // and one lock keeps a status change and a watch's own steps in order.
  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, ServingStatus> statuses_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_set<WatchCall*> watchers_ ABSL_GUARDED_BY(mu_);
  bool shut_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace strata
