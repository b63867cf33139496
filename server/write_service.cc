#include "server/write_service.h"

#include "common/status.h"
#include "server/write_convert.h"

namespace strata {

absl::Status WriteService::WriteRecords(const Principal& caller,
                                        const v1::WriteRecordsRequest* request,
                                        v1::WriteRecordsResponse* response) {
  RETURN_IF_ERROR(
      caller.Require(Action::kWrite, request->database_name(), request->table_name()));
  ASSIGN_OR_RETURN(WriteResult result, engine_.Write(FromProto(*request)));
  metrics_.CountWrite(result);
  ToProto(result, response);
  return absl::OkStatus();
}

}  // namespace strata
