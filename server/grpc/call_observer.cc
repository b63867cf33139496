#include "server/grpc/call_observer.h"

#include <chrono>

#include "common/utf8.h"
#include "grpcpp/server_context.h"
#include "server/grpc/status_map.h"
#include "spdlog/spdlog.h"

namespace strata {
namespace {

// Codes that say the client asked for something it may not or cannot have;
// the rest say the server could not serve a good request.
bool IsClientMistake(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::CANCELLED:
    case grpc::StatusCode::INVALID_ARGUMENT:
    case grpc::StatusCode::NOT_FOUND:
    case grpc::StatusCode::ALREADY_EXISTS:
    case grpc::StatusCode::PERMISSION_DENIED:
    case grpc::StatusCode::FAILED_PRECONDITION:
    case grpc::StatusCode::OUT_OF_RANGE:
    case grpc::StatusCode::UNAUTHENTICATED:
      return true;
    default:
      return false;
  }
}

class CallObserver final : public grpc::experimental::Interceptor {
 public:
  CallObserver(grpc::experimental::ServerRpcInfo* info, ServerMetrics* metrics,
               std::shared_ptr<std::atomic<int64_t>> in_flight)
      : info_(info),
        metrics_(metrics),
        in_flight_(std::move(in_flight)),
        started_(std::chrono::steady_clock::now()) {
    in_flight_->fetch_add(1);
  }
  // gRPC destroys a call's interceptors with the call.
  ~CallObserver() override { in_flight_->fetch_sub(1); }

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(
            grpc::experimental::InterceptionHookPoints::PRE_SEND_STATUS)) {
      Finished(methods->GetSendStatus());
    }
    methods->Proceed();
  }

 private:
  void Finished(const grpc::Status& status) {
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    const std::string_view method = info_->method() != nullptr ? info_->method() : "unknown";
    metrics_->CountRpc(method, static_cast<int>(status.error_code()), seconds);
    if (status.ok()) {
      // --log-level debug: every call.
      spdlog::debug("request: method={} code=OK peer={} duration_ms={:.1f}", method,
                    info_->server_context()->peer(), seconds * 1000);
      return;
    }
    const spdlog::level::level_enum level =
        IsClientMistake(status.error_code()) ? spdlog::level::info : spdlog::level::warn;
    // logfmt-like fields in one line; the message is quoted with its
    // newlines (SQL carets) escaped.
    spdlog::log(level, "request failed: method={} code={} peer={} duration_ms={:.1f} message={:?}",
                method, StatusCodeName(status.error_code()), info_->server_context()->peer(),
                seconds * 1000, ToValidUtf8(status.error_message()));
  }

  grpc::experimental::ServerRpcInfo* const info_;
  ServerMetrics* const metrics_;
  const std::shared_ptr<std::atomic<int64_t>> in_flight_;
  const std::chrono::steady_clock::time_point started_;
};

}  // namespace

grpc::experimental::Interceptor* CallObserverFactory::CreateServerInterceptor(
    grpc::experimental::ServerRpcInfo* info) {
  return new CallObserver(info, metrics_, in_flight_);
}

}  // namespace strata
