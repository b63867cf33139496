#include "server/write_service.h"

#include "common/status.h"
#include "common/strings.h"
#include "google/protobuf/arena.h"
#include "server/write_convert.h"

namespace strata {

grpc::ServerUnaryReactor* WriteService::WriteRecords(grpc::CallbackServerContext* context,
                                                     const grpc::ByteBuffer* in,
                                                     grpc::ByteBuffer* out) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  // Runs on the writer's committer thread, which must not see an exception:
  // one here (bad_alloc building the response) fails this call only.
  auto finish = [this, reactor, out](absl::StatusOr<WriteResult> result) {
    absl::Status status = result.status();
    try {
      if (status.ok()) {
        metrics_.CountWrite(*result);
        v1::WriteRecordsResponse response;
        ToProto(*result, &response);
        status = SerializeResponse(response, out);
      }
    } catch (const std::exception& e) {
      status = absl::InternalError(StrCat("unexpected error answering the write: ", e.what()));
    }
    reactor->Finish(ToGrpcStatus(status));
  };
  google::protobuf::Arena arena(CallArenaOptions());
  auto* request = google::protobuf::Arena::CreateMessage<v1::WriteRecordsRequest>(&arena);
  try {
    absl::StatusOr<std::shared_ptr<const Principal>> caller =
        StartUnary(context, in, auth_, request);
    absl::Status allowed = caller.status();
    if (allowed.ok()) {
      allowed = (*caller)->Require(Action::kWrite, request->database_name(), request->table_name());
    }
    if (!allowed.ok()) {
      finish(allowed);
    } else {
      ProtoWriteSource source(*request);
      engine_.WriteAsync(source, std::move(finish));
    }
  } catch (const std::exception& e) {
    reactor->Finish(ToGrpcStatus(absl::InternalError(StrCat("unexpected error: ", e.what()))));
  }
  return reactor;
}

}  // namespace strata
