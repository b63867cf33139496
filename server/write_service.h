// WriteService handler: adapts WriteRecords to Engine::WriteAsync.
#pragma once

#include "server/metrics.h"
#include "server/unary.h"
#include "storage/engine.h"
#include "strata/v1/write.grpc.pb.h"

namespace strata {

class WriteService final
    : public v1::WriteService::WithRawCallbackMethod_WriteRecords<v1::WriteService::Service> {
 public:
  // The arguments must outlive the service.
  WriteService(Engine* engine, Authenticator* auth, ServerMetrics* metrics)
      : engine_(*engine), auth_(*auth), metrics_(*metrics) {}

  // Served without blocking: the request is parsed and prepared on gRPC's
  // thread, and the call finished by the writer once its group is committed
  // (storage/writer.h). Blocked in a write's sync, gRPC's callback threads
  // (one per core) held up every other call and kept groups small.
  grpc::ServerUnaryReactor* WriteRecords(grpc::CallbackServerContext* context,
                                         const grpc::ByteBuffer* in,
                                         grpc::ByteBuffer* out) override;

 private:
  // The caller's write of `source`, if it may write that table; `finish`
  // answers the call.
  void Write(const Principal& caller, WriteSource& source,
             Writer::WriteDone finish);

  Engine& engine_;
  Authenticator& auth_;
  ServerMetrics& metrics_;
};

}  // namespace strata
