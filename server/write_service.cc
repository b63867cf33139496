#include "server/write_service.h"

#include "common/status.h"
#include "server/unary.h"
#include "server/write_convert.h"

namespace strata {

grpc::ServerUnaryReactor* WriteService::WriteRecords(grpc::CallbackServerContext* context,
                                                     const v1::WriteRecordsRequest* request,
                                                     v1::WriteRecordsResponse* response) {
  return FinishUnary(context, [&]() -> absl::Status {
    ASSIGN_OR_RETURN(WriteResult result, engine_.Write(FromProto(*request)));
    ToProto(result, response);
    return absl::OkStatus();
  });
}

}  // namespace strata
