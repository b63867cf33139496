// WriteService handler: adapts WriteRecords and BulkWriteRecords to the
// ingest door (server/runner/ingest.h), through gRPC's async API on the
// server's CallQueues (rpc/call_queues.h).
#pragma once

#include "rpc/call_queues.h"
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

  // Serves both methods on `queues` (which must outlive their calls) once the
  // server is built. Without blocking: a request is parsed and prepared on
  // its queue's thread, and its call finished by the writer once its group is
  // committed (storage/write/writer.h). Blocked in a write's sync, the
  // serving threads would hold up every other call and keep groups small.
  void Serve(CallQueues* queues);

 private:
  class Call;

  Ingest& ingest_;
  Authenticator& auth_;
  CallQueues* queues_ = nullptr;
};

}  // namespace strata
