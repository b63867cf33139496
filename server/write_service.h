// WriteService handler: adapts WriteRecords to Engine::Write.
#pragma once

#include "storage/engine.h"
#include "strata/v1/write.grpc.pb.h"

namespace strata {

class WriteService final : public v1::WriteService::CallbackService {
 public:
  // `engine` must outlive the service.
  explicit WriteService(Engine* engine) : engine_(*engine) {}

  grpc::ServerUnaryReactor* WriteRecords(grpc::CallbackServerContext* context,
                                         const v1::WriteRecordsRequest* request,
                                         v1::WriteRecordsResponse* response) override;

 private:
  Engine& engine_;
};

}  // namespace strata
