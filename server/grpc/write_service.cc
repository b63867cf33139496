#include "server/grpc/write_service.h"

#include "common/status.h"
#include "common/strings.h"
#include "google/protobuf/arena.h"
#include "server/wire/wire_write_source.h"
#include "server/wire/write_convert.h"

namespace strata {

grpc::ServerUnaryReactor* WriteService::Write(grpc::CallbackServerContext* context,
                                              const grpc::ByteBuffer* in, grpc::ByteBuffer* out,
                                              int max_records) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  // Runs on the writer's committer thread, which must not see an exception:
  // one here (bad_alloc building the response) fails this call only.
  auto finish = [reactor, out](absl::StatusOr<WriteResult> result) {
    absl::Status status = result.status();
    try {
      if (status.ok()) {
        v1::WriteRecordsResponse response;
        ToProto(*result, &response);
        status = SerializeResponse(response, out);
      }
    } catch (const std::exception& e) {
      status = absl::InternalError(StrCat("unexpected error answering the write: ", e.what()));
    }
    reactor->Finish(ToGrpcStatus(status));
  };
  try {
    absl::StatusOr<std::shared_ptr<const Principal>> caller = AuthenticateCall(auth_, *context);
    if (!caller.ok()) {
      finish(caller.status());
      return reactor;
    }
    if (absl::Status admitted = ingest_.CheckAdmission(); !admitted.ok()) {
      finish(admitted);
      return reactor;
    }
    // The request's bytes in one piece (a copy only when gRPC holds them in
    // several slices), read in place; protobuf parses what the reader leaves.
    grpc::Slice bytes;
    if (!in->TrySingleSlice(&bytes).ok() && !in->DumpToSingleSlice(&bytes).ok()) {
      finish(absl::InternalError("could not read the request's bytes"));
      return reactor;
    }
    WireWriteRequest wire;
    if (wire.Decode({reinterpret_cast<const char*>(bytes.begin()), bytes.size()}, max_records)) {
      WireWriteSource source(wire);
      ingest_.WriteAsync(**caller, source, std::move(finish));
      return reactor;
    }
    google::protobuf::Arena arena(CallArenaOptions());
    auto* request = google::protobuf::Arena::CreateMessage<v1::WriteRecordsRequest>(&arena);
    if (absl::Status parsed = ParseRequest(*in, request); !parsed.ok()) {
      finish(parsed);
      return reactor;
    }
    ProtoWriteSource source(*request, max_records);
    ingest_.WriteAsync(**caller, source, std::move(finish));
  } catch (const std::exception& e) {
    reactor->Finish(ToGrpcStatus(absl::InternalError(StrCat("unexpected error: ", e.what()))));
  }
  return reactor;
}

}  // namespace strata
