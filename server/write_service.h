// WriteService handler: adapts WriteRecords to Engine::Write.
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

  STRATA_SERVE_UNARY(WriteRecords, v1::WriteRecordsRequest, v1::WriteRecordsResponse);

 private:
  Engine& engine_;
  Authenticator& auth_;
  ServerMetrics& metrics_;
};

}  // namespace strata
