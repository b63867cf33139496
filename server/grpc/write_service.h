// WriteService handler: adapts WriteRecords and BulkWriteRecords to the
// ingest door (server/runner/ingest.h), through gRPC's async API on a
// server's CallQueue (server/grpc/call_queue.h).
#pragma once

#include "server/grpc/call_queue.h"
#include "server/grpc/unary.h"
#include "server/runner/ingest.h"
#include "strata/v1/write.grpc.pb.h"

namespace strata {

class WriteService final
    : public v1::WriteService::WithRawMethod_WriteRecords<
          v1::WriteService::WithRawMethod_BulkWriteRecords<v1::WriteService::Service>> {
 public:
  // The arguments must outlive the service.
  WriteService(Ingest* ingest, Authenticator* auth) : ingest_(*ingest), auth_(*auth) {}

  // Serves both methods on `queue` (which must outlive their calls) once the
  // server is built. Without blocking: a request is parsed and prepared on
  // the queue's thread, and its call finished by the writer once its group is
  // committed (storage/write/writer.h). Blocked in a write's sync, the
  // serving threads would hold up every other call and keep groups small.
  void Serve(CallQueue* queue);

 private:
  class Call;

  Ingest& ingest_;
  Authenticator& auth_;
  CallQueue* queue_ = nullptr;
};

}  // namespace strata
