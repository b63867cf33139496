#include "server/grpc/health_service.h"

#include "common/strings.h"
#include "server/grpc/status_map.h"
#include "server/grpc/unary.h"

namespace strata {
namespace {

using grpc::health::v1::HealthCheckRequest;
using grpc::health::v1::HealthCheckResponse;

constexpr std::string_view kHint = "send a grpc.health.v1.HealthCheckRequest";

}  // namespace

// One Watch call: the service's status now, then each change, one write at
// a time (a change during a write is sent after it, the latest only). Its
// state is guarded by the service's mutex; holds count its steps still to
// run (the request's, the done notification, a write or the finish), and the
// last deletes it.
class HealthService::WatchCall final {
 public:
  static void Await(HealthService* service, grpc::ServerCompletionQueue* queue) {
    auto* call = new WatchCall(service, queue);
    call->context_.AsyncNotifyWhenDone(&call->done_tag_);
    service->RequestWatch(&call->context_, &call->request_, &call->writer_, queue, queue,
                          &call->requested_tag_);
  }

  const std::string& service_name() const { return name_; }

  // The watched service's status is now `status`.
  void Tell(ServingStatus status) ABSL_EXCLUSIVE_LOCKS_REQUIRED(service_.mu_) {
    latest_ = status;
    WriteLocked();
  }

 private:
  WatchCall(HealthService* service, grpc::ServerCompletionQueue* queue)
      : service_(*service), queue_(queue), lease_(service->queues_) {}

  void Requested(bool ok) {
    if (!ok) {
      delete this;  // never begun: gRPC sends no done notification either
      return;
    }
    Await(&service_, queue_);
    HealthCheckRequest request;
    absl::Status parsed = ParseRequest(request_, &request, kHint);
    absl::MutexLock lock(&service_.mu_);
    if (parsed.ok()) {
      name_ = request.service();
      latest_ = service_.StatusLocked(name_);
      service_.watchers_.insert(this);
      WriteLocked();
    } else {
      FinishLocked(ToGrpcStatus(parsed));
    }
    ReleaseLocked();
  }

  void WriteLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(service_.mu_) {
    if (writing_ || finishing_ || ended_) return;
    if (!sent_any_ || latest_ != sent_) {
      HealthCheckResponse response;
      response.set_status(latest_);
      if (!SerializeResponse(response, &out_).ok()) {
        return FinishLocked(grpc::Status(grpc::StatusCode::INTERNAL, "could not send the status"));
      }
      sent_ = latest_;
      sent_any_ = true;
      writing_ = true;
      ++holds_;
      writer_.Write(out_, &written_tag_);
    } else if (service_.shut_) {
      FinishLocked(grpc::Status(grpc::StatusCode::UNAVAILABLE, "the server is stopping"));
    }
  }

  void FinishLocked(const grpc::Status& status) ABSL_EXCLUSIVE_LOCKS_REQUIRED(service_.mu_) {
    finishing_ = true;
    ++holds_;
    writer_.Finish(status, &finished_tag_);
  }

  void Written(bool ok) {
    absl::MutexLock lock(&service_.mu_);
    writing_ = false;
    if (ok) WriteLocked();  // else the client is gone: the done notification follows
    ReleaseLocked();
  }

  void Finished(bool /*ok*/) {
    absl::MutexLock lock(&service_.mu_);
    ReleaseLocked();
  }

  // Finished, or cancelled (the client left, the deadline, the server's stop).
  void Done(bool /*ok*/) {
    absl::MutexLock lock(&service_.mu_);
    ended_ = true;
    service_.watchers_.erase(this);
    ReleaseLocked();
  }

  void ReleaseLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(service_.mu_) {
    if (--holds_ == 0) delete this;
  }

  HealthService& service_;
  grpc::ServerCompletionQueue* const queue_;
  CallQueues::Lease lease_;
  grpc::ServerContext context_;
  grpc::ByteBuffer request_;
  grpc::ByteBuffer out_;
  grpc::ServerAsyncWriter<grpc::ByteBuffer> writer_{&context_};
  std::string name_;
  ServingStatus latest_ = HealthCheckResponse::SERVICE_UNKNOWN;
  ServingStatus sent_ = HealthCheckResponse::SERVICE_UNKNOWN;
  bool sent_any_ = false;
  bool writing_ = false;
  bool finishing_ = false;
  bool ended_ = false;
  int holds_ = 2;  // the request's step and the done notification
  CallQueues::StepTag<WatchCall, &WatchCall::Requested> requested_tag_{this};
  CallQueues::StepTag<WatchCall, &WatchCall::Written> written_tag_{this};
  CallQueues::StepTag<WatchCall, &WatchCall::Finished> finished_tag_{this};
  CallQueues::StepTag<WatchCall, &WatchCall::Done> done_tag_{this};
};

HealthService::HealthService(const std::vector<std::string>& services) {
  statuses_[""] = HealthCheckResponse::SERVING;
  for (const std::string& service : services) statuses_[service] = HealthCheckResponse::SERVING;
}

HealthService::~HealthService() = default;

void HealthService::Serve(CallQueues* queues) {
  queues_ = queues;
  ServeUnaryMethod(queues,
                   {.await = AwaitWith(this, &HealthService::RequestCheck),
                    .answer = [this](const grpc::ServerContext&, const grpc::ByteBuffer& in,
                                     grpc::ByteBuffer* out) { return AnswerCheck(in, out); }});
  for (const auto& queue : queues->queues()) WatchCall::Await(this, queue.get());
}

grpc::Status HealthService::AnswerCheck(const grpc::ByteBuffer& in, grpc::ByteBuffer* out) {
  HealthCheckRequest request;
  if (absl::Status parsed = ParseRequest(in, &request, kHint); !parsed.ok()) {
    return ToGrpcStatus(parsed);
  }
  HealthCheckResponse response;
  {
    absl::MutexLock lock(&mu_);
    response.set_status(StatusLocked(request.service()));
  }
  if (response.status() == HealthCheckResponse::SERVICE_UNKNOWN) {
    return ToGrpcStatus(absl::NotFoundError(
        StrCat("no service named \"", request.service(),
               "\" reports its health here; ask for \"\" (the server) or a strata.v1 service")));
  }
  return ToGrpcStatus(SerializeResponse(response, out));
}

void HealthService::SetServing(const std::string& service, bool serving) {
  const ServingStatus status =
      serving ? HealthCheckResponse::SERVING : HealthCheckResponse::NOT_SERVING;
  absl::MutexLock lock(&mu_);
  if (shut_) return;
  statuses_[service] = status;
  for (WatchCall* watcher : watchers_) {
    if (watcher->service_name() == service) watcher->Tell(status);
  }
}

void HealthService::Shutdown() {
  absl::MutexLock lock(&mu_);
  shut_ = true;
  for (auto& [name, status] : statuses_) status = HealthCheckResponse::NOT_SERVING;
  for (WatchCall* watcher : watchers_) watcher->Tell(HealthCheckResponse::NOT_SERVING);
}

HealthService::ServingStatus HealthService::StatusLocked(const std::string& service) const {
  auto it = statuses_.find(service);
  return it == statuses_.end() ? HealthCheckResponse::SERVICE_UNKNOWN : it->second;
}

}  // namespace strata
